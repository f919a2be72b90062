/* predict_pow2.c — per reuse-distance group, the share of its accesses whose
 * address deltas are power-of-two multiples of a line, from the training
 * runs (the collector's 2-adic classes of each instruction's deltas, table
 * stride_pow2): a walk whose power-of-two stride changes from stage to stage
 * (an FFT's butterflies) keeps its lines in a few sets at each stage, and
 * the fully-associative distances cannot show those conflicts.  Only the
 * program's instructions without a dominant stride count (a dominant one is
 * the group's walk, which the strided model prices); predict_perf widens
 * the ranges of misses by them (docs/performance-model.md, "Strides"). */
#include <stdlib.h>
#include <string.h>

#include "predict/predict_pow2.h"
#include "util/array.h"

/* One instruction address of the program, its classes summed over runs. */
typedef struct addr_classes {
    uint64_t addr;
    double count[PROFILE_POW2_CLASSES], accesses;
} addr_classes;

static int by_addr(const void *pa, const void *pb)
{
    const addr_classes *a = pa, *b = pb;
    return (a->addr > b->addr) - (a->addr < b->addr);
}

/* Add the rows c[0..n) of one run (ascending instruction id) to *v (*nv
 * entries, room for *cap): one entry per instruction. */
static int add_run(const db_pow2 *c, size_t n, addr_classes **v, size_t *nv, size_t *cap)
{
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || c[i].instr_id != c[i - 1].instr_id) {
            addr_classes *grown = array_grow(*v, *nv, cap, sizeof *grown);
            if (!grown)
                return -1;
            *v = grown;
            (*v)[(*nv)++] = (addr_classes){.addr = c[i].addr, .accesses = (double)c[i].accesses};
        }
        int k = c[i].shift - PROFILE_POW2_FIRST;
        if (k >= 0 && k < PROFILE_POW2_CLASSES)
            (*v)[*nv - 1].count[k] += (double)c[i].count;
    }
    return 0;
}

/* Merge the entries of one address (sorted v[0..n)) into one; the new n. */
static size_t merge_addrs(addr_classes *v, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (o > 0 && v[o - 1].addr == v[i].addr) {
            v[o - 1].accesses += v[i].accesses;
            for (int k = 0; k < PROFILE_POW2_CLASSES; k++)
                v[o - 1].count[k] += v[i].count[k];
        } else
            v[o++] = v[i];
    }
    return o;
}

/* Each group's share per class: its program members' shares of the class
 * in their accesses, weighted by their shares of the group's touches. */
static void group_shares(const char *program, const db_rd_group *groups, size_t ngroups, const addr_classes *v,
                         size_t nv, double *out)
{
    for (size_t g = 0; g < ngroups; g++) {
        const db_rd_group *gr = &groups[g];
        if (!gr->module || !program || strcmp(gr->module, program))
            continue;
        for (size_t m = 0; m < gr->nmembers; m++) {
            addr_classes key = {.addr = gr->members[m].addr};
            const addr_classes *a = bsearch(&key, v, nv, sizeof *v, by_addr);
            if (!a || a->accesses <= 0)
                continue;
            for (int k = 0; k < PROFILE_POW2_CLASSES; k++)
                out[g * PROFILE_POW2_CLASSES + k] += gr->members[m].share * a->count[k] / a->accesses;
        }
    }
}

int predict_pow2_shares(db *d, const char *program, const db_run *runs, size_t nruns, const db_rd_group *groups,
                        size_t ngroups, double **out, char *err, size_t errlen)
{
    *out = NULL;
    addr_classes *v = NULL;
    size_t nv = 0, cap = 0;
    for (size_t r = 0; r < nruns; r++) {
        db_pow2 *c;
        size_t n;
        if (db_run_pow2(d, runs[r].id, &c, &n, err, errlen) != 0) {
            free(v);
            return -1;
        }
        int rc = add_run(c, n, &v, &nv, &cap);
        free(c);
        if (rc != 0) {
            free(v);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    if (nv == 0)
        return 0;
    qsort(v, nv, sizeof *v, by_addr);
    nv = merge_addrs(v, nv);
    *out = calloc(ngroups * PROFILE_POW2_CLASSES + 1, sizeof **out);
    if (*out)
        group_shares(program, groups, ngroups, v, nv, *out);
    free(v);
    if (!*out) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

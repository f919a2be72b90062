/* explore_hist.c — a run's measured reuse-distance histograms per loop:
 * the histograms of the program's memory instructions whose innermost loop
 * is the same (the loop of augur model's grouping key, memory_operands),
 * summed bin by bin, for the page's histogram plots. */
#include <stdlib.h>
#include <string.h>

#include "explore/explore_internal.h"

/* One loop's summed histogram. */
typedef struct loop_hist {
    int64_t scope;
    uint64_t cold;
    double count[RD_MAX_BINS];
} loop_hist;

typedef struct hist_ctx {
    const db_instr *ins;
    size_t nins;
    int64_t module_id;         /* the program's module in this run */
    const db_memory_key *keys; /* ascending addr */
    size_t nkeys;
    loop_hist **loops;         /* by scope id of the tree, allocated when it has a histogram */
    size_t nscopes;
} hist_ctx;

static int by_addr(const void *a, const void *b)
{
    uint64_t x = ((const db_memory_key *)a)->addr, y = ((const db_memory_key *)b)->addr;
    return (x > y) - (x < y);
}

static int add_histogram(void *vctx, int64_t instr_id, uint64_t cold, const rd_binrec *bins, size_t nbins)
{
    hist_ctx *c = vctx;
    size_t i = db_instr_find(c->ins, c->nins, instr_id);
    if (i == c->nins || c->ins[i].module_id != c->module_id)
        return 0;
    db_memory_key key = {.addr = c->ins[i].addr};
    const db_memory_key *k = bsearch(&key, c->keys, c->nkeys, sizeof key, by_addr);
    if (!k || k->loop <= 0 || (size_t)k->loop >= c->nscopes)
        return 0;
    loop_hist *h = c->loops[k->loop];
    if (!h && !(h = c->loops[k->loop] = calloc(1, sizeof *h)))
        return 1; /* out of memory: ends the iteration */
    h->scope = k->loop;
    h->cold += cold;
    for (size_t b = 0; b < nbins; b++)
        if (bins[b].bin < RD_MAX_BINS)
            h->count[bins[b].bin] += (double)bins[b].count;
    return 0;
}

/* [{scope, cold, bins: [[low, high, count], ...]}] of the loops that
 * have a histogram. */
static json_t *loops_json(const hist_ctx *c)
{
    json_t *a = json_array();
    for (size_t s = 0; a && s < c->nscopes; s++) {
        const loop_hist *h = c->loops[s];
        if (!h)
            continue;
        json_t *bins = json_array();
        for (unsigned b = 0; bins && b < RD_MAX_BINS; b++)
            if (h->count[b] > 0)
                json_array_append_new(bins, json_pack("[I, I, f]", (json_int_t)rd_bin_low(b),
                                                      (json_int_t)rd_bin_high(b), h->count[b]));
        if (json_array_append_new(a, json_pack("{s:I, s:I, s:o}", "scope", (json_int_t)h->scope, "cold",
                                               (json_int_t)h->cold, "bins", bins ? bins : json_null())) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

/* The program module's id in run_id (0 when the run's program is not
 * identified: no histograms then). */
static int program_module(db *d, int64_t run_id, int64_t *id, char *err, size_t errlen)
{
    db_run_module *mods;
    size_t n;
    *id = 0;
    if (db_run_modules(d, run_id, &mods, &n, err, errlen) != 0)
        return -1;
    int rc = n && mods[0].is_program ? db_module_id(d, mods[0].path, mods[0].build_id, id, err, errlen) : 0;
    db_run_modules_free(mods, n);
    return rc == DB_NOT_FOUND ? 0 : rc;
}

int explore_histograms(db *d, int64_t run_id, const scope_tree *t, uint32_t block, json_t **out, char *err,
                       size_t errlen)
{
    hist_ctx c = {.nscopes = t->nscopes};
    db_memory_key *keys = NULL;
    db_instr *ins = NULL;
    *out = NULL;
    int rc = program_module(d, run_id, &c.module_id, err, errlen);
    if (rc == 0)
        rc = db_memory_keys(d, t->binary.id, &keys, &c.nkeys, err, errlen);
    if (rc == 0)
        rc = db_run_instructions(d, run_id, &ins, &c.nins, err, errlen);
    c.keys = keys;
    c.ins = ins;
    if (rc == 0 && !(c.loops = calloc(c.nscopes + 1, sizeof *c.loops))) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    if (rc == 0 && c.module_id && (rc = db_for_each_histogram(d, run_id, block, add_histogram, &c, err, errlen)) > 0)
        rc = -1, snprintf(err, errlen, "out of memory");
    if (rc == 0 && !(*out = loops_json(&c))) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    for (size_t s = 0; c.loops && s < c.nscopes; s++)
        free(c.loops[s]);
    free(c.loops);
    free(ins);
    db_memory_keys_free(keys, c.nkeys);
    return rc;
}

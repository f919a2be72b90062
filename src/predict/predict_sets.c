/* predict_sets.c — a measured run's set-local histograms, read per set count
 * and found per instruction, and the misses of a level whose set count they
 * have (predict_sets.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predict/predict_sets.h"
#include "rd/rd_sets.h"

/* db_for_each_set_histogram callback: one more row of a set count (ctx);
 * 1 when memory runs out. */
static int on_set_hist(void *ctx, int64_t instr_id, uint64_t far, const rd_binrec *bins, size_t nbins)
{
    struct set_rows *r = ctx;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 1024;
        int64_t *ids = realloc(r->ids, cap * sizeof *ids);
        if (ids)
            r->ids = ids;
        predict_set_hist *h = realloc(r->h, cap * sizeof *h);
        if (h)
            r->h = h;
        if (!ids || !h)
            return 1;
        r->cap = cap;
    }
    predict_set_hist *h = &r->h[r->n];
    *h = (predict_set_hist){.far = far, .nbins = nbins, .bins = malloc((nbins + 1) * sizeof *bins)};
    if (!h->bins)
        return 1;
    memcpy(h->bins, bins, nbins * sizeof *bins);
    r->ids[r->n++] = instr_id;
    return 0;
}

int predict_set_table_load(db *d, const db_run *run, predict_set_table *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->ways = run->set_ways;
    for (int k = 0; k < run->nset_counts; k++) {
        struct set_rows *r = &t->rows[t->n++];
        int rc = db_for_each_set_histogram(d, run->id, run->set_counts[k], on_set_hist, r, err, errlen);
        if (rc > 0)
            snprintf(err, errlen, "out of memory");
        if (rc != 0)
            return -1;
        for (size_t i = 0; i < r->n; i++)
            r->h[i].sets = run->set_counts[k];
    }
    return 0;
}

void predict_set_table_find(const predict_set_table *t, int64_t instr, predict_sets *out)
{
    out->n = 0;
    for (unsigned k = 0; k < t->n; k++) {
        const struct set_rows *r = &t->rows[k];
        size_t lo = 0, hi = r->n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (r->ids[mid] < instr)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < r->n && r->ids[lo] == instr)
            out->h[out->n++] = &r->h[lo];
    }
}

void predict_set_table_free(predict_set_table *t)
{
    for (unsigned k = 0; k < t->n; k++) {
        for (size_t i = 0; i < t->rows[k].n; i++)
            free(t->rows[k].h[i].bins);
        free(t->rows[k].ids);
        free(t->rows[k].h);
    }
    memset(t, 0, sizeof *t);
}

int predict_sets_misses(const predict_sets *s, uint32_t ways, const perf_level *L, double *misses)
{
    if (!s || L->block != 1u << RD_SET_LINE_SHIFT || L->ways < 1 || L->ways > ways || L->ways != floor(L->ways))
        return 0;
    for (unsigned k = 0; k < s->n; k++)
        if (s->h[k]->sets == L->sets) {
            *misses = rd_sets_misses(s->h[k]->far, s->h[k]->bins, s->h[k]->nbins, (uint32_t)L->ways);
            return 1;
        }
    return 0;
}

/* predict_crossing.c — the capacity-crossing warning of `augur predict`:
 * for each cache, the reuse-distance groups with a slice that lies on one
 * side of the cache's capacity at every training run and on the other at
 * the parameters predicted (rd_model_crossings).  Their misses there are
 * extrapolated from runs where those touches hit (or missed), the least
 * certain part of a prediction; one warning per cache names how many
 * groups, their share of its predicted misses and the largest of them
 * (docs/models.md, "Capacity crossings"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predict/predict_internal.h"

/* One cache's crossing groups, added up. */
typedef struct crossing {
    size_t groups;
    double misses;               /* the crossing groups' predicted misses */
    double all;                  /* every group's of the cache */
    const db_rd_group *largest;  /* the crossing group with the most misses */
    double largest_misses;
} crossing;

/* "matmul.c:14 in multiply", or "memcpy (libc.so.6)" without a line, or
 * "code at 0x4011a0 of no known function": the member of g with the
 * largest share, for messages (a long C++ name shortened as in the text
 * tables: the message is one line of them). */
static void largest_member(const db_rd_group *g, char *buf, size_t len)
{
    const struct db_rd_member_row *best = NULL;
    char fn[REPORT_NAME_WIDTH + 1];
    for (size_t k = 0; k < g->nmembers; k++)
        if (!best || g->members[k].share > best->share)
            best = &g->members[k];
    if (best && best->function)
        st_short_name(best->function, REPORT_NAME_WIDTH, fn, sizeof fn);
    if (best && best->file && best->line)
        snprintf(buf, len, "%s:%u in %s", report_base_name(best->file), best->line, best->function ? fn : "?");
    else if (best && best->function)
        snprintf(buf, len, "%s (%s)", fn, report_base_name(g->module) ?: "no module");
    else
        snprintf(buf, len, "code at %#llx of no known function", best ? (unsigned long long)best->addr : 0ULL);
}

/* Add group g's predicted misses of cache c to k, and to its crossing
 * part when a slice of g crosses the cache's capacity; -1 when memory runs
 * out. */
static int tally(const prediction *p, const db_rd_group *g, size_t c, crossing *k)
{
    uint64_t capacity = p->rep.caches[c].size / p->rep.caches[c].line;
    double misses = rd_model_misses(g->m, p->x, capacity); /* finite: add_group_misses refused the others */
    k->all += misses;
    int n = rd_model_crossings(g->m, p->train_x, p->ntrain, p->set.nparams, p->x, capacity);
    if (n <= 0)
        return n;
    k->groups++;
    k->misses += misses;
    if (!k->largest || misses > k->largest_misses) {
        k->largest = g;
        k->largest_misses = misses;
    }
    return 0;
}

/* The warning of cache c from its tally k; -1 when memory runs out. */
static int warn_cache(prediction *p, size_t c, const crossing *k)
{
    const report_cache *cache = &p->rep.caches[c];
    char label[64], params[256], member[512], text[1280];
    report_cache_label(cache, label, sizeof label);
    predict_params_text(p, params, sizeof params);
    largest_member(k->largest, member, sizeof member);
    snprintf(text, sizeof text,
             "misses %s: %zu reuse-distance group%s (%.3g%% of the predicted misses; largest: %s) cross%s the "
             "cache's %llu blocks between the training range and %s: their misses are extrapolated from runs "
             "where they hit (or missed), so treat them as the least certain",
             label, k->groups, k->groups == 1 ? "" : "s", k->all > 0 ? 100 * k->misses / k->all : 0.0, member,
             k->groups == 1 ? "es" : "", (unsigned long long)(cache->size / cache->line), params);
    return predict_add_warning(p, text);
}

int predict_warn_crossings(prediction *p, const db_rd_group *groups, size_t n)
{
    for (size_t c = 0; p->ntrain > 0 && c < p->rep.ncaches; c++) {
        crossing k = {0};
        for (size_t i = 0; i < n; i++)
            if (groups[i].block_size == p->rep.caches[c].line && tally(p, &groups[i], c, &k) != 0)
                return -1;
        if (k.groups > 0 && warn_cache(p, c, &k) != 0)
            return -1;
    }
    return 0;
}

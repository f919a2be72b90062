/* memspy_attr.c — the MemSpy report from a raw file: every (instruction,
 * data object) pair's counts summed into data objects, code objects
 * (functions, loops, source lines) and (function, data object) pairs, each
 * with its stall cycles, then ranked by stall (seed 001, section 3). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "binary/startup.h"
#include "memspy_report/memspy_report.h"
#include "report/report.h"

#define MAX_LOOPS 8

double mr_stall(const mr_costs *c, unsigned nlevels, const double *misses)
{
    double stall = 0;
    for (unsigned k = 0; k < nlevels; k++) {
        double served_below = misses[k] - (k + 1 < nlevels ? misses[k + 1] : 0);
        stall += served_below * c->lat[k + 1];
    }
    return stall;
}

mr_estimate mr_stats_misses(const memspy_report *rep, const mr_stats *s, unsigned k)
{
    return mr_estimate_misses(&rep->scale, &s->lv[k]);
}

double mr_stats_refs(const memspy_report *rep, const mr_stats *s, uint64_t count)
{
    return (double)count * (s == &rep->total ? rep->scale.refs_factor : rep->scale.factor);
}

void mr_stats_add(mr_stats *s, const mr_pair *p, unsigned nlevels)
{
    s->refs += p->refs;
    s->reads += p->reads;
    s->writes += p->writes;
    for (unsigned k = 0; k < nlevels; k++) {
        s->lv[k].miss += p->lv[k].miss;
        s->lv[k].unknown += p->lv[k].unknown;
        s->lv[k].unknown_hits += p->lv[k].unknown_hits;
        for (int c = 0; c < MS_NCAUSES; c++)
            s->lv[k].cause[c] += p->lv[k].cause[c];
        for (int g = 0; g < MS_SET_GROUPS; g++)
            s->lv[k].group[g] += p->lv[k].group[g];
    }
}

void mr_stats_stall(const memspy_report *rep, mr_stats *s)
{
    double m[MR_MAX_LEVELS];
    for (unsigned k = 0; k < rep->raw->nlevels; k++)
        m[k] = mr_stats_misses(rep, s, k).est;
    s->stall = mr_stall(&rep->costs, rep->raw->nlevels, m);
}

uint64_t mr_replacements(const memspy_raw *r, unsigned k, uint32_t victim, uint64_t *by)
{
    uint64_t total = 0;
    memset(by, 0, r->nobjs * sizeof *by);
    for (size_t i = 0; i < r->nevicts; i++) {
        const mr_evict *e = &r->evicts[i];
        if (e->level == k && e->victim == victim) {
            by[e->evictor] += e->count;
            total += e->count;
        }
    }
    return total;
}

/* qsort order of evictors: most replacements first, ties in raw order. */
static int by_count(const void *a, const void *b)
{
    const mr_evictor *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return (x->obj > y->obj) - (x->obj < y->obj);
}

size_t mr_evictors(const memspy_raw *r, unsigned k, uint32_t victim, uint64_t *by, mr_evictor *e, uint64_t *total)
{
    size_t n = 0;
    *total = mr_replacements(r, k, victim, by);
    for (size_t j = 0; j < r->nobjs; j++)
        if (by[j])
            e[n++] = (mr_evictor){by[j], (uint32_t)j};
    qsort(e, n, sizeof *e, by_count);
    return n;
}

/* ---- code objects -------------------------------------------------------- */

/* Interns code objects by a key: `index` maps keys to indices. */
typedef struct code_set {
    memspy_report *rep;
    size_t cap;
    json_t *index;
} code_set;

/* The index of the code object with `key`, made (kind, name, function)
 * when new; -1 when memory runs out. */
static long code_object(code_set *cs, const char *key, enum mr_code_kind kind, const char *name, const char *fn)
{
    json_t *found = json_object_get(cs->index, key);
    if (found)
        return (long)json_integer_value(found);
    memspy_report *rep = cs->rep;
    if (rep->ncode == cs->cap) {
        size_t cap = cs->cap ? 2 * cs->cap : 64;
        mr_code_obj *c = realloc(rep->code, cap * sizeof *c);
        if (!c)
            return -1;
        rep->code = c;
        cs->cap = cap;
    }
    mr_code_obj *o = &rep->code[rep->ncode];
    *o = (mr_code_obj){.kind = (uint8_t)kind, .name = strdup(name), .function = strdup(fn)};
    if (!o->name || !o->function || json_object_set_new(cs->index, key, json_integer((json_int_t)rep->ncode)) != 0) {
        free(o->name), free(o->function);
        return -1;
    }
    return (long)rep->ncode++;
}

/* Whether id is among ids[0 .. n).  Nested loops can carry one name (a
 * loop nest whose headers all sit on one line, as in an OpenMP outlined
 * function): they are one code object, which must count each reference
 * once, not once per loop. */
static int already_listed(const long *ids, int n, long id)
{
    for (int i = 0; i < n; i++)
        if (ids[i] == id && id >= 0)
            return 1;
    return 0;
}

/* The code objects of location c (its function, line and loops) into
 * ids[]; returns their count, or -1 when memory runs out. */
static int code_objects_of(code_set *cs, size_t c, mr_loops_fn loops, void *ctx, long *ids)
{
    const memspy_raw *r = cs->rep->raw;
    const mr_loc *l = &r->codes[c];
    const char *fn = l->fn >= 0 ? r->fns[l->fn] : "???";
    char key[4200], name[4200];
    int n = 0;
    snprintf(key, sizeof key, "f%d", l->fn);
    ids[n++] = code_object(cs, key, MR_FUNCTION, fn, fn);
    if (l->file >= 0 && l->line > 0) {
        snprintf(key, sizeof key, "l%d:%u", l->file, l->line);
        snprintf(name, sizeof name, "%s:%u", report_base_name(r->files[l->file]), l->line);
        ids[n] = code_object(cs, key, MR_LINE, name, fn);
        if (ids[n] >= 0)
            cs->rep->code[ids[n]].file = r->files[l->file];
        n++;
    }
    const char *names[MAX_LOOPS];
    size_t nloops = loops ? loops(ctx, c, names, MAX_LOOPS) : 0;
    for (size_t i = 0; i < nloops; i++) {
        snprintf(key, sizeof key, "p%d/%s", l->fn, names[i]);
        ids[n] = code_object(cs, key, MR_LOOP, names[i], fn);
        if (!already_listed(ids, n, ids[n]))
            n++;
    }
    for (int i = 0; i < n; i++)
        if (ids[i] < 0)
            return -1;
    return n;
}

/* ---- pairs --------------------------------------------------------------- */

static long pair_of(memspy_report *rep, json_t *index, size_t *cap, uint32_t function, uint32_t obj)
{
    char key[48];
    snprintf(key, sizeof key, "%u:%u", function, obj);
    json_t *found = json_object_get(index, key);
    if (found)
        return (long)json_integer_value(found);
    if (rep->npairs == *cap) {
        size_t ncap = *cap ? 2 * *cap : 64;
        mr_pair_stats *p = realloc(rep->pairs, ncap * sizeof *p);
        if (!p)
            return -1;
        rep->pairs = p;
        *cap = ncap;
    }
    rep->pairs[rep->npairs] = (mr_pair_stats){.function = function, .obj = obj};
    if (json_object_set_new(index, key, json_integer((json_int_t)rep->npairs)) != 0)
        return -1;
    return (long)rep->npairs++;
}

/* ---- start-up and loader code ---------------------------------------------- */

/* Whether each raw code location is start-up or loader code
 * (src/binary/startup.h); NULL when memory runs out. */
static uint8_t *startup_locations(const memspy_raw *r)
{
    uint8_t *is = calloc(r->ncodes ? r->ncodes : 1, 1);
    startup_rules *rules = startup_rules_new();
    int ok = is && rules;
    for (size_t c = 0; ok && c < r->ncodes; c++) {
        const mr_loc *l = &r->codes[c];
        int v = startup_is(rules, l->fn >= 0 ? r->fns[l->fn] : NULL, l->module >= 0 ? r->module_paths[l->module] : NULL);
        ok = v >= 0;
        is[c] = v > 0;
    }
    startup_rules_free(rules);
    if (!ok)
        free(is);
    return ok ? is : NULL;
}

/* rep's start-up flags from the locations' (loc) and each location's code
 * objects (ids, nids; its function first): a code object is start-up when
 * all its locations are, a pair when its function is, a data object when
 * all its pairs are; the start-up pairs' counts summed into rep->startup.
 * -1 when memory runs out. */
static int mark_startup(memspy_report *rep, const uint8_t *loc, long (*ids)[2 + MAX_LOOPS], const int *nids)
{
    const memspy_raw *r = rep->raw;
    rep->code_startup = malloc(rep->ncode ? rep->ncode : 1);
    rep->data_startup = calloc(r->nobjs ? r->nobjs : 1, 1);
    uint8_t *other = calloc(r->nobjs ? r->nobjs : 1, 1); /* referenced by a pair that is not start-up */
    if (!rep->code_startup || !rep->data_startup || !other) {
        free(other);
        return -1;
    }
    memset(rep->code_startup, 1, rep->ncode);
    for (size_t c = 0; c < r->ncodes; c++)
        for (int j = 0; j < nids[c]; j++)
            rep->code_startup[ids[c][j]] &= loc[c];
    for (size_t i = 0; i < r->npairs; i++) {
        const mr_pair *p = &r->pairs[i];
        int startup = rep->code_startup[ids[p->code][0]];
        other[p->obj] |= !startup;
        rep->data_startup[p->obj] = 1; /* referenced */
        if (startup)
            mr_stats_add(&rep->startup, p, r->nlevels);
    }
    for (size_t o = 0; o < r->nobjs; o++) {
        rep->data_startup[o] &= !other[o];
        rep->startup_data += rep->data_startup[o];
    }
    for (size_t k = 0; k < rep->ncode; k++)
        rep->startup_functions += rep->code[k].kind == MR_FUNCTION && rep->code_startup[k];
    free(other);
    return 0;
}

/* Add every raw pair into the code objects and the (function, object)
 * pairs, and find the start-up code and data; -1 when memory runs out. */
static int attribute(memspy_report *rep, mr_loops_fn loops, void *ctx)
{
    const memspy_raw *r = rep->raw;
    code_set cs = {rep, 0, json_object()};
    json_t *pair_index = json_object();
    long (*ids)[2 + MAX_LOOPS] = calloc(r->ncodes ? r->ncodes : 1, sizeof *ids);
    int *nids = calloc(r->ncodes ? r->ncodes : 1, sizeof *nids);
    uint8_t *loc = startup_locations(r);
    size_t pair_cap = 0;
    int rc = cs.index && pair_index && ids && nids && loc ? 0 : -1;
    for (size_t c = 0; rc == 0 && c < r->ncodes; c++)
        rc = (nids[c] = code_objects_of(&cs, c, loops, ctx, ids[c])) < 0 ? -1 : 0;
    for (size_t i = 0; rc == 0 && i < r->npairs; i++) {
        const mr_pair *p = &r->pairs[i];
        for (int j = 0; j < nids[p->code]; j++)
            mr_stats_add(&rep->code[ids[p->code][j]].s, p, r->nlevels);
        long q = pair_of(rep, pair_index, &pair_cap, (uint32_t)ids[p->code][0], p->obj);
        if (q < 0)
            rc = -1;
        else
            mr_stats_add(&rep->pairs[q].s, p, r->nlevels);
    }
    if (rc == 0)
        rc = mark_startup(rep, loc, ids, nids);
    json_decref(cs.index);
    json_decref(pair_index);
    free(ids);
    free(nids);
    free(loc);
    return rc;
}

/* ---- ranking ------------------------------------------------------------- */

static int by_stall(const mr_stats *a, const mr_stats *b)
{
    if (a->stall != b->stall)
        return a->stall < b->stall ? 1 : -1;
    return (a->lv[0].miss < b->lv[0].miss) - (a->lv[0].miss > b->lv[0].miss);
}

/* The ranks of n stats found at base + i * stride, most stall first. */
static uint32_t *rank(const void *base, size_t n, size_t stride)
{
    uint32_t *r = malloc((n ? n : 1) * sizeof *r);
    if (!r)
        return NULL;
    for (size_t i = 0; i < n; i++)
        r[i] = (uint32_t)i;
    /* Insertion into place: lists are short next to the run that made them. */
    for (size_t i = 1; i < n; i++) {
        uint32_t v = r[i];
        const mr_stats *sv = (const mr_stats *)((const char *)base + v * stride);
        size_t j = i;
        while (j > 0 && by_stall((const mr_stats *)((const char *)base + r[j - 1] * stride), sv) > 0) {
            r[j] = r[j - 1];
            j--;
        }
        r[j] = v;
    }
    return r;
}

static int finish(memspy_report *rep)
{
    const memspy_raw *r = rep->raw;
    mr_stats_stall(rep, &rep->total);
    mr_stats_stall(rep, &rep->startup);
    for (size_t i = 0; i < r->nobjs; i++)
        mr_stats_stall(rep, &rep->data[i]);
    for (size_t i = 0; i < rep->ncode; i++)
        mr_stats_stall(rep, &rep->code[i].s);
    for (size_t i = 0; i < rep->npairs; i++)
        mr_stats_stall(rep, &rep->pairs[i].s);
    rep->data_rank = rank(rep->data, r->nobjs, sizeof *rep->data);
    rep->code_rank = rank(rep->code ? &rep->code[0].s : NULL, rep->ncode, sizeof *rep->code);
    rep->pair_rank = rank(rep->pairs ? &rep->pairs[0].s : NULL, rep->npairs, sizeof *rep->pairs);
    return rep->data_rank && rep->code_rank && rep->pair_rank ? 0 : -1;
}

int memspy_report_build(const memspy_raw *r, const mr_costs *c, mr_loops_fn loops, void *loops_ctx,
                        memspy_report *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->raw = r;
    out->costs = *c;
    out->scale = mr_scale_of(r);
    out->data = calloc(r->nobjs ? r->nobjs : 1, sizeof *out->data);
    int rc = out->data ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < r->npairs; i++) {
        mr_stats_add(&out->total, &r->pairs[i], r->nlevels);
        mr_stats_add(&out->data[r->pairs[i].obj], &r->pairs[i], r->nlevels);
    }
    if (rc == 0)
        rc = attribute(out, loops, loops_ctx);
    if (rc == 0)
        rc = finish(out);
    if (rc != 0) {
        snprintf(err, errlen, "out of memory building the memspy report");
        memspy_report_free(out);
    }
    return rc;
}

void memspy_report_free(memspy_report *rep)
{
    for (size_t i = 0; i < rep->ncode; i++)
        free(rep->code[i].name), free(rep->code[i].function);
    free(rep->code), free(rep->data), free(rep->pairs);
    free(rep->code_startup), free(rep->data_startup);
    free(rep->data_rank), free(rep->code_rank), free(rep->pair_rank);
    memset(rep, 0, sizeof *rep);
}

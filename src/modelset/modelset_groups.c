/* modelset_groups.c — reuse-distance histogram models per instruction
 * group (seed 002): the memory instructions of the program that lie in the
 * same innermost loop and have the same constant strides in every
 * enclosing loop share one histogram, because which of them touches a
 * line first depends on alignments that change with the problem size;
 * the instructions of a library function form one group (libraries seldom
 * have line information, so a function is the finest place their misses
 * are reported at, and per-instruction models of thousands of start-up
 * instructions would cost most of the fitting time); every other memory
 * instruction of the program (unknown strides, code outside loops) is a
 * group of its own.
 *
 * Per run, the group's histogram is the sum of its members' histograms
 * (all processes).  rd_model_fit models the series, the distances with
 * evidenced growth when the group's own loop runs a number of times no
 * exact form gives (model_options.evidenced_growth); its touches are then
 * the iterations of the innermost exact loop around it times the touches
 * per iteration where that cross-validates (model_compose_enclosing: md's
 * neighbour scan, whose trips step with its bins per side); each member gets its
 * share of the group's touches in the run with the most touches, by which
 * `augur predict` attributes the group's misses to lines and functions.
 * The group's walk is that run's heaviest member's: its dominant stride
 * and run length in every run (table strides), modeled when every run has
 * one and model_walk_fit keeps it (docs/models.md, "Strides").
 *
 * The groups of every block size are fitted in one pass over
 * (block size, group) items on f->opts->jobs threads (util/parallel.h):
 * each item's model goes to a slot of its own, and the calling thread
 * stores them in item order, so the stored model set does not depend on
 * the number of threads. */
#define _GNU_SOURCE /* asprintf */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modelset/modelset.h"
#include "util/array.h"
#include "util/parallel.h"

#define NO_GROUP SIZE_MAX

/* One bin of one group in one run. */
typedef struct bin_rec {
    size_t group;
    uint32_t run;
    rd_binrec bin;
} bin_rec;

/* The histograms of every group at one block size. */
typedef struct histos {
    uint32_t block_size;
    double *cold;        /* [group * nruns + r] */
    double *loc_touches; /* [loc * nruns + r] */
    bin_rec *recs;       /* by group, run, bin */
    size_t nrecs, cap;
    size_t *first;       /* the records of group k: recs[first[k] .. first[k + 1]) */
} histos;

typedef struct grouping {
    ms_fitter *f;
    size_t ngroups;
    size_t *group_of;   /* per location, NO_GROUP when it touched no memory */
    histos *hist;       /* per block size of the runs */
    db_stride *loc_stride; /* [loc * nruns + r]; deltas 0: none */
    histos *reading;    /* the one being read */
    uint32_t run;       /* the run being read */
    unsigned char *inexact; /* per scope, a loop whose trips fit no exact form (ms_loops_inexact), or NULL */
} grouping;

/* ---- forming the groups ------------------------------------------------------ */

typedef struct keyed {
    const char *key; /* "loop|strides", NULL: alone */
    size_t loc;
} keyed;

static int by_key(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    if (!a->key || !b->key) /* alone: keep location order */
        return a->key ? -1 : b->key ? 1 : (a->loc > b->loc) - (a->loc < b->loc);
    int c = strcmp(a->key, b->key);
    return c ? c : (a->loc > b->loc) - (a->loc < b->loc);
}

static int touches_memory(const ms_series *s, size_t loc)
{
    for (size_t r = 0; r < s->runs->n; r++)
        if (s->reads[loc * s->runs->n + r] + s->writes[loc * s->runs->n + r] > 0)
            return 1;
    return 0;
}

/* The memory key of location `loc` (its innermost loop and strides), or
 * NULL when it is in another module or has none.  keys are ascending addr. */
static const db_memory_key *key_of(const ms_fitter *f, const db_memory_key *keys, size_t nkeys, size_t loc)
{
    const ms_loc *l = &f->series->locs[loc];
    if (l->module_id != f->runs->program_module)
        return NULL;
    size_t lo = 0, hi = nkeys;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (keys[mid].addr < l->addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nkeys && keys[lo].addr == l->addr && keys[lo].loop >= 0 ? &keys[lo] : NULL;
}

/* The group key of location `loc`: "loop|strides" when it is in the
 * program and every stride is a constant; "lib module function" in another
 * module; NULL (alone) otherwise. */
static char *group_key(const ms_fitter *f, const db_memory_key *keys, size_t nkeys, size_t loc)
{
    const ms_loc *l = &f->series->locs[loc];
    char *key;
    if (l->module_id != f->runs->program_module)
        return asprintf(&key, "lib %lld %lld", (long long)l->module_id, (long long)l->function_id) < 0 ? NULL : key;
    const db_memory_key *k = key_of(f, keys, nkeys, loc);
    if (!k || strstr(k->strides, "null"))
        return NULL;
    return asprintf(&key, "%lld|%s", (long long)k->loop, k->strides) < 0 ? NULL : key;
}

static int form_groups(grouping *g, const db_memory_key *keys, size_t nkeys)
{
    const ms_series *s = g->f->series;
    keyed *k = calloc(s->nlocs + 1, sizeof *k);
    g->group_of = malloc((s->nlocs + 1) * sizeof *g->group_of);
    if (!k || !g->group_of) {
        free(k);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < s->nlocs; i++) {
        g->group_of[i] = NO_GROUP;
        if (touches_memory(s, i))
            k[n++] = (keyed){.key = group_key(g->f, keys, nkeys, i), .loc = i};
    }
    qsort(k, n, sizeof *k, by_key);
    for (size_t i = 0; i < n; i++) {
        int joins = i > 0 && k[i].key && k[i - 1].key && !strcmp(k[i].key, k[i - 1].key);
        g->group_of[k[i].loc] = joins ? g->ngroups - 1 : g->ngroups++;
    }
    for (size_t i = 0; i < n; i++)
        free((char *)k[i].key);
    free(k);
    return 0;
}

/* ---- reading the histograms ----------------------------------------------------- */

/* db_for_each_histogram callback: add an instruction's histogram to its
 * group in the current run. */
static int on_histogram(void *ctx, int64_t instr_id, uint64_t cold, const rd_binrec *bins, size_t nbins)
{
    grouping *g = ctx;
    histos *h = g->reading;
    const ms_series *s = g->f->series;
    size_t nruns = s->runs->n;
    size_t i = db_instr_find(s->run_ins[g->run], s->run_nins[g->run], instr_id);
    if (i == s->run_nins[g->run])
        return 0;
    size_t loc = s->run_loc[g->run][i], group = g->group_of[loc];
    if (group == NO_GROUP)
        return 0;
    h->cold[group * nruns + g->run] += (double)cold;
    double touches = (double)cold;
    for (size_t b = 0; b < nbins; b++) {
        bin_rec *grown = array_grow(h->recs, h->nrecs, &h->cap, sizeof *h->recs);
        if (!grown)
            return -1;
        h->recs = grown;
        h->recs[h->nrecs++] = (bin_rec){.group = group, .run = g->run, .bin = bins[b]};
        touches += (double)bins[b].count;
    }
    h->loc_touches[loc * nruns + g->run] += touches;
    return 0;
}

static int by_group_run_bin(const void *pa, const void *pb)
{
    const bin_rec *a = pa, *b = pb;
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    if (a->run != b->run)
        return a->run < b->run ? -1 : 1;
    return (a->bin.bin > b->bin.bin) - (a->bin.bin < b->bin.bin);
}

/* Sort the records and add up equal (group, run, bin) ones; then find
 * where each of the ngroups groups' records begin. */
static void combine(histos *h, size_t ngroups)
{
    qsort(h->recs, h->nrecs, sizeof *h->recs, by_group_run_bin);
    size_t n = 0;
    for (size_t i = 0; i < h->nrecs; i++) {
        bin_rec *last = n ? &h->recs[n - 1] : NULL;
        if (last && last->group == h->recs[i].group && last->run == h->recs[i].run &&
            last->bin.bin == h->recs[i].bin.bin) {
            last->bin.count += h->recs[i].bin.count;
            last->bin.sum += h->recs[i].bin.sum;
        } else
            h->recs[n++] = h->recs[i];
    }
    h->nrecs = n;
    for (size_t k = 0, r = 0; k <= ngroups; k++) {
        while (r < h->nrecs && h->recs[r].group < k)
            r++;
        h->first[k] = r;
    }
}

/* Read every run's histograms at h->block_size into h. */
static int read_histograms(grouping *g, histos *h)
{
    ms_fitter *f = g->f;
    size_t nruns = f->runs->n;
    h->cold = calloc(g->ngroups * nruns + 1, sizeof *h->cold);
    h->loc_touches = calloc(f->series->nlocs * nruns + 1, sizeof *h->loc_touches);
    h->first = malloc((g->ngroups + 1) * sizeof *h->first);
    if (!h->cold || !h->loc_touches || !h->first)
        return snprintf(f->err, f->errlen, "out of memory"), -1;
    g->reading = h;
    for (g->run = 0; g->run < nruns; g->run++) {
        int rc =
            db_for_each_histogram(f->d, f->runs->ids[g->run], h->block_size, on_histogram, g, f->err, f->errlen);
        if (rc != 0)
            return rc > 0 ? (snprintf(f->err, f->errlen, "out of memory"), -1) : -1;
    }
    combine(h, g->ngroups);
    return 0;
}

/* Every location's stride in every run (the first process's row: a sum
 * over processes is not a stride). */
static int read_strides(grouping *g)
{
    const ms_series *s = g->f->series;
    size_t nruns = s->runs->n;
    g->loc_stride = calloc(s->nlocs * nruns + 1, sizeof *g->loc_stride);
    if (!g->loc_stride)
        return snprintf(g->f->err, g->f->errlen, "out of memory"), -1;
    for (size_t r = 0; r < nruns; r++) {
        db_stride *st;
        size_t n;
        if (db_run_strides(g->f->d, s->runs->ids[r], &st, &n, g->f->err, g->f->errlen) != 0)
            return -1;
        for (size_t k = 0; k < n; k++) {
            size_t i = db_instr_find(s->run_ins[r], s->run_nins[r], st[k].instr_id);
            if (i == s->run_nins[r])
                continue;
            db_stride *to = &g->loc_stride[s->run_loc[r][i] * nruns + r];
            if (!to->deltas)
                *to = st[k];
        }
        free(st);
    }
    return 0;
}

/* ---- fitting and storing ----------------------------------------------------------- */

/* The run where the members locs[0..n) touched most in h, and their
 * touches there. */
static size_t busiest_run(const grouping *g, const histos *h, const size_t *locs, size_t n, double *most)
{
    size_t nruns = g->f->series->runs->n, best = 0;
    *most = -1;
    for (size_t r = 0; r < nruns; r++) {
        double t = 0;
        for (size_t i = 0; i < n; i++)
            t += h->loc_touches[locs[i] * nruns + r];
        if (t > *most)
            *most = t, best = r;
    }
    return best;
}

/* The members of a group with their shares of its touches in the run
 * where the group touched most. */
static db_rd_member *members_of(const grouping *g, const histos *h, const size_t *locs, size_t n)
{
    const ms_series *s = g->f->series;
    size_t nruns = s->runs->n;
    double most;
    size_t best = busiest_run(g, h, locs, n, &most);
    db_rd_member *m = calloc(n + 1, sizeof *m);
    for (size_t i = 0; m && i < n; i++) {
        const ms_loc *l = &s->locs[locs[i]];
        double t = h->loc_touches[locs[i] * nruns + best];
        m[i] = (db_rd_member){.addr = l->addr,
                              .function = s->function[locs[i]],
                              .file = s->file[locs[i]],
                              .line = l->line,
                              .share = most > 0 ? t / most : 1.0 / (double)n};
    }
    return m;
}

/* The strides part of a group key, for the database. */
static char *strides_of(const ms_fitter *f, const db_memory_key *keys, size_t nkeys, size_t loc, int64_t *loop)
{
    char *key = group_key(f, keys, nkeys, loc);
    *loop = -1;
    if (!key || !strncmp(key, "lib ", 4)) {
        free(key);
        return NULL;
    }
    char *bar = strchr(key, '|');
    *loop = strtoll(key, NULL, 10);
    char *strides = strdup(bar + 1);
    free(key);
    return strides;
}

/* The walk of a group (its busiest run's heaviest member's stride and run
 * length, in every run) into stride and run; 1 when both are modeled
 * (model_walk_fit), 0 when a run has no dominant stride
 * (db_stride_dominant), model_walk_fit refuses, or memory runs out. */
static int fit_walk(const grouping *g, const histos *h, const size_t *locs, size_t n, model *stride, model *run)
{
    const ms_fitter *f = g->f;
    size_t nruns = f->runs->n, heaviest = locs[0];
    double most;
    size_t best = busiest_run(g, h, locs, n, &most);
    for (size_t i = 1; i < n; i++)
        if (h->loc_touches[locs[i] * nruns + best] > h->loc_touches[heaviest * nruns + best])
            heaviest = locs[i];
    double *y = malloc(2 * nruns * sizeof *y);
    int ok = y != NULL;
    for (size_t r = 0; ok && r < nruns; r++) {
        const db_stride *s = &g->loc_stride[heaviest * nruns + r];
        ok = db_stride_dominant(s);
        if (ok) {
            y[r] = fabs((double)s->delta);
            y[nruns + r] = db_stride_run(s);
        }
    }
    model_series ss = {.npoints = nruns, .nparams = f->runs->nparams, .x = f->runs->x, .y = y};
    model_series rs = ss;
    rs.y = y + nruns;
    ok = ok && model_walk_fit(&ss, &rs, h->block_size, &f->mo, stride, run);
    free(y);
    return ok;
}

/* One (block size, group) item of the fitting pass and what became of it. */
typedef struct group_slot {
    enum { SLOT_FITTED, SLOT_UNMODELABLE, SLOT_NO_MEMORY } status;
    rd_model m;
    int walked;        /* stride and run hold the group's walk (fit_walk) */
    model stride, run;
    char *why; /* SLOT_UNMODELABLE: the fitter's reason */
} group_slot;

/* The fitting pass over every block size's groups: item i is group
 * i % ngroups at block size i / ngroups. */
typedef struct fit_pass {
    grouping *g;
    const db_memory_key *keys;
    size_t nkeys;
    size_t *locs, *first; /* members of group k: locs[first[k] .. first[k + 1]) */
    group_slot *slots;
    size_t nitems;
} fit_pass;

#define MAX_ENCLOSING 16 /* loops around a group tried for its touches */

/* The loops around a group, innermost first (ms_nests_enclosing): the
 * trips of loop k per run at trips[k]; nloops 0 outside the program's
 * loops (or when memory ran out). */
typedef struct enclosing {
    double *buf; /* nruns values per loop */
    const double *trips[MAX_ENCLOSING];
    int degree[MAX_ENCLOSING];
    size_t nloops;
} enclosing;

/* The loops around group `group` into *e (its members lie in one innermost
 * loop: the key's, or a group of its own's one member's); free e->buf. */
static void loops_around(const fit_pass *p, size_t group, enclosing *e)
{
    const ms_fitter *f = p->g->f;
    size_t nruns = f->runs->n;
    const db_memory_key *k = key_of(f, p->keys, p->nkeys, p->locs[p->first[group]]);
    e->nloops = 0;
    e->buf = k ? malloc(MAX_ENCLOSING * nruns * sizeof *e->buf) : NULL;
    if (e->buf)
        e->nloops = ms_nests_enclosing(f, k->loop, e->buf, e->degree, MAX_ENCLOSING);
    for (size_t j = 0; j < e->nloops; j++)
        e->trips[j] = e->buf + j * nruns;
}

/* Whether the group's own loop runs a number of times the data decide
 * (its trips fit no exact form): the mix of its iterations moves with the
 * size, and so do its distances. */
static int data_dependent(const fit_pass *p, size_t group)
{
    const db_memory_key *k = key_of(p->g->f, p->keys, p->nkeys, p->locs[p->first[group]]);
    return k && p->g->inexact && (uint64_t)k->loop < p->g->f->program->nscopes && p->g->inexact[k->loop];
}

/* The touches model m (fitted on the non-cold touches of pts, one point
 * per run) as the iterations of the innermost exact loop of e times the
 * touches per iteration, where model_compose_enclosing takes that; m stays
 * the direct fit otherwise. */
static void compose_touches(const ms_fitter *f, const enclosing *e, const rd_series_point *pts, model *m)
{
    size_t nruns = f->runs->n;
    double *y = e->nloops ? malloc(nruns * sizeof *y) : NULL;
    for (size_t r = 0; y && r < nruns; r++) {
        y[r] = 0;
        for (size_t b = 0; b < pts[r].nbins; b++)
            y[r] += (double)pts[r].bins[b].count;
    }
    model_series s = {.npoints = nruns, .nparams = f->runs->nparams, .x = f->runs->x, .y = y};
    if (y)
        model_compose_enclosing(&s, e->nloops, e->trips, e->degree, &f->mo, m);
    free(y);
}

/* par_work_fn: fit item i's histogram series into its slot (on any
 * thread: it reads the grouping and writes only the slot). */
static void fit_item(void *ctx, size_t i)
{
    fit_pass *p = ctx;
    const ms_fitter *f = p->g->f;
    const histos *h = &p->g->hist[i / p->g->ngroups];
    size_t group = i % p->g->ngroups, nruns = f->runs->n;
    const bin_rec *recs = h->recs + h->first[group];
    size_t nrecs = h->first[group + 1] - h->first[group];
    group_slot *slot = &p->slots[i];
    rd_series_point *pts = calloc(nruns + 1, sizeof *pts);
    rd_binrec *bins = malloc((nrecs + 1) * sizeof *bins);
    slot->status = SLOT_NO_MEMORY;
    if (pts && bins) {
        size_t k = 0;
        for (size_t r = 0; r < nruns; r++) {
            pts[r] = (rd_series_point){.x = f->runs->x + r * (size_t)f->runs->nparams,
                                       .cold = (uint64_t)h->cold[group * nruns + r],
                                       .bins = bins + k};
            for (; k < nrecs && recs[k].run == r; k++)
                bins[k] = recs[k].bin, pts[r].nbins++;
        }
        char why[512];
        enclosing e;
        loops_around(p, group, &e);
        model_options o = f->mo;
        o.evidenced_growth = data_dependent(p, group);
        if (rd_model_fit(pts, nruns, f->runs->nparams, &o, &slot->m, why, sizeof why) == 0) {
            slot->status = SLOT_FITTED;
            compose_touches(f, &e, pts, &slot->m.touches);
            slot->walked = fit_walk(p->g, h, p->locs + p->first[group], p->first[group + 1] - p->first[group],
                                    &slot->stride, &slot->run);
        }
        else if ((slot->why = strdup(why)))
            slot->status = SLOT_UNMODELABLE;
        free(e.buf);
    }
    free(pts), free(bins);
}

/* On a terminal, "reuse groups: DONE of TOTAL" in place, about every 0.5%
 * and at the end (then a new line). */
static void show_count(const ms_fitter *f, size_t done, size_t total)
{
    if (!f->opts->progress || !f->opts->progress_counts)
        return;
    size_t step = total / 200 + 1;
    if (done % step && done != total)
        return;
    fprintf(f->opts->progress, "\raugur model: reuse groups: %zu of %zu%s", done, total, done == total ? "\n" : "");
    fflush(f->opts->progress);
}

/* par_take_fn: store item i's model (on the calling thread, in order). */
static int store_item(void *ctx, size_t i)
{
    fit_pass *p = ctx;
    ms_fitter *f = p->g->f;
    const histos *h = &p->g->hist[i / p->g->ngroups];
    size_t group = i % p->g->ngroups;
    group_slot *slot = &p->slots[i];
    const size_t *locs = p->locs + p->first[group];
    size_t nlocs = p->first[group + 1] - p->first[group];
    int rc = 0;
    if (slot->status == SLOT_NO_MEMORY) {
        snprintf(f->err, f->errlen, "out of memory");
        rc = -1;
    } else if (slot->status == SLOT_UNMODELABLE)
        rc = ms_fail_group(f, h->block_size, locs, nlocs, slot->why);
    else {
        db_rd_group_spec spec = {.block_size = h->block_size, .module = f->series->module[locs[0]],
                                 .nmembers = nlocs, .m = &slot->m};
        char *strides = strides_of(f, p->keys, p->nkeys, locs[0], &spec.loop);
        db_rd_member *members = members_of(p->g, h, locs, nlocs);
        if (slot->walked)
            spec.stride = &slot->stride, spec.run = &slot->run;
        spec.strides = strides;
        spec.members = members;
        rc = members ? db_rd_group_put(f->w, &spec, f->err, f->errlen)
                     : (snprintf(f->err, f->errlen, "out of memory"), -1);
        free(strides), free(members);
        f->models++;
    }
    rd_model_free(&slot->m);
    free(slot->why);
    slot->why = NULL;
    show_count(f, i + 1, p->nitems);
    return rc;
}

/* Members of every group: locations ordered by group. */
static size_t *members_by_group(const grouping *g, size_t **first)
{
    const ms_series *s = g->f->series;
    size_t *count = calloc(g->ngroups + 1, sizeof *count), *locs = malloc((s->nlocs + 1) * sizeof *locs);
    if (!count || !locs) {
        free(count), free(locs);
        return NULL;
    }
    for (size_t i = 0; i < s->nlocs; i++)
        if (g->group_of[i] != NO_GROUP)
            count[g->group_of[i] + 1]++;
    for (size_t k = 0; k < g->ngroups; k++)
        count[k + 1] += count[k];
    size_t *next = malloc((g->ngroups + 1) * sizeof *next);
    if (!next) {
        free(count), free(locs);
        return NULL;
    }
    memcpy(next, count, (g->ngroups + 1) * sizeof *next);
    for (size_t i = 0; i < s->nlocs; i++)
        if (g->group_of[i] != NO_GROUP)
            locs[next[g->group_of[i]]++] = i;
    free(next);
    *first = count;
    return locs;
}

/* Fit every block size's groups and store them in order (file header). */
static int fit_all(grouping *g, const db_memory_key *keys, size_t nkeys)
{
    fit_pass p = {.g = g, .keys = keys, .nkeys = nkeys, .nitems = g->ngroups * (size_t)g->f->runs->nblock_sizes};
    p.locs = members_by_group(g, &p.first);
    p.slots = calloc(p.nitems + 1, sizeof *p.slots);
    int rc = -1;
    if (!p.locs || !p.slots)
        snprintf(g->f->err, g->f->errlen, "out of memory");
    else
        rc = par_ordered(p.nitems, g->f->opts->jobs, fit_item, store_item, &p);
    for (size_t i = 0; p.slots && i < p.nitems; i++) { /* the items not stored when it stopped */
        rd_model_free(&p.slots[i].m);
        free(p.slots[i].why);
    }
    free(p.first), free(p.locs), free(p.slots);
    return rc;
}

int ms_fit_groups(ms_fitter *f, size_t *ngroups)
{
    grouping g = {.f = f};
    db_memory_key *keys = NULL;
    size_t nkeys = 0;
    int nb = f->runs->nblock_sizes, rc = 0;
    *ngroups = 0;
    if (nb == 0)
        return 0;
    if (f->program)
        rc = db_memory_keys(f->d, f->program->binary.id, &keys, &nkeys, f->err, f->errlen);
    g.hist = calloc((size_t)nb + 1, sizeof *g.hist);
    if (rc == 0 && (!g.hist || form_groups(&g, keys, nkeys) != 0)) {
        snprintf(f->err, f->errlen, "out of memory");
        rc = -1;
    }
    for (int b = 0; rc == 0 && b < nb; b++) {
        g.hist[b].block_size = f->runs->block_sizes[b];
        if (f->opts->progress)
            fprintf(f->opts->progress, "augur model: reading the reuse distances of %zu groups at %u-byte blocks\n",
                    g.ngroups, g.hist[b].block_size);
        rc = read_histograms(&g, &g.hist[b]);
    }
    if (rc == 0)
        rc = read_strides(&g);
    if (rc == 0 && f->opts->progress)
        fprintf(f->opts->progress, "augur model: fitting reuse-distance models of %zu groups at %d block size%s\n",
                g.ngroups, nb, nb == 1 ? "" : "s");
    if (rc == 0 && f->program && f->scope_runs && !(g.inexact = ms_loops_inexact(f)) && f->runs->nparams == 1) {
        snprintf(f->err, f->errlen, "out of memory");
        rc = -1;
    }
    if (rc == 0)
        rc = fit_all(&g, keys, nkeys);
    *ngroups = g.ngroups * (size_t)nb;
    db_memory_keys_free(keys, nkeys);
    for (int b = 0; g.hist && b < nb; b++)
        free(g.hist[b].cold), free(g.hist[b].loc_touches), free(g.hist[b].recs), free(g.hist[b].first);
    free(g.group_of), free(g.hist), free(g.loc_stride), free(g.inexact);
    return rc;
}

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
 * (all processes).  rd_model_fit models the series; each member gets its
 * share of the group's touches in the run with the most touches, by which
 * `augur predict` attributes the group's misses to lines and functions. */
#define _GNU_SOURCE /* asprintf */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modelset/modelset.h"
#include "util/array.h"

#define NO_GROUP SIZE_MAX

/* One bin of one group in one run. */
typedef struct bin_rec {
    size_t group;
    uint32_t run;
    rd_binrec bin;
} bin_rec;

typedef struct grouping {
    ms_fitter *f;
    size_t ngroups;
    size_t *group_of;   /* per location, NO_GROUP when it touched no memory */
    double *cold;       /* [group * nruns + r] */
    double *loc_touches; /* [loc * nruns + r] */
    bin_rec *recs;
    size_t nrecs, cap;
    uint32_t run;       /* the run being read */
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

/* The group key of location `loc`: "loop|strides" when it is in the
 * program and every stride is a constant; "lib module function" in another
 * module; NULL (alone) otherwise.  keys are ascending addr. */
static char *group_key(const ms_fitter *f, const db_memory_key *keys, size_t nkeys, size_t loc)
{
    const ms_loc *l = &f->series->locs[loc];
    char *key;
    if (l->module_id != f->runs->program_module)
        return asprintf(&key, "lib %lld %lld", (long long)l->module_id, (long long)l->function_id) < 0 ? NULL : key;
    size_t lo = 0, hi = nkeys;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (keys[mid].addr < l->addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == nkeys || keys[lo].addr != l->addr || keys[lo].loop < 0 || strstr(keys[lo].strides, "null"))
        return NULL;
    return asprintf(&key, "%lld|%s", (long long)keys[lo].loop, keys[lo].strides) < 0 ? NULL : key;
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
    const ms_series *s = g->f->series;
    size_t nruns = s->runs->n;
    size_t i = db_instr_find(s->run_ins[g->run], s->run_nins[g->run], instr_id);
    if (i == s->run_nins[g->run])
        return 0;
    size_t loc = s->run_loc[g->run][i], group = g->group_of[loc];
    if (group == NO_GROUP)
        return 0;
    g->cold[group * nruns + g->run] += (double)cold;
    double touches = (double)cold;
    for (size_t b = 0; b < nbins; b++) {
        bin_rec *grown = array_grow(g->recs, g->nrecs, &g->cap, sizeof *g->recs);
        if (!grown)
            return -1;
        g->recs = grown;
        g->recs[g->nrecs++] = (bin_rec){.group = group, .run = g->run, .bin = bins[b]};
        touches += (double)bins[b].count;
    }
    g->loc_touches[loc * nruns + g->run] += touches;
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

/* Sort the records and add up equal (group, run, bin) ones. */
static void combine(grouping *g)
{
    qsort(g->recs, g->nrecs, sizeof *g->recs, by_group_run_bin);
    size_t n = 0;
    for (size_t i = 0; i < g->nrecs; i++) {
        bin_rec *last = n ? &g->recs[n - 1] : NULL;
        if (last && last->group == g->recs[i].group && last->run == g->recs[i].run &&
            last->bin.bin == g->recs[i].bin.bin) {
            last->bin.count += g->recs[i].bin.count;
            last->bin.sum += g->recs[i].bin.sum;
        } else
            g->recs[n++] = g->recs[i];
    }
    g->nrecs = n;
}

static int read_histograms(grouping *g, uint32_t block_size)
{
    ms_fitter *f = g->f;
    size_t nruns = f->runs->n;
    g->cold = calloc(g->ngroups * nruns + 1, sizeof *g->cold);
    g->loc_touches = calloc(f->series->nlocs * nruns + 1, sizeof *g->loc_touches);
    if (!g->cold || !g->loc_touches)
        return snprintf(f->err, f->errlen, "out of memory"), -1;
    for (g->run = 0; g->run < nruns; g->run++) {
        int rc = db_for_each_histogram(f->d, f->runs->ids[g->run], block_size, on_histogram, g, f->err, f->errlen);
        if (rc != 0)
            return rc > 0 ? (snprintf(f->err, f->errlen, "out of memory"), -1) : -1;
    }
    combine(g);
    return 0;
}

/* ---- fitting and storing ----------------------------------------------------------- */

/* The members of a group with their shares of its touches in the run
 * where the group touched most. */
static db_rd_member *members_of(const grouping *g, const size_t *locs, size_t n)
{
    const ms_series *s = g->f->series;
    size_t nruns = s->runs->n, best = 0;
    double most = -1;
    for (size_t r = 0; r < nruns; r++) {
        double t = 0;
        for (size_t i = 0; i < n; i++)
            t += g->loc_touches[locs[i] * nruns + r];
        if (t > most)
            most = t, best = r;
    }
    db_rd_member *m = calloc(n + 1, sizeof *m);
    for (size_t i = 0; m && i < n; i++) {
        const ms_loc *l = &s->locs[locs[i]];
        double t = g->loc_touches[locs[i] * nruns + best];
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

typedef struct group_fit {
    const db_memory_key *keys;
    size_t nkeys;
    uint32_t block_size;
    size_t *locs; /* members of the group being fitted */
    size_t nlocs;
} group_fit;

static int fit_group(grouping *g, group_fit *gf, size_t group, const bin_rec *recs, size_t nrecs)
{
    ms_fitter *f = g->f;
    size_t nruns = f->runs->n;
    rd_series_point *pts = calloc(nruns + 1, sizeof *pts);
    rd_binrec *bins = malloc((nrecs + 1) * sizeof *bins);
    if (!pts || !bins) {
        free(pts), free(bins);
        return snprintf(f->err, f->errlen, "out of memory"), -1;
    }
    size_t i = 0;
    for (size_t r = 0; r < nruns; r++) {
        pts[r] = (rd_series_point){.x = f->runs->x + r * (size_t)f->runs->nparams,
                                   .cold = (uint64_t)g->cold[group * nruns + r],
                                   .bins = bins + i};
        for (; i < nrecs && recs[i].run == r; i++)
            bins[i] = recs[i].bin, pts[r].nbins++;
    }
    rd_model m;
    char why[512];
    int rc = 0;
    if (rd_model_fit(pts, nruns, f->runs->nparams, &f->mo, &m, why, sizeof why) != 0)
        rc = ms_fail_group(f, gf->block_size, gf->locs, gf->nlocs, why);
    else {
        int64_t loop;
        char *strides = strides_of(f, gf->keys, gf->nkeys, gf->locs[0], &loop);
        db_rd_member *members = members_of(g, gf->locs, gf->nlocs);
        rc = members ? db_rd_group_put(f->w, gf->block_size, f->series->module[gf->locs[0]], loop, strides, members,
                                       gf->nlocs, &m, f->err, f->errlen)
                     : (snprintf(f->err, f->errlen, "out of memory"), -1);
        free(strides), free(members);
        f->models++;
    }
    rd_model_free(&m);
    free(pts), free(bins);
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

static int fit_all(grouping *g, group_fit *gf)
{
    size_t *first = NULL, *locs = members_by_group(g, &first);
    if (!locs)
        return snprintf(g->f->err, g->f->errlen, "out of memory"), -1;
    int rc = 0;
    size_t r = 0;
    for (size_t group = 0; rc == 0 && group < g->ngroups; group++) {
        size_t begin = r;
        while (r < g->nrecs && g->recs[r].group == group)
            r++;
        gf->locs = locs + first[group];
        gf->nlocs = first[group + 1] - first[group];
        rc = fit_group(g, gf, group, g->recs + begin, r - begin);
    }
    free(first), free(locs);
    return rc;
}

int ms_fit_groups(ms_fitter *f, uint32_t block_size, size_t *ngroups)
{
    grouping g = {.f = f};
    db_memory_key *keys = NULL;
    size_t nkeys = 0;
    int rc = 0;
    if (f->opts->program)
        rc = db_memory_keys(f->d, f->opts->program->binary.id, &keys, &nkeys, f->err, f->errlen);
    if (rc == 0 && form_groups(&g, keys, nkeys) != 0) {
        snprintf(f->err, f->errlen, "out of memory");
        rc = -1;
    }
    if (rc == 0 && f->opts->progress)
        fprintf(f->opts->progress, "augur model: fitting reuse-distance models of %zu groups at %u-byte blocks\n",
                g.ngroups, block_size);
    if (rc == 0)
        rc = read_histograms(&g, block_size);
    group_fit gf = {.keys = keys, .nkeys = nkeys, .block_size = block_size};
    if (rc == 0)
        rc = fit_all(&g, &gf);
    *ngroups = g.ngroups;
    db_memory_keys_free(keys, nkeys);
    free(g.group_of), free(g.cold), free(g.loc_touches), free(g.recs);
    return rc;
}

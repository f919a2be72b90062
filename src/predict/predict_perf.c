/* predict_perf.c — `augur predict --machine`: the machine models over a
 * prediction.  Each reuse-distance group's modeled histogram, at the
 * machine's line size and at its TLBs' page sizes, gives misses per level
 * (cache_model.c); they are shared among the group's members by their
 * share of its touches and added to their functions, and to loops: the
 * group's innermost loop, or for a group of one instruction outside the
 * constant-stride groups, the loop that instruction lies in.  Each loop
 * scope is timed from its body on the core (core_model.c), its iterations
 * and its memory time; functions and the program are the sums
 * (docs/performance-model.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "binary/buildid.h"
#include "predict/predict_internal.h"
#include "predict/predict_pages.h"
#include "predict/predict_perf.h"
#include "predict/predict_perf_body.h"
#include "predict/predict_pow2.h"
#include "predict/predict_sets.h"

static int fail(char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "%s", what);
    return -1;
}

/* ---- checks and setup ---------------------------------------------------------- */

static int measured(const db_model_set *s, uint64_t block)
{
    for (int b = 0; b < s->nblock_sizes; b++)
        if (s->block_sizes[b] == block)
            return 1;
    return 0;
}

/* Every cache level's line must be a measured block size; TLBs of page
 * sizes that were not measured are left out (their misses are unknown). */
static int setup_levels(const prediction *p, const machine *m, predict_perf *pp, char *err, size_t errlen)
{
    pp->nlevels = perf_cache_levels(m, pp->levels);
    for (size_t i = 0; i < pp->nlevels; i++)
        if (!measured(&p->set, pp->levels[i].block)) {
            snprintf(err, errlen,
                     "%s: the models have no reuse distances for the %u-byte lines of its %s: collect the runs "
                     "with --block-sizes %u,4096",
                     m->name, pp->levels[i].block, pp->levels[i].name, pp->levels[i].block);
            return -1;
        }
    perf_level all[MACHINE_MAX_TLBS];
    size_t n = perf_tlb_levels(m, all);
    for (size_t j = 0; j < n; j++)
        if (measured(&p->set, all[j].block))
            pp->tlbs[pp->ntlbs++] = all[j];
    return 0;
}

/* The program's structure, analysed as `augur model` stored it (the same
 * indirect-jump targets), so scope ids agree with the models'. */
static int analyse_program(db *d, const char *path, st_module **out, char *err, size_t errlen)
{
    char build_id[BUILD_ID_HEX_MAX];
    elf_build_id(path, build_id, sizeof build_id);
    st_jump_target *seen;
    size_t nseen;
    if (db_indirect_targets(d, build_id, &seen, &nseen, err, errlen) != 0)
        return -1;
    st_options opt = {.extra = seen, .nextra = nseen};
    int rc = st_analyse(path, &opt, out, err, errlen);
    free(seen);
    return rc;
}

static int setup_loops(const prediction *p, predict_perf *pp)
{
    pp->loops = calloc(p->nscopes + 1, sizeof *pp->loops);
    if (!pp->loops)
        return -1;
    for (size_t i = 0; i < p->nscopes; i++)
        if (p->scopes[i].kind && !strcmp(p->scopes[i].kind, "loop"))
            pp->loops[pp->nloops++] = (predict_loop){.scope = p->scopes[i].scope, .s = &p->scopes[i]};
    return 0;
}

/* ---- lookups ------------------------------------------------------------------------ */

static predict_loop *loop_of_scope(predict_perf *pp, int64_t scope)
{
    size_t lo = 0, hi = pp->nloops;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (pp->loops[mid].scope < scope)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < pp->nloops && pp->loops[lo].scope == scope ? &pp->loops[lo] : NULL;
}

/* The innermost loop scope holding the program's instruction at addr, or -1. */
static int64_t loop_scope_at(const st_module *mod, uint64_t addr)
{
    size_t fi;
    uint32_t ii;
    if (st_module_find_insn(mod, addr, &fi, &ii) != 0 || !mod->places)
        return -1;
    for (int64_t s = mod->places[fi][ii].scope; s > 0; s = mod->scopes[s].parent)
        if (mod->scopes[s].kind == ST_SCOPE_LOOP)
            return s;
    return -1;
}

/* Does the address of the program's instruction at addr depend on loaded
 * data (an opaque term: x[col[j]], p->next)?  Such addresses fall on the
 * cache sets at random; affine ones (registers times constants) sweep
 * contiguous or strided ranges, which spread evenly over the sets and
 * which hardware prefetchers follow. */
static int data_dependent_at(const st_module *mod, uint64_t addr)
{
    size_t fi;
    uint32_t ii;
    if (st_module_find_insn(mod, addr, &fi, &ii) != 0)
        return 0;
    const st_dataflow *df = &mod->dataflow[fi];
    for (size_t k = 0; k < df->naddrs; k++) {
        const st_addr *a = &df->addrs[k];
        if (a->insn != ii)
            continue;
        if (!a->complete)
            return 1;
        for (uint8_t t = 0; t < a->nterms; t++)
            if (a->terms[t].kind == ST_TERM_OPAQUE)
                return 1;
    }
    return 0;
}

/* The report's function (name, module), or NULL. */
static predict_function_perf *function_of(const prediction *p, predict_perf *pp, const char *name,
                                          const char *module)
{
    for (size_t i = 0; i < p->rep.nfunctions; i++) {
        const report_function *f = &p->rep.functions[i];
        if (f->function && name && !strcmp(f->function, name) &&
            (!f->module || !module || !strcmp(f->module, module)))
            return &pp->functions[i];
    }
    return NULL;
}

/* The report's line rows sorted by key (file, line, function), to find a
 * group member's row. */
typedef struct line_index {
    const report_line **sorted;
    size_t n;
} line_index;

static int by_line_row(const void *pa, const void *pb)
{
    return predict_by_line_key(*(const report_line *const *)pa, *(const report_line *const *)pb);
}

static int line_index_make(const report *r, line_index *ix)
{
    ix->n = r->nlines;
    if (!(ix->sorted = malloc((r->nlines + 1) * sizeof *ix->sorted)))
        return -1;
    for (size_t k = 0; k < r->nlines; k++)
        ix->sorted[k] = &r->lines[k];
    qsort(ix->sorted, ix->n, sizeof *ix->sorted, by_line_row);
    return 0;
}

/* The index in r->lines of the row of (file, line, function), or -1. */
static ptrdiff_t line_row(const report *r, const line_index *ix, const char *file, uint32_t line, const char *function)
{
    report_line key = {.file = (char *)file, .line = line, .function = (char *)function}, *pkey = &key;
    const report_line **hit = bsearch(&pkey, ix->sorted, ix->n, sizeof *ix->sorted, by_line_row);
    return hit ? *hit - r->lines : -1;
}

/* ---- misses of the groups -------------------------------------------------------------- */

/* Misses of one group at every level of pp whose block is the group's. */
typedef struct group_misses {
    double cache[PERF_MAX_LEVELS], tlb[MACHINE_MAX_TLBS];
    double low[PERF_MAX_LEVELS], high[PERF_MAX_LEVELS]; /* cache[]'s range */
    double page_faults; /* its first touches of 4 KiB pages */
} group_misses;

/* Does a walk (NULL: none) step by less than a block of L?  Then its
 * accesses sweep consecutive blocks even when their addresses depend on
 * loaded data: x[col[j]] of a stencil's sparse matrix, two of three deltas
 * 8 bytes, whose reuses one grid row later lie at 0.9 of an L1's capacity
 * in runs of consecutive lines, the other arrays' and its own, not placed
 * at random (the binomial model missed 44% of them there, Cachegrind
 * none; docs/performance-model.md, "Which accesses get the correction"). */
static int sweeps_lines(const perf_stride *walk, const perf_level *L)
{
    return walk && walk->bytes > 0 && walk->bytes < L->block;
}

/* Misses of level L: the binomial set-associative model for groups whose
 * addresses depend on loaded data (random placement) but sweep no lines
 * (sweeps_lines); for affine ones,
 * the contiguous set-associative model (their footprints are runs of
 * consecutive lines; perf_contiguous_hit), which is the fully-associative
 * cut but between L's capacity and 1 + 1/ways times it, or, for a walk
 * (NULL: none) at a stride that reaches only some of L's sets, the
 * strided model over those sets (perf_strided_hit), or, without a walk,
 * for accesses at power-of-two deltas (share: the group's shares by
 * class, NULL: none known) whose walks span 2^log2_span bytes (negative:
 * none), those walks' (perf_level_misses_pow2; footprint: the program's
 * lines at L's). */
static double level_misses(const perf_rd_dist *d, const perf_level *L, int regular, const perf_stride *walk,
                           const double *share, double log2_span, double footprint)
{
    regular = regular || sweeps_lines(walk, L);
    if (regular && !walk && share && log2_span >= 0)
        return perf_level_misses_pow2(d, L, share, PROFILE_POW2_CLASSES, log2_span, footprint);
    return regular ? perf_level_misses_strided(d, L, walk) : perf_level_misses(d, L);
}

/* The walk of group i of `in` at p's parameters into *out: measured, or
 * its stride and run models' values; NULL when it has none. */
static const perf_stride *group_walk(const prediction *p, const predict_perf_input *in, size_t i, perf_stride *out)
{
    const db_rd_group *g = &in->groups[i];
    if (in->walks)
        *out = in->walks[i];
    else if (g->stride && g->run)
        *out = (perf_stride){fabs(model_eval(g->stride, p->x)), model_eval(g->run, p->x)};
    else
        return NULL;
    return out->bytes > 0 ? out : NULL;
}

/* The range of a group's predicted misses at level L, misses by the
 * level's model: the fully-associative range at L's capacity
 * (rd_model_misses_range), widened to hold misses, and to let the share
 * `narrow` of its touches in d (those at power-of-two deltas that reach
 * only some of L's sets: perf_pow2_narrow_share) miss where they were
 * taken for hits (perf_pow2_conflict_high; footprint: the program's lines
 * at L's line size): their conflicts are not in the distances (an FFT's
 * butterflies: Cachegrind's L1 misses 38% above the model's on the
 * measured distances).  The set-associative
 * models differ from the fully-associative cut where reuses lie near the
 * capacity (contiguous) or at random (binomial), which is where that range
 * is wide already; scaling it by their ratio instead put the low end of a
 * sweep below its cold misses.  A walk (NULL: none) whose runs overfill
 * the sets its stride reaches has their capacity (perf_strided_capacity):
 * the cut at L's would take its misses for hits (an ijk product's column
 * of 224 lines: 11.3 M misses, 1.4 M by the cut). */
static void level_range(const prediction *p, const db_rd_group *g, const perf_level *L, const perf_stride *walk,
                        const perf_rd_dist *d, double footprint, double misses, double narrow, double range[2])
{
    double capacity_lines = walk ? perf_strided_capacity(L, perf_stride_sets(walk->bytes, L->block, L->sets), walk->run)
                                 : L->sets * L->ways;
    uint64_t capacity = (uint64_t)capacity_lines;
    double r[2];
    rd_model_misses_range(g->m, p->x, capacity, predict_reach(p), r);
    range[0] = fmin(misses, r[0]);
    range[1] = fmax(misses, r[1]);
    if (narrow > 0)
        range[1] = fmax(range[1], perf_pow2_conflict_high(d, L, footprint, misses, narrow));
}

/* What counts a group's power-of-two strides and widens its ranges for
 * them (level_misses, level_range): its shares by 2-adic class of its
 * deltas (NULL: none), the program's lines at each block size of pp's
 * levels, and, for a prediction, the parameters of the training run with
 * the most lines and its lines (NULL: a measured run). */
typedef struct pow2_widening {
    const double *share;
    const double *footprint; /* [level] */
    const double *train_x, *train_footprint;
} pow2_widening;

/* log2 of the bytes the walks of group g span (perf_pow2_span) at the
 * parameters predicted at, -1 for none, -2 when memory runs out: from the
 * measured distribution `dist`, or, predicted, at the training run of w,
 * scaled by the program's lines from there (a butterfly stage spans its
 * array, which grows with them; the classes, from smaller runs, lack the
 * target's largest strides and would put the span too low). */
static double group_span(const predict_perf *pp, const db_rd_group *g, const perf_rd_dist *dist,
                         const pow2_widening *w)
{
    if (dist)
        return perf_pow2_span(dist, w->share, PROFILE_POW2_FIRST, PROFILE_POW2_CLASSES);
    size_t i = 0;
    while (i < pp->nlevels && pp->levels[i].block != g->block_size)
        i++;
    perf_rd_dist at = {0};
    if (!w->train_x || i == pp->nlevels || w->train_footprint[i] <= 0 || w->footprint[i] <= 0)
        return -1;
    if (perf_rd_dist_modeled(g->m, w->train_x, &at) != 0)
        return -2;
    double span = perf_pow2_span(&at, w->share, PROFILE_POW2_FIRST, PROFILE_POW2_CLASSES);
    perf_rd_dist_free(&at);
    return span < 0 ? -1 : fmax(span + log2(w->footprint[i] / w->train_footprint[i]), 0);
}

/* Misses of group g at every level of pp whose block is g's, from its
 * distribution: the measured one when `dist` is given (a range of the
 * one value), else g's model at p's parameters, bounded by its line twin's
 * (NULL: none) when g is of pages (predict_page_dist); walk as
 * level_misses'; w widens the range of a regular group (level_range).  A
 * measured group's misses at a level whose set count its set-local
 * histograms have (sets, recording set_ways ways; NULL: none) are theirs,
 * exactly (predict_sets_misses). */
static int group_eval(const prediction *p, const predict_perf *pp, const db_rd_group *g, const db_rd_group *twin,
                      const perf_rd_dist *dist, int regular, const perf_stride *walk, const pow2_widening *w,
                      const predict_sets *sets, uint32_t set_ways, group_misses *out)
{
    memset(out, 0, sizeof *out);
    perf_rd_dist modeled = {0};
    if (!dist && (twin ? predict_page_dist(g, twin, p->x, w->train_x, predict_reach(p), &modeled)
                       : perf_rd_dist_modeled(g->m, p->x, &modeled)) != 0)
        return -1;
    const perf_rd_dist *d = dist ? dist : &modeled;
    double span = regular && !walk && w->share ? group_span(pp, g, dist, w) : -1;
    if (span == -2) {
        perf_rd_dist_free(&modeled);
        return -1;
    }
    for (size_t i = 0; i < pp->nlevels; i++)
        if (pp->levels[i].block == g->block_size) {
            double exact;
            if (dist && predict_sets_misses(sets, set_ways, &pp->levels[i], &exact)) {
                out->cache[i] = out->low[i] = out->high[i] = exact;
                continue;
            }
            out->cache[i] = out->low[i] = out->high[i] =
                level_misses(d, &pp->levels[i], regular, walk, w->share, span, w->footprint[i]);
            double range[2];
            if (!dist) {
                const perf_level *L = &pp->levels[i];
                double narrow = regular && w->share ? perf_pow2_narrow_share(w->share, PROFILE_POW2_FIRST,
                                                                             PROFILE_POW2_CLASSES, L)
                                                    : 0;
                level_range(p, g, L, walk, d, w->footprint[i], out->cache[i], narrow, range);
                out->low[i] = range[0];
                out->high[i] = range[1];
            }
        }
    for (size_t j = 0; j < pp->ntlbs; j++)
        if (pp->tlbs[j].block == g->block_size)
            out->tlb[j] = level_misses(d, &pp->tlbs[j], regular, walk, NULL, -1, 0);
    if (g->block_size == PREDICT_PAGE_BYTES)
        out->page_faults = d->cold; /* a page's first touch in the run is the kernel's fault */
    perf_rd_dist_free(&modeled);
    return 0;
}

/* Give t pp's levels: the cache levels and the TLB levels priced, with
 * their miss latencies. */
static void traffic_levels(perf_traffic *t, const predict_perf *pp)
{
    t->nlevels = pp->nlevels;
    t->ntlbs = pp->ntlbs;
    for (size_t j = 0; j < pp->ntlbs; j++) {
        t->tlb_latency[j] = pp->tlbs[j].miss_latency;
        t->tlb_walk[j] = pp->tlbs[j].tlb_level >= 2;
    }
}

/* The index in pp->tlbs of the first-level TLB of 4 KiB pages (the
 * smallest of them), or -1. */
static int first_page_tlb(const predict_perf *pp)
{
    int best = -1;
    for (size_t j = 0; j < pp->ntlbs; j++)
        if (pp->tlbs[j].block == PREDICT_PAGE_BYTES &&
            (best < 0 || pp->tlbs[j].sets * pp->tlbs[j].ways < pp->tlbs[best].sets * pp->tlbs[best].ways))
            best = (int)j;
    return best;
}

/* Add share * gm to a loop's traffic; streamed (prefetched) when the
 * group is affine (group_regular), dirty when it stores (group_stores).
 * A stream's first-level page misses are the pages it enters anew. */
static void add_traffic(perf_traffic *t, const predict_perf *pp, const group_misses *gm, double share,
                        int streamed, int dirty, int store_only)
{
    traffic_levels(t, pp);
    int page = first_page_tlb(pp);
    if (streamed && page >= 0)
        t->stream_pages += share * gm->tlb[page];
    for (size_t i = 0; i < pp->nlevels; i++) {
        t->misses[i] += share * gm->cache[i];
        if (streamed)
            t->stream_misses[i] += share * gm->cache[i];
        if (dirty)
            t->dirty_misses[i] += share * gm->cache[i];
        if (store_only)
            t->store_misses[i] += share * gm->cache[i];
    }
    for (size_t j = 0; j < pp->ntlbs; j++)
        t->tlb_misses[j] += share * gm->tlb[j];
    t->page_faults += share * gm->page_faults;
}

/* Is g of the program's code? */
static int in_program(const prediction *p, const db_rd_group *g)
{
    return g->module && p->set.program && !strcmp(g->module, p->set.program);
}

/* A group of affine accesses: a loop's constant-stride group, library
 * code (not analysed; mostly copies, fills and tables), or program
 * instructions whose addresses do not depend on loaded data. */
static int group_regular(const prediction *p, const st_module *mod, const db_rd_group *g)
{
    if (g->loop >= 0 || !in_program(p, g))
        return 1;
    for (size_t k = 0; k < g->nmembers; k++)
        if (data_dependent_at(mod, g->members[k].addr))
            return 0;
    return 1;
}

/* Does a member of g (of the program) store?  Then the group's lines are
 * dirty when they leave a level.  Library code is not analysed: not dirty. */
static int group_stores(const prediction *p, const st_module *mod, const db_rd_group *g)
{
    if (!in_program(p, g))
        return 0;
    for (size_t k = 0; k < g->nmembers; k++) {
        size_t fi;
        uint32_t ii;
        if (st_module_find_insn(mod, g->members[k].addr, &fi, &ii) == 0 && mod->functions[fi].insns[ii].nstores)
            return 1;
    }
    return 0;
}

/* Does the program's instruction at addr store without loading? */
static int stores_only(const st_module *mod, uint64_t addr)
{
    size_t fi;
    uint32_t ii;
    if (st_module_find_insn(mod, addr, &fi, &ii) != 0)
        return 0;
    const st_insn *in = &mod->functions[fi].insns[ii];
    return in->nstores > 0 && in->nloads == 0;
}

static void attribute_group(const prediction *p, predict_perf *pp, const st_module *mod, const line_index *lines,
                            const db_rd_group *g, int regular, const group_misses *gm)
{
    int mine = in_program(p, g), dirty = group_stores(p, mod, g);
    for (size_t i = 0; i < pp->nlevels; i++) {
        pp->misses[i] += gm->cache[i];
        pp->misses_low[i] += gm->low[i];
        pp->misses_high[i] += gm->high[i];
    }
    for (size_t j = 0; j < pp->ntlbs; j++)
        pp->tlb_misses[j] += gm->tlb[j];
    for (size_t k = 0; k < g->nmembers; k++) {
        const struct db_rd_member_row *mb = &g->members[k];
        predict_function_perf *f = function_of(p, pp, mb->function, g->module);
        ptrdiff_t l = line_row(&p->rep, lines, mb->file, mb->line, mb->function);
        for (size_t i = 0; l >= 0 && i < pp->nlevels; i++)
            pp->line_misses[(size_t)l * PERF_MAX_LEVELS + i] += mb->share * gm->cache[i];
        int64_t scope = !mine ? -1 : g->loop >= 0 ? g->loop : loop_scope_at(mod, mb->addr);
        predict_loop *L = scope >= 0 ? loop_of_scope(pp, scope) : NULL;
        int store_only = mine && stores_only(mod, mb->addr);
        if (L)
            add_traffic(&L->cost.traffic, pp, gm, mb->share, regular, dirty, store_only);
        else if (f)
            add_traffic(&f->rest.traffic, pp, gm, mb->share, 0, dirty, store_only);
        if (f) {
            for (size_t i = 0; i < pp->nlevels; i++) {
                f->misses[i] += mb->share * gm->cache[i];
                f->misses_low[i] += mb->share * gm->low[i];
                f->misses_high[i] += mb->share * gm->high[i];
            }
            for (size_t j = 0; j < pp->ntlbs; j++)
                f->tlb_misses[j] += mb->share * gm->tlb[j];
            f->page_faults += mb->share * gm->page_faults;
            pp->page_faults += mb->share * gm->page_faults; /* the total is what is costed: in functions */
        }
    }
}

/* The program's lines at the block size of each of pp's levels at
 * parameters x: its groups' first touches (measured, or modeled), into
 * footprint[]. */
static void program_footprint(const predict_perf_input *in, const predict_perf *pp, const double *x,
                              double *footprint)
{
    for (size_t i = 0; i < pp->nlevels; i++) {
        footprint[i] = 0;
        size_t same = 0; /* a level above of the same line size has it already */
        while (same < i && pp->levels[same].block != pp->levels[i].block)
            same++;
        if (same < i) {
            footprint[i] = footprint[same];
            continue;
        }
        for (size_t k = 0; k < in->ngroups; k++)
            if (in->groups[k].block_size == pp->levels[i].block)
                footprint[i] += in->dists ? in->dists[k].cold : rd_model_misses(in->groups[k].m, x, UINT64_MAX);
    }
}

/* The training run of a prediction with the most program lines (at its
 * first level's block): its parameters (NULL: none) and its lines at each
 * level's block, for group_span and predict_page_dist. */
typedef struct pow2_training {
    const double *x;
    double lines[PERF_MAX_LEVELS];
} pow2_training;

static void pow2_training_find(const prediction *p, const predict_perf_input *in, const predict_perf *pp,
                               pow2_training *tr)
{
    for (size_t t = 0; t < p->ntrain; t++) {
        double at[PERF_MAX_LEVELS];
        program_footprint(in, pp, &p->train_x[t * p->set.nparams], at);
        if (!tr->x || at[0] > tr->lines[0]) {
            tr->x = &p->train_x[t * p->set.nparams];
            memcpy(tr->lines, at, sizeof at);
        }
    }
}

static int eval_groups(const prediction *p, const predict_perf_input *in, predict_perf *pp, const st_module *mod,
                       char *err, size_t errlen)
{
    line_index lines;
    if (line_index_make(&p->rep, &lines) != 0)
        return fail(err, errlen, "out of memory");
    double footprint[PERF_MAX_LEVELS] = {0};
    pow2_training tr = {0};
    if (in->pow2)
        program_footprint(in, pp, p->x, footprint);
    if (!in->dists)
        pow2_training_find(p, in, pp, &tr);
    ptrdiff_t *twins = predict_page_twins(in->groups, in->ngroups, pp->nlevels ? pp->levels[0].block : 0);
    int rc = twins ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < in->ngroups; i++) {
        group_misses gm;
        const db_rd_group *g = &in->groups[i];
        int regular = group_regular(p, mod, g);
        perf_stride walk;
        pow2_widening w = {in->pow2 ? &in->pow2[i * PROFILE_POW2_CLASSES] : NULL, footprint, tr.x, tr.lines};
        const db_rd_group *twin = twins[i] >= 0 ? &in->groups[twins[i]] : NULL;
        rc = group_eval(p, pp, g, twin, in->dists ? &in->dists[i] : NULL, regular, group_walk(p, in, i, &walk), &w,
                        in->sets ? &in->sets[i] : NULL, in->set_table ? in->set_table->ways : 0, &gm);
        if (rc == 0)
            attribute_group(p, pp, mod, &lines, g, regular, &gm);
    }
    free(twins);
    free(lines.sorted);
    return rc == 0 ? 0 : fail(err, errlen, "out of memory");
}

/* ---- time ------------------------------------------------------------------------------- */

/* The loop L nests in directly (its nearest enclosing loop scope), or NULL. */
static predict_loop *enclosing_loop(predict_perf *pp, const st_module *mod, const predict_loop *L)
{
    int64_t s = mod->scopes[L->scope].parent;
    while (s > 0 && mod->scopes[s].kind != ST_SCOPE_LOOP)
        s = mod->scopes[s].parent;
    return s > 0 ? loop_of_scope(pp, s) : NULL;
}

/* A loop's instructions without those of the loops directly inside it. */
static void exclusive_instructions(predict_perf *pp, const st_module *mod)
{
    for (size_t i = 0; i < pp->nloops; i++)
        pp->loops[i].instructions = pp->loops[i].s->instructions;
    for (size_t i = 0; i < pp->nloops; i++) {
        predict_loop *outer = enclosing_loop(pp, mod, &pp->loops[i]);
        if (outer)
            outer->instructions -= pp->loops[i].s->instructions;
    }
}

/* L's header executions per header execution of the loop of its function
 * that it nests in directly (the core model's parent_span), 0 when that
 * loop is not L's enclosing loop scope (folded loops, an inlined body) or
 * did not run. */
static double parent_span(predict_perf *pp, const st_module *mod, const predict_loop *L)
{
    const st_scope *sc = &mod->scopes[L->scope];
    const predict_loop *outer = enclosing_loop(pp, mod, L);
    if (!outer || mod->scopes[outer->scope].function != sc->function ||
        mod->scopes[outer->scope].loop != mod->functions[sc->function].loops[sc->loop].parent ||
        !(outer->s->headers > 0))
        return 0;
    return L->s->headers / outer->s->headers;
}

/* L's core cycles per iteration (L->cost.core) and its branch
 * mispredictions (L->mispredicts, their cycles to *mispredict_cycles),
 * from its body at the predicted weights.  0, or -1 with a message. */
static int time_body(const machine *m, const st_module *mod, const predict_blocks *bl, predict_loop *L, double span,
                     double *mispredict_cycles, char *err, size_t errlen)
{
    const st_scope *sc = &mod->scopes[L->scope];
    const st_function *f = &mod->functions[sc->function];
    double *w = malloc((f->ninsns + 1) * sizeof *w), *ready = malloc((f->ninsns + 1) * sizeof *ready);
    uint8_t *through = malloc(f->ninsns + 1);
    if (!w || !ready || !through) {
        free(w);
        free(ready);
        free(through);
        return fail(err, errlen, "out of memory");
    }
    predict_body_weights(bl, f, mod->loop_scopes[sc->function], (uint32_t)L->scope, L->s->headers, w);
    perf_body body = {f, &mod->dataflow[sc->function], sc->loop, w, span};
    int rc = perf_core_loop(m, &body, &L->cost.core, err, errlen);
    if (rc == 0 && (perf_resolution_times(m, &body, ready) != 0 ||
                    perf_saturated_paths(m, &body, &L->cost.core, through) != 0))
        rc = fail(err, errlen, "out of memory");
    predict_branch_timing t = {ready, through, &L->cost.core, L->s->headers};
    if (rc == 0)
        L->mispredicts = predict_loop_mispredicts(bl, f, &mod->dataflow[sc->function], mod->loop_scopes[sc->function],
                                                  (uint32_t)L->scope, m, &t, mispredict_cycles);
    free(through);
    free(ready);
    free(w);
    return rc;
}

static int time_loop(const machine *m, const st_module *mod, const predict_blocks *bl, predict_loop *L, double span,
                     char *err, size_t errlen)
{
    const st_scope *sc = &mod->scopes[L->scope];
    const st_function *f = &mod->functions[sc->function];
    L->function = f->name;
    double headers = L->s->headers, mispredict_cycles = 0;
    if (headers > 0 && time_body(m, mod, bl, L, span, &mispredict_cycles, err, errlen) != 0)
        return -1;
    L->cost.traffic.dependent = predict_loop_chases(f, &mod->dataflow[sc->function], sc->loop);
    L->cost.traffic.instructions = L->instructions;
    perf_mem_time(m, &L->cost.traffic, &L->cost.mem);
    perf_loop_combine(m, headers, &L->cost.core, &L->cost.mem, &L->cost.time);
    perf_loop_add_penalties(m, perf_fault_cycles(m, L->cost.traffic.page_faults), mispredict_cycles,
                            &L->cost.time);
    return 0;
}

/* Code outside the program's loops: its instructions at the issue width,
 * overlapped with the memory time of its misses. */
static void time_rest(const machine *m, const predict_perf *pp, double instructions, predict_cost *c)
{
    traffic_levels(&c->traffic, pp);
    c->core = (perf_core){.uops = 1, .issue = 1.0 / m->issue_width, .cycles = 1.0 / m->issue_width,
                          .bound = PERF_BOUND_ISSUE};
    perf_mem_time(m, &c->traffic, &c->mem);
    perf_loop_combine(m, instructions > 0 ? instructions : 0, &c->core, &c->mem, &c->time);
    perf_loop_add_penalties(m, perf_fault_cycles(m, c->traffic.page_faults), 0, &c->time);
}

/* Functions: their loops plus the rest; the program: the functions. */
static void sum_times(const prediction *p, predict_perf *pp)
{
    double *worst = calloc(p->rep.nfunctions + 1, sizeof *worst);
    for (size_t i = 0; i < pp->nloops; i++) {
        const predict_loop *L = &pp->loops[i];
        predict_function_perf *f = function_of(p, pp, L->function, p->set.program);
        if (!f)
            continue;
        f->loop_instructions += L->instructions;
        f->cycles += L->cost.time.cycles;
        f->fault_cycles += L->cost.time.fault_cycles;
        f->mispredicts += L->mispredicts;
        f->mispredict_cycles += L->cost.time.mispredict_cycles;
        size_t k = (size_t)(f - pp->functions);
        if (worst && L->cost.time.cycles > worst[k]) {
            worst[k] = L->cost.time.cycles;
            f->bound = L->cost.time.bound;
        }
    }
    pp->cycles = 0;
    for (size_t k = 0; k < p->rep.nfunctions; k++) {
        predict_function_perf *f = &pp->functions[k];
        time_rest(pp->m, pp, (double)p->rep.functions[k].c.instructions - f->loop_instructions, &f->rest);
        f->cycles += f->rest.time.cycles;
        f->fault_cycles += f->rest.time.fault_cycles;
        pp->fault_cycles += f->fault_cycles;
        pp->mispredicts += f->mispredicts;
        pp->mispredict_cycles += f->mispredict_cycles;
        if (!worst || f->rest.time.cycles > worst[k])
            f->bound = f->rest.time.bound;
        f->seconds = f->cycles / (pp->m->clock_ghz * 1e9);
        pp->cycles += f->cycles;
    }
    pp->seconds = pp->cycles / (pp->m->clock_ghz * 1e9);
    free(worst);
}

/* ---- the whole ---------------------------------------------------------------------------- */

int predict_perf_evaluate(db *d, const prediction *p, const machine *m, const predict_perf_input *in,
                          predict_perf *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->m = m;
    out->ranged = in->dists == NULL;
    if (setup_levels(p, m, out, err, errlen) != 0)
        return -1;
    st_module *mod = NULL;
    if (analyse_program(d, p->set.program, &mod, err, errlen) != 0)
        return -1;
    out->structure = mod;
    out->functions = calloc(p->rep.nfunctions + 1, sizeof *out->functions);
    out->line_misses = calloc((p->rep.nlines + 1) * PERF_MAX_LEVELS, sizeof *out->line_misses);
    if (!out->functions || !out->line_misses || setup_loops(p, out) != 0)
        return fail(err, errlen, "out of memory");
    for (size_t i = 0; i < out->nloops; i++)
        if ((size_t)out->loops[i].scope >= mod->nscopes || mod->scopes[out->loops[i].scope].kind != ST_SCOPE_LOOP) {
            snprintf(err, errlen,
                     "%s: its structure now differs from the one the models were fitted with (scope %lld): "
                     "run augur model again",
                     p->set.program, (long long)out->loops[i].scope);
            return -1;
        }
    if (eval_groups(p, in, out, mod, err, errlen) != 0)
        return -1;
    exclusive_instructions(out, mod);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < out->nloops; i++)
        rc = time_loop(m, mod, in->blocks, &out->loops[i], parent_span(out, mod, &out->loops[i]), err, errlen);
    if (rc == 0)
        sum_times(p, out);
    return rc;
}

int predict_perf_eval(db *d, const prediction *p, const machine *m, predict_perf *out, char *err, size_t errlen)
{
    predict_perf_input in = {0};
    int rc = db_rd_groups_load(d, &p->set, &in.groups, &in.ngroups, err, errlen);
    if (rc == 0)
        rc = predict_check_groups(p, in.groups, in.ngroups, err, errlen);
    if (rc == 0)
        rc = predict_pow2_shares(d, p->set.program, p->train_runs, p->ntrain, in.groups, in.ngroups, &in.pow2, err,
                                 errlen);
    if (rc == 0 && predict_blocks_load(p, p->set.program, &in.blocks) != 0)
        rc = fail(err, errlen, "out of memory");
    if (rc == 0)
        rc = predict_perf_evaluate(d, p, m, &in, out, err, errlen);
    else
        memset(out, 0, sizeof *out);
    predict_blocks_free(in.blocks);
    free(in.pow2);
    db_rd_groups_free(in.groups, in.ngroups);
    return rc;
}

void predict_perf_free(predict_perf *pp)
{
    free(pp->loops);
    free(pp->functions);
    free(pp->line_misses);
    if (pp->structure)
        st_module_free(pp->structure);
    memset(pp, 0, sizeof *pp);
}

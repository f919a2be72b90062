/* predict_run.c — a measured run as the machine models' input: every
 * instruction histogram of the run is a reuse-distance group of one member
 * with its measured distribution (perf_rd_dist_measured) and its measured
 * stride (when one delta is at least half of its deltas) or, without one,
 * its shares of deltas by power-of-two class (predict_pow2.c), placed in loops
 * and functions as predict_perf places modeled groups; loop iterations and
 * bodies are the run's header and instruction executions
 * (docs/performance-model.md, "Measured runs"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predict/predict_perf_body.h"
#include "predict/predict_pow2.h"
#include "predict/predict_run.h"
#include "predict/predict_sets.h"

static int oom(char *err, size_t errlen)
{
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* The run's instructions with their function, module and file names. */
typedef struct run_insns {
    db_instr *ins;
    size_t n;
    char **function, **module, **file;
} run_insns;

static int insns_load(db *d, const db_run *run, run_insns *r, char *err, size_t errlen)
{
    if (db_run_instructions(d, run->id, &r->ins, &r->n, err, errlen) != 0)
        return -1;
    int64_t *ids = malloc((r->n + 1) * sizeof *ids);
    r->function = calloc(r->n + 1, sizeof *r->function);
    r->module = calloc(r->n + 1, sizeof *r->module);
    r->file = calloc(r->n + 1, sizeof *r->file);
    if (!ids || !r->function || !r->module || !r->file) {
        free(ids);
        return oom(err, errlen);
    }
    for (size_t i = 0; i < r->n; i++)
        ids[i] = r->ins[i].function_id;
    int rc = db_names(d, DB_FUNCTION_NAME, ids, r->n, r->function, err, errlen);
    for (size_t i = 0; i < r->n; i++)
        ids[i] = r->ins[i].module_id;
    if (rc == 0)
        rc = db_names(d, DB_MODULE_PATH, ids, r->n, r->module, err, errlen);
    for (size_t i = 0; i < r->n; i++)
        ids[i] = r->ins[i].file_id;
    if (rc == 0)
        rc = db_names(d, DB_FILE_PATH, ids, r->n, r->file, err, errlen);
    free(ids);
    return rc;
}

static void insns_free(run_insns *r)
{
    for (size_t i = 0; i < r->n; i++) {
        if (r->function)
            free(r->function[i]);
        if (r->module)
            free(r->module[i]);
        if (r->file)
            free(r->file[i]);
    }
    free(r->function);
    free(r->module);
    free(r->file);
    free(r->ins);
}

/* Collects one group per histogram of the block size being read. */
typedef struct group_builder {
    const run_insns *r;
    const db_stride *strides; /* the run's, ascending instruction id */
    size_t nstrides;
    uint32_t block;
    predict_perf_input *in;
    size_t cap;
} group_builder;

static int grow(group_builder *b)
{
    if (b->in->ngroups < b->cap)
        return 0;
    size_t cap = b->cap ? 2 * b->cap : 1024;
    db_rd_group *g = realloc(b->in->groups, cap * sizeof *g);
    if (g)
        b->in->groups = g;
    perf_rd_dist *dd = realloc(b->in->dists, cap * sizeof *dd);
    if (dd)
        b->in->dists = dd;
    perf_stride *w = realloc(b->in->walks, cap * sizeof *w);
    if (w)
        b->in->walks = w;
    predict_sets *s = realloc(b->in->sets, cap * sizeof *s);
    if (s)
        b->in->sets = s;
    if (!g || !dd || !w || !s)
        return -1;
    b->cap = cap;
    return 0;
}

/* The walk of instruction `id`: its dominant stride and run length, bytes
 * 0 when it has none. */
static perf_stride walk_of(const group_builder *b, int64_t id)
{
    size_t k = db_stride_find(b->strides, b->nstrides, id);
    if (k == b->nstrides || !db_stride_dominant(&b->strides[k]))
        return (perf_stride){0, 0};
    return (perf_stride){fabs((double)b->strides[k].delta), db_stride_run(&b->strides[k])};
}

/* db_for_each_histogram callback: the instruction's group of one member;
 * 1 when memory runs out. */
static int on_histogram(void *ctx, int64_t instr_id, uint64_t cold, const rd_binrec *bins, size_t nbins)
{
    group_builder *b = ctx;
    size_t i = db_instr_find(b->r->ins, b->r->n, instr_id);
    if (i == b->r->n)
        return 0;
    if (grow(b) != 0)
        return 1;
    db_rd_group *g = &b->in->groups[b->in->ngroups];
    *g = (db_rd_group){.block_size = b->block, .loop = -1, .nmembers = 1};
    g->members = calloc(1, sizeof *g->members);
    g->module = b->r->module[i] ? strdup(b->r->module[i]) : NULL;
    if (!g->members) {
        free(g->module);
        return 1;
    }
    g->members[0] = (struct db_rd_member_row){.addr = b->r->ins[i].addr, .line = b->r->ins[i].line, .share = 1};
    g->members[0].function = b->r->function[i] ? strdup(b->r->function[i]) : NULL;
    g->members[0].file = b->r->file[i] ? strdup(b->r->file[i]) : NULL;
    if (perf_rd_dist_measured(cold, bins, nbins, &b->in->dists[b->in->ngroups]) != 0) {
        free(g->members[0].function), free(g->members[0].file), free(g->members), free(g->module);
        return 1;
    }
    b->in->walks[b->in->ngroups] = walk_of(b, instr_id);
    predict_set_table_find(b->in->set_table, instr_id, &b->in->sets[b->in->ngroups]);
    if (b->block != 1u << RD_SET_LINE_SHIFT) /* set-local histograms are of lines */
        b->in->sets[b->in->ngroups].n = 0;
    b->in->ngroups++;
    return 0;
}

/* The run's counts of every executed scope of t, as predicted scopes. */
static int scopes_of_run(db *d, const db_run *run, const scope_tree *t, prediction *p, char *err, size_t errlen)
{
    scope_counts *c = NULL;
    if (report_scope_counts(d, run->id, t, &c, err, errlen) != 0) {
        free(c);
        return -1;
    }
    p->scopes = calloc(t->nscopes + 1, sizeof *p->scopes);
    if (!p->scopes) {
        free(c);
        return oom(err, errlen);
    }
    for (size_t s = 1; s < t->nscopes; s++) {
        const db_scope *sc = &t->scopes[s];
        if (c[s].instructions == 0)
            continue;
        predict_scope *o = &p->scopes[p->nscopes++];
        *o = (predict_scope){.kind = sc->kind, .name = sc->name, .file = sc->file, .line = sc->first_line,
                             .scope = sc->id, .instructions = (double)c[s].instructions,
                             .reads = (double)c[s].reads, .writes = (double)c[s].writes, .flops = (double)c[s].flops,
                             .headers = (double)c[s].headers,
                             .entries = c[s].headers > c[s].back ? (double)(c[s].headers - c[s].back) : 0};
        for (int k = 0; k < ST_CLASS_COUNT; k++)
            o->cls[k] = (double)c[s].cls[k];
    }
    free(c);
    return 0;
}

int predict_from_run(db *d, const db_run *run, const scope_tree *t, prediction *p, predict_perf_input *in, char *err,
                     size_t errlen)
{
    memset(p, 0, sizeof *p);
    memset(in, 0, sizeof *in);
    p->set.program = strdup(t->binary.path);
    p->set.nblock_sizes = run->nblock_sizes;
    memcpy(p->set.block_sizes, run->block_sizes, sizeof p->set.block_sizes);
    if (!p->set.program)
        return oom(err, errlen);
    int64_t program_id;
    if (db_module_id(d, t->binary.path, t->binary.build_id, &program_id, err, errlen) != 0 ||
        report_build(d, run, NULL, 0, &p->rep, err, errlen) != 0 || scopes_of_run(d, run, t, p, err, errlen) != 0)
        return -1;
    run_insns r = {0};
    group_builder b = {.r = &r, .in = in};
    db_stride *strides = NULL;
    in->set_table = calloc(1, sizeof *in->set_table);
    if (!in->set_table)
        return oom(err, errlen);
    int rc = insns_load(d, run, &r, err, errlen);
    if (rc == 0)
        rc = predict_set_table_load(d, run, in->set_table, err, errlen);
    if (rc == 0)
        rc = db_run_strides(d, run->id, &strides, &b.nstrides, err, errlen);
    b.strides = strides;
    for (int k = 0; rc == 0 && k < run->nblock_sizes; k++) {
        b.block = run->block_sizes[k];
        rc = db_for_each_histogram(d, run->id, b.block, on_histogram, &b, err, errlen);
        if (rc > 0)
            rc = oom(err, errlen);
    }
    if (rc == 0)
        rc = predict_pow2_shares(d, p->set.program, run, 1, in->groups, in->ngroups, &in->pow2, err, errlen);
    if (rc == 0 && predict_blocks_measured(r.ins, r.n, program_id, &in->blocks) != 0)
        rc = oom(err, errlen);
    insns_free(&r);
    free(strides);
    return rc;
}

void predict_run_free(prediction *p, predict_perf_input *in)
{
    for (size_t i = 0; in->dists && i < in->ngroups; i++)
        perf_rd_dist_free(&in->dists[i]);
    free(in->dists);
    free(in->walks);
    free(in->pow2);
    free(in->sets);
    if (in->set_table)
        predict_set_table_free(in->set_table);
    free(in->set_table);
    db_rd_groups_free(in->groups, in->ngroups);
    predict_blocks_free(in->blocks);
    memset(in, 0, sizeof *in);
    prediction_free(p);
}

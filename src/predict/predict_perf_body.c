/* predict_perf_body.c — the body of one loop for the core model: how often
 * each instruction of its function runs per execution of the loop's
 * header, at the predicted parameters, from the block count models
 * (docs/performance-model.md, "Time per loop, function, program").
 * Instructions of inner loops get weight 0: inner loops are timed alone;
 * loops folded into one scope (seed 000) are one body. */
#include <stdlib.h>
#include <string.h>

#include "perf/perf.h"
#include "predict/predict_perf_body.h"

/* Block models of the program: [addr, end) executed `executions` times;
 * for a conditional branch's own entry (taken[]), the times it jumped. */
typedef struct block_count {
    uint64_t addr, end;
    double executions;
} block_count;

struct predict_blocks {
    size_t n, ntaken;
    block_count *b;     /* ascending addr */
    block_count *taken; /* ascending addr; `executions` holds the taken count */
};

static int by_addr(const void *pa, const void *pb)
{
    const block_count *a = pa, *b = pb;
    return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* Room for n blocks and n taken counts; NULL when memory runs out. */
static predict_blocks *blocks_new(size_t n)
{
    predict_blocks *bl = calloc(1, sizeof *bl);
    if (bl && (!(bl->b = malloc((n + 1) * sizeof *bl->b)) || !(bl->taken = malloc((n + 1) * sizeof *bl->taken)))) {
        predict_blocks_free(bl);
        return NULL;
    }
    return bl;
}

static void blocks_sort(predict_blocks *bl)
{
    qsort(bl->b, bl->n, sizeof *bl->b, by_addr);
    qsort(bl->taken, bl->ntaken, sizeof *bl->taken, by_addr);
}

int predict_blocks_load(const prediction *p, const char *module, predict_blocks **out)
{
    predict_blocks *bl = blocks_new(p->nrows);
    if (!bl)
        return -1;
    for (size_t i = 0; i < p->nrows; i++) {
        const db_model_row *r = &p->rows[i];
        if (strcmp(r->kind, "block") || !r->module || strcmp(r->module, module))
            continue;
        double v = model_eval(r->m, p->x);
        block_count c = {r->addr, r->end_addr, v > 0 ? v : 0};
        if (!strcmp(r->metric, "taken"))
            bl->taken[bl->ntaken++] = c;
        else if (!strcmp(r->metric, "executions"))
            bl->b[bl->n++] = c;
    }
    blocks_sort(bl);
    *out = bl;
    return 0;
}

int predict_blocks_measured(const db_instr *ins, size_t n, int64_t module_id, predict_blocks **out)
{
    predict_blocks *bl = blocks_new(n);
    if (!bl)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (ins[i].module_id != module_id)
            continue;
        block_count c = {ins[i].addr, ins[i].addr + ins[i].len, (double)ins[i].executions};
        bl->b[bl->n++] = c;
        if (ins[i].taken) {
            c.executions = (double)ins[i].taken;
            bl->taken[bl->ntaken++] = c;
        }
    }
    blocks_sort(bl);
    *out = bl;
    return 0;
}

void predict_blocks_free(predict_blocks *bl)
{
    if (bl)
        free(bl->b), free(bl->taken);
    free(bl);
}

/* The count of the entry of b[0..n) (ascending, not overlapping) that holds
 * addr; 0 when none does (a series that is 0 in every run is not stored). */
static double count_at(const block_count *b, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (b[mid].end <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && b[lo].addr <= addr ? b[lo].executions : 0;
}

double predict_blocks_executions(const predict_blocks *bl, uint64_t addr)
{
    return count_at(bl->b, bl->n, addr);
}

int predict_body_weights(const predict_blocks *bl, const st_function *f, const uint32_t *loop_scopes, uint32_t scope,
                         double headers, double *weight)
{
    if (headers <= 0)
        return -1;
    for (uint32_t k = 0; k < f->nblocks; k++) {
        const st_block *b = &f->blocks[k];
        int mine = b->loop >= 0 && loop_scopes[b->loop] == scope; /* not an inner loop's block */
        for (uint32_t i = b->first; i < b->first + b->n; i++)
            weight[i] = mine ? predict_blocks_executions(bl, f->insns[i].addr) / headers : 0;
    }
    return 0;
}

/* Does instruction `use` form a memory address from register reg? */
static int addresses_with(const st_insn *use, unsigned reg)
{
    for (uint8_t k = 0; k < use->nmem; k++)
        if (use->mem[k].access && (use->mem[k].base == reg || use->mem[k].index == reg))
            return 1;
    return 0;
}

/* Does every address instruction insn of f reads stay where it is over the
 * iterations of `loop` (stride 0 in that loop: a stack slot or a global,
 * as a spilled register's reload)?  0 when one moves, is not affine or
 * has no address formula. */
static int reads_fixed_address(const st_function *f, const st_dataflow *df, uint32_t insn, int loop)
{
    size_t lo = 0, hi = df->naddrs;
    while (lo < hi) { /* the first entry of insn: addrs ascend by (insn, memop) */
        size_t mid = (lo + hi) / 2;
        if (df->addrs[mid].insn < insn)
            lo = mid + 1;
        else
            hi = mid;
    }
    int reads = 0;
    for (size_t k = lo; k < df->naddrs && df->addrs[k].insn == insn; k++) {
        const st_addr *a = &df->addrs[k];
        if (a->memop >= f->insns[insn].nmem || !(f->insns[insn].mem[a->memop].access & ST_MEM_READ))
            continue;
        int fixed = 0;
        for (uint32_t j = 0; j < a->nloops && j < 8; j++)
            if (a->loops[j] == loop)
                fixed = a->stride[j] == 0;
        if (!fixed)
            return 0;
        reads++;
    }
    return reads > 0;
}

int predict_loop_chases(const st_function *f, const st_dataflow *df, int loop)
{
    for (size_t i = 0; i < df->ndeps; i++) {
        const st_dep *d = &df->deps[i];
        if (d->carried && d->loop == loop && f->insns[d->def].nloads > 0 &&
            addresses_with(&f->insns[d->use], d->reg) && !reads_fixed_address(f, df, d->def, loop))
            return 1;
    }
    return 0;
}

/* Does block k of f end a back edge of one of f's loops? */
static int ends_back_edge(const st_function *f, uint32_t k)
{
    for (uint32_t l = 0; l < f->nloops; l++)
        for (uint32_t e = 0; e < f->loops[l].nback; e++)
            if (f->edges[f->loops[l].back[e]].from == k)
                return 1;
    return 0;
}

/* One pass over the conditional branches ending the blocks of loop scope
 * `scope`: their mispredictions (returned) and, into *cycles, their cost
 * on m, each at perf_mispredict_cycles of its resolution (t->ready), the
 * part perf_mispredict_exposed leaves at `rate` mispredictions an
 * iteration when rate > 0 and its compare is not through a saturated
 * port (t->through). */
static double branch_pass(const predict_blocks *bl, const st_function *f, const st_dataflow *df,
                          const uint32_t *loop_scopes, uint32_t scope, const machine *m,
                          const predict_branch_timing *t, double rate, double *cycles)
{
    double sum = 0;
    *cycles = 0;
    for (uint32_t k = 0; k < f->nblocks; k++) {
        const st_block *b = &f->blocks[k];
        if (b->n == 0 || b->loop < 0 || loop_scopes[b->loop] != scope)
            continue;
        uint32_t i = b->first + b->n - 1;
        const st_insn *last = &f->insns[i];
        if (last->flow != ST_FLOW_CJUMP)
            continue;
        int predictable = ends_back_edge(f, k) || perf_counter_branch(f, df, i);
        double mis = perf_branch_mispredicts(predict_blocks_executions(bl, last->addr),
                                             count_at(bl->taken, bl->ntaken, last->addr), predictable);
        double cost = perf_mispredict_cycles(m, t->ready ? t->ready[i] : 0);
        int hides = rate > 0 && t->core && !(t->through && t->through[i]);
        sum += mis;
        *cycles += mis * (hides ? perf_mispredict_exposed(m, t->core, rate, cost) : cost);
    }
    return sum;
}

double predict_loop_mispredicts(const predict_blocks *bl, const st_function *f, const st_dataflow *df,
                                const uint32_t *loop_scopes, uint32_t scope, const machine *m,
                                const predict_branch_timing *t, double *cycles)
{
    double sum = branch_pass(bl, f, df, loop_scopes, scope, m, t, 0, cycles);
    if (!t->core || !(t->iterations > 0) || !(sum > 0))
        return sum;
    return branch_pass(bl, f, df, loop_scopes, scope, m, t, sum / t->iterations, cycles);
}


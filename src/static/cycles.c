/* cycles.c — cycles of the binary's code joined to the source (issue 24
 * item 5, seed 004): per iteration of a binary loop, the core model that
 * `augur predict --machine` uses for a loop body (src/perf/core_model.h,
 * here with static weights) and the memory term of its streams (the bytes
 * its constant-stride accesses move over one core's memory bandwidth);
 * per straight-line block, its instructions over the issue width
 * (docs/static.md, "Cycles"). */
#include "static/join.h"

#include <math.h>
#include <stdlib.h>

/* The core model's row of loop bl of function bfi, or NULL. */
static const perf_loop_core *core_row(const sa_machine *mc, size_t bfi, uint32_t bl)
{
    for (size_t i = 0; i < mc->ncores; i++)
        if (mc->cores[i].function == bfi && mc->cores[i].loop == bl)
            return &mc->cores[i];
    return NULL;
}

/* The stride of address a per iteration of loop bl, or ST_STRIDE_UNKNOWN. */
static int64_t stride_in(const st_addr *a, uint32_t bl)
{
    for (uint32_t k = 0; k < a->nloops && k < 8; k++)
        if (a->loops[k] == (int32_t)bl)
            return a->stride[k];
    return ST_STRIDE_UNKNOWN;
}

/* Do two addresses walk one stream: the same registers and stride, their
 * constants less than a line apart? */
static int same_stream(const st_addr *x, const st_addr *y, int64_t sx, int64_t sy, uint32_t line)
{
    if (sx != sy || x->nterms != y->nterms || llabs(x->constant - y->constant) >= (long long)line)
        return 0;
    for (uint8_t k = 0; k < x->nterms; k++)
        if (x->terms[k].kind != y->terms[k].kind || x->terms[k].reg != y->terms[k].reg ||
            x->terms[k].coef != y->terms[k].coef)
            return 0;
    return 1;
}

/* Bytes the streams of loop bl move between memory and the core per
 * iteration: each stream (accesses of one stride a line apart at most)
 * min(|stride|, line) bytes, twice when it is stored to (the line read and
 * written back).  Stack slots and accesses that do not move are not
 * streams. */
static double stream_bytes(const st_module *m, size_t bfi, uint32_t bl, uint32_t line)
{
    const st_function *f = &m->functions[bfi];
    const st_dataflow *df = &m->dataflow[bfi];
    double bytes = 0;
    for (size_t i = 0; i < df->naddrs; i++) {
        const st_addr *a = &df->addrs[i];
        const st_insn *in = &f->insns[a->insn];
        const st_memop *mo = &in->mem[a->memop];
        int64_t s = stride_in(a, bl);
        uint32_t b = 0;
        while (b < f->nblocks && !(a->insn >= f->blocks[b].first && a->insn < f->blocks[b].first + f->blocks[b].n))
            b++;
        if (b == f->nblocks || f->blocks[b].loop != (int32_t)bl || s == ST_STRIDE_UNKNOWN || s == 0 ||
            mo->base == ST_REG_RSP || mo->base == ST_REG_RBP || !a->complete)
            continue;
        int first = 1, stored = (mo->access & ST_MEM_WRITE) != 0;
        for (size_t k = 0; k < df->naddrs && first; k++) {
            if (k == i)
                continue;
            const st_addr *o = &df->addrs[k];
            if (!same_stream(a, o, s, stride_in(o, bl), line))
                continue;
            if (k < i)
                first = 0; /* counted with the first of its stream */
            else
                stored |= (f->insns[o->insn].mem[o->memop].access & ST_MEM_WRITE) != 0;
        }
        if (first)
            bytes += (double)(llabs(s) < (long long)line ? llabs(s) : line) * (stored ? 2 : 1);
    }
    return bytes;
}

void sa_loop_cycles(const sa_machine *mc, const st_module *m, size_t bfi, uint32_t bl, sa_bloop *out)
{
    const perf_loop_core *row = core_row(mc, bfi, bl);
    if (row) {
        out->cycles = row->core.cycles;
        out->bound = perf_core_bound_name(row->core.bound);
    }
    uint32_t line = mc->m->ncaches ? mc->m->cache[0].line : 64;
    double bw = mc->m->mem_bandwidth_core_gbs / mc->m->clock_ghz; /* bytes per cycle */
    out->stream_bytes = stream_bytes(m, bfi, bl, line);
    out->mem_cycles = bw > 0 ? out->stream_bytes / bw : 0;
    double ms = mc->m->mem_bandwidth_gbs / mc->m->clock_ghz; /* the memory's bytes per cycle, all cores */
    out->contention = ms > 0 && out->cycles > 0 ? out->stream_bytes / out->cycles / ms : 0;
}

int64_t sa_block_cycles(const sa_machine *mc, const st_function *f, uint32_t b)
{
    uint32_t w = mc->m->issue_width ? mc->m->issue_width : 1;
    return llround((double)SA_CYCLE_DEN * f->blocks[b].n / w);
}

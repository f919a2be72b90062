/* cycles.c — cycles of the binary's code joined to the source (issue 24
 * item 5, seed 004): per iteration of a binary loop, the core model that
 * `augur predict --machine` uses for a loop body (src/perf/core_model.h,
 * here with static weights), predict's loop time on the misses of its
 * streams (constant-stride accesses) in steps by the iterations of an
 * entry, where a level no longer holds an entry's blocks (src/perf's
 * memory and time models), and the memory term of its streams (their
 * bytes over one core's memory bandwidth); per straight-line block, its
 * instructions over the issue width (docs/static.md, "Cycles"). */
#include "static/join.h"
#include "perf/perf.h"

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

/* A stream of a loop: accesses of one stride a line apart at most. */
typedef struct stream {
    int64_t stride;
    int loads, stores;
} stream;

/* The streams of loop bl (lines of `line` bytes) into out (room for every
 * address of the function); their number.  Stack slots and accesses that
 * do not move are not streams. */
static size_t loop_streams(const st_module *m, size_t bfi, uint32_t bl, uint32_t line, stream *out)
{
    const st_function *f = &m->functions[bfi];
    const st_dataflow *df = &m->dataflow[bfi];
    size_t n = 0;
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
        stream x = {s, (mo->access & ST_MEM_READ) != 0, (mo->access & ST_MEM_WRITE) != 0};
        int first = 1;
        for (size_t k = 0; k < df->naddrs && first; k++) {
            if (k == i)
                continue;
            const st_addr *o = &df->addrs[k];
            if (!same_stream(a, o, s, stride_in(o, bl), line))
                continue;
            if (k < i)
                first = 0; /* counted with the first of its stream */
            else {
                x.loads |= (f->insns[o->insn].mem[o->memop].access & ST_MEM_READ) != 0;
                x.stores |= (f->insns[o->insn].mem[o->memop].access & ST_MEM_WRITE) != 0;
            }
        }
        if (first)
            out[n++] = x;
    }
    return n;
}

/* Bytes of `block`-byte blocks the streams touch anew per iteration: each
 * min(|stride|, block). */
static double block_bytes(const stream *st, size_t n, uint32_t block)
{
    double bytes = 0;
    for (size_t k = 0; k < n; k++)
        bytes += (double)(llabs(st[k].stride) < (long long)block ? llabs(st[k].stride) : block);
    return bytes;
}

/* Bytes the streams move between memory and the core per iteration: each
 * min(|stride|, line), twice when it is stored to (the line read and
 * written back). */
static double stream_bytes(const stream *st, size_t n, uint32_t line)
{
    double bytes = block_bytes(st, n, line);
    for (size_t k = 0; k < n; k++)
        if (st[k].stores)
            bytes += block_bytes(&st[k], 1, line);
    return bytes;
}

/* The blocks level L holds of the streams' walks: the fewest that the
 * sets one stream reaches hold (perf_stride_sets: a stride of 4096 bytes
 * reaches one set of 64-byte lines in 64 sets). */
static double stream_capacity(const perf_level *L, const stream *st, size_t n)
{
    double cap = L->sets * L->ways;
    for (size_t k = 0; k < n; k++)
        cap = fmin(cap, perf_strided_capacity(L, perf_stride_sets((double)llabs(st[k].stride), L->block, L->sets),
                                              HUGE_VAL));
    return cap;
}

/* The levels the time model prices: the caches, and the TLBs of 4 KiB
 * pages (the pages the runs measure, as predict prices). */
typedef struct levels {
    perf_level cache[PERF_MAX_LEVELS], tlb[MACHINE_MAX_TLBS];
    size_t ncaches, ntlbs;
    double most[PERF_MAX_LEVELS + MACHINE_MAX_TLBS]; /* per cache level, then TLB: iterations per entry it holds */
} levels;

/* The time of one iteration whose entry runs more iterations than the
 * levels of `missed` (cache levels first, then TLBs) hold: their streams'
 * blocks miss there, each iteration's new ones (predict's traffic, from
 * the static strides), priced by perf_mem_time and combined with the core
 * by perf_loop_combine as `augur predict` does; its bound into out. */
static double band_cycles(const machine *mc, const levels *lv, const char *missed, const stream *st, size_t n,
                          const perf_core *core, double insns, sa_band *out)
{
    perf_traffic t = {.nlevels = lv->ncaches, .ntlbs = lv->ntlbs, .instructions = insns};
    for (size_t i = 0; i < lv->ncaches; i++)
        for (size_t k = 0; k < n && missed[i]; k++) {
            double lines = block_bytes(&st[k], 1, lv->cache[i].block) / lv->cache[i].block;
            t.misses[i] += lines;
            t.stream_misses[i] += lines;
            t.dirty_misses[i] += st[k].stores ? lines : 0;
            t.store_misses[i] += st[k].stores && !st[k].loads ? lines : 0;
        }
    double pages = block_bytes(st, n, 4096) / 4096;
    for (size_t j = 0; j < lv->ntlbs; j++) {
        t.tlb_latency[j] = lv->tlb[j].miss_latency;
        t.tlb_walk[j] = lv->tlb[j].tlb_level >= 2;
        t.tlb_misses[j] = missed[lv->ncaches + j] ? pages : 0;
    }
    t.stream_pages = lv->ntlbs ? t.tlb_misses[0] : 0; /* the first level's: tlb[] is smallest first */
    perf_mem mem;
    perf_loop_time lt;
    perf_mem_time(mc, &t, &mem);
    perf_loop_combine(mc, 1, core, &mem, &lt);
    perf_bound_name(mc, lt.bound, out->bound, sizeof out->bound);
    return lt.cycles;
}

/* The machine's priced levels, and the iterations per entry each holds of
 * the streams (a binary iteration does `factor` source iterations). */
static void stream_levels(const machine *mc, const stream *st, size_t n, double factor, levels *lv)
{
    perf_level all[MACHINE_MAX_TLBS];
    lv->ncaches = perf_cache_levels(mc, lv->cache);
    size_t nt = perf_tlb_levels(mc, all);
    lv->ntlbs = 0;
    for (size_t j = 0; j < nt; j++) /* the 4 KiB TLBs, smallest first */
        if (all[j].block == 4096) {
            size_t k = lv->ntlbs++;
            for (; k > 0 && lv->tlb[k - 1].sets * lv->tlb[k - 1].ways > all[j].sets * all[j].ways; k--)
                lv->tlb[k] = lv->tlb[k - 1];
            lv->tlb[k] = all[j];
        }
    for (size_t i = 0; i < lv->ncaches + lv->ntlbs; i++) {
        const perf_level *L = i < lv->ncaches ? &lv->cache[i] : &lv->tlb[i - lv->ncaches];
        double per_iteration = block_bytes(st, n, L->block) / L->block;
        lv->most[i] = per_iteration > 0 ? floor(factor * stream_capacity(L, st, n) / per_iteration) : HUGE_VAL;
        if (i > 0 && i < lv->ncaches && lv->most[i] < lv->most[i - 1])
            lv->most[i] = lv->most[i - 1]; /* a level misses only when the one above it does */
    }
}

/* The time bands of binary loop bl (docs/static.md, "Cycles"): by the
 * iterations its entry runs (in source iterations), the cycles of one
 * iteration; neighbours of equal cost merged.  Without streams, one band:
 * the core's. */
static void loop_bands(const sa_machine *mc, const perf_core *core, const stream *st, size_t n, double insns,
                       sa_bloop *out)
{
    levels lv;
    stream_levels(mc->m, st, n, out->factor > 1 ? out->factor : 1, &lv);
    size_t nl = lv.ncaches + lv.ntlbs;
    char missed[PERF_MAX_LEVELS + MACHINE_MAX_TLBS] = {0};
    out->nbands = 0;
    double below = 0;
    for (;;) {
        double most = HUGE_VAL; /* the next edge: the fewest iterations one more level misses past */
        for (size_t i = 0; i < nl; i++)
            if (!missed[i] && lv.most[i] < most)
                most = lv.most[i];
        if (most > 1e15)
            most = HUGE_VAL; /* no entry runs that many */
        sa_band b = {.most = most};
        b.cycles = band_cycles(mc->m, &lv, missed, st, n, core, insns, &b);
        sa_band *last = out->nbands ? &out->bands[out->nbands - 1] : NULL;
        if (last && llround(SA_CYCLE_DEN * last->cycles) == llround(SA_CYCLE_DEN * b.cycles))
            last->most = most;
        else if (most > below || most == HUGE_VAL)
            out->bands[out->nbands++] = b;
        if (most == HUGE_VAL || out->nbands == SA_MAX_BANDS)
            break;
        for (size_t i = 0; i < nl; i++)
            missed[i] |= lv.most[i] <= most;
        below = most;
    }
    out->bands[out->nbands - 1].most = HUGE_VAL;
}

void sa_loop_cycles(const sa_machine *mc, const st_module *m, size_t bfi, uint32_t bl, sa_bloop *out)
{
    const perf_loop_core *row = core_row(mc, bfi, bl);
    if (row) {
        out->cycles = row->core.cycles;
        out->bound = perf_core_bound_name(row->core.bound);
    }
    uint32_t line = mc->m->ncaches ? mc->m->cache[0].line : 64;
    stream *st = malloc((m->dataflow[bfi].naddrs + 1) * sizeof *st);
    size_t n = st ? loop_streams(m, bfi, bl, line, st) : 0;
    double bw = mc->m->mem_bandwidth_core_gbs / mc->m->clock_ghz; /* bytes per cycle */
    out->stream_bytes = stream_bytes(st, n, line);
    out->mem_cycles = bw > 0 ? out->stream_bytes / bw : 0;
    double ms = mc->m->mem_bandwidth_gbs / mc->m->clock_ghz; /* the memory's bytes per cycle, all cores */
    out->contention = ms > 0 && out->cycles > 0 ? out->stream_bytes / out->cycles / ms : 0;
    if (row)
        loop_bands(mc, &row->core, st, n, out->ninsns, out);
    free(st);
}

int64_t sa_block_cycles(const sa_machine *mc, const st_function *f, uint32_t b)
{
    uint32_t w = mc->m->issue_width ? mc->m->issue_width : 1;
    return llround((double)SA_CYCLE_DEN * f->blocks[b].n / w);
}

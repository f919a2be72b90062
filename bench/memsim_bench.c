/* memsim_bench.c — native micro-benchmark of memspy's simulator (memsim.h)
 * against cachesim's cs_hierarchy on the same references: the cost of
 * attributing every miss (causes, evicted tags, per-thread levels) over
 * plain hit/miss simulation.
 *
 * Each case builds a trace of REFS references, then for each simulator and
 * each of REPS repetitions makes a fresh simulator, replays the trace once
 * untimed (to fill the caches and tables) and once timed, and prints the
 * median, min and max ns per reference and the median ratio memsim/cachesim;
 * then memsim with shadow sampling 8 and 64 (ms_config.shadow_sample), each
 * as its median ns and ratio to cachesim.
 *
 * Machines (64-byte lines): 1 level = L1 32 KiB 8-way; 3 levels = L1 32 KiB
 * 8-way and L2 1 MiB 16-way private per thread, L3 8 MiB 16-way shared.
 *
 * usage: memsim_bench [REFS [TRACE...]]   (default 2000000, every trace)
 * Traces: mm (the references of an ikj matrix multiply of 300 x 300
 * doubles, c[i][j] += a[i][k] * b[k][j]: read c, read b, write c; what most
 * programs do, mostly L1 hits at the most recent way), hot (16 KiB random, 20% writes: L1 hits), l2 (512 KiB random),
 * l3 (4 MiB random), stream (8-byte steps over 16 MiB: every 8th reference
 * misses all levels), mt (two threads alternating, 256 KiB random each,
 * 1 in 64 references to a shared 4 KiB with half of them writes; 3 levels
 * only, cachesim as two hierarchies sharing one L3).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cachesim/cachesim.h"
#include "cachesim/memsim.h"
#include "rd/rd.h"

#define BENCH_NAME "memsim_bench"
#include "bench_alloc.h"

#define REPS 5
#define BASE 0x7f0000000000ull

/* CPU time of this thread in nanoseconds (the machine is shared: wall time
 * would count other processes). */
static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* ---- traces ------------------------------------------------------------------ */

typedef struct trace {
    size_t n;
    uint64_t *addr;
    uint8_t *write, *thread; /* 8-byte references */
} trace;

/* xorshift64* step. */
static uint64_t rng(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545f4914f6cdd1dull;
}

/* t's n references as the ikj matrix multiply of MM_N doubles makes them
 * (c, then b, then c again; a[i][k] stays in a register), from the start
 * over again when n is longer. */
#define MM_N 300u
static void make_mm(trace *t)
{
    uint64_t b = BASE + MM_N * MM_N * 8, c = b + MM_N * MM_N * 8; /* a is at BASE */
    size_t i = 0, step = 0;
    while (i < t->n) {
        uint64_t j = step % MM_N, k = step / MM_N % MM_N, row = step / (MM_N * MM_N) % MM_N;
        uint64_t refs[3] = {c + (row * MM_N + j) * 8, b + (k * MM_N + j) * 8, c + (row * MM_N + j) * 8};
        for (unsigned r = 0; r < 3 && i < t->n; r++, i++) {
            t->addr[i] = refs[r];
            t->write[i] = r == 2;
            t->thread[i] = 0;
        }
        step++;
    }
}

/* A trace of n references of the named kind (see the header); 0 on an
 * unknown name. */
static int make_trace(trace *t, const char *kind, size_t n)
{
    uint64_t s = 88172645463325252ull;
    t->n = n;
    t->addr = bench_alloc(NULL, n * sizeof *t->addr);
    t->write = bench_alloc(NULL, n);
    t->thread = bench_alloc(NULL, n);
    uint64_t span = !strcmp(kind, "hot") ? 16384 : !strcmp(kind, "l2") ? 512 * 1024
                  : !strcmp(kind, "l3") ? 4u << 20 : !strcmp(kind, "mt") ? 256 * 1024 : 0;
    int stream = !strcmp(kind, "stream"), mt = !strcmp(kind, "mt");
    if (!strcmp(kind, "mm"))
        return make_mm(t), 1;
    if (!span && !stream)
        return 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng(&s);
        t->thread[i] = mt ? (uint8_t)(i & 1) : 0;
        t->write[i] = (r >> 56) < 51; /* 20% */
        if (stream)
            t->addr[i] = BASE + (i * 8) % (16u << 20);
        else if (mt && (r & 63) == 0) {
            t->addr[i] = BASE + (((r >> 8) % 4096) & ~7ull);
            t->write[i] = (r >> 20) & 1;
        } else
            t->addr[i] = BASE + (1ull << 30) * (1 + t->thread[i]) + (((r >> 8) % span) & ~7ull);
    }
    return 1;
}

static void free_trace(trace *t)
{
    free(t->addr);
    free(t->write);
    free(t->thread);
}

/* ---- the two simulators ------------------------------------------------------- */

static const uint64_t GEOM[3][3] = {{32768, 8, 1}, {1u << 20, 16, 1}, {8u << 20, 16, 8}};

/* Replay t through cs_hierarchy (per thread: private levels of its own,
 * the last level shared when nlevels is 3); returns ns per reference of
 * the timed pass.  Misses summed into *misses to keep the work. */
static double run_cachesim(const trace *t, unsigned nlevels, uint64_t *misses)
{
    cs_level *priv[2][2], *l3 = NULL;
    cs_hierarchy h[2];
    for (unsigned th = 0; th < 2; th++) {
        for (unsigned k = 0; k < nlevels && k < 2; k++)
            priv[th][k] = cs_level_new(GEOM[k][0], 64, (uint32_t)GEOM[k][1], &alloc, NULL);
    }
    if (nlevels == 3)
        l3 = cs_level_new(GEOM[2][0], 64, (uint32_t)GEOM[2][1], &alloc, NULL);
    for (unsigned th = 0; th < 2; th++) {
        cs_level *lv[3] = {priv[th][0], nlevels > 1 ? priv[th][1] : NULL, l3};
        cs_hierarchy_init(&h[th], lv, nlevels);
    }
    double t0 = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            t0 = now_ns();
        for (size_t i = 0; i < t->n; i++)
            cs_hierarchy_access(&h[t->thread[i]], t->addr[i], 8);
    }
    double ns = (now_ns() - t0) / (double)t->n;
    *misses += h[0].misses[0] + h[1].misses[0];
    for (unsigned th = 0; th < 2; th++)
        for (unsigned k = 0; k < nlevels && k < 2; k++)
            cs_level_free(priv[th][k]);
    cs_level_free(l3);
    return ns;
}

/* Replay t through memsim with causes (tag: the address's 1 MiB region),
 * shadow sampling 1 in `shadow`; returns ns per reference of the timed
 * pass; misses into *misses. */
static double run_memsim_shadow(const trace *t, unsigned nlevels, uint32_t shadow, uint64_t *misses)
{
    ms_config c = {0};
    c.nlevels = nlevels;
    c.set_sample = 1;
    c.shadow_sample = shadow;
    for (unsigned k = 0; k < nlevels; k++)
        c.level[k] = (ms_level_config){GEOM[k][0], 64, (uint32_t)GEOM[k][1], (uint32_t)GEOM[k][2]};
    const char *err = NULL;
    ms_sim *s = ms_new(&c, &alloc, &err);
    if (!s) {
        fprintf(stderr, "memsim_bench: %s\n", err);
        exit(1);
    }
    uint64_t causes = 0;
    double t0 = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            t0 = now_ns();
        for (size_t i = 0; i < t->n; i++) {
            ms_result r;
            ms_access(s, t->thread[i], t->addr[i], 8, t->write[i], (uint32_t)(t->addr[i] >> 20), &r);
            causes += r.hit_level ? r.cause[0] + 1 : 0;
        }
    }
    double ns = (now_ns() - t0) / (double)t->n;
    *misses += causes;
    ms_free(s);
    return ns;
}

/* memsim exact, and with shadow sampling 8 and 64. */
static double run_memsim(const trace *t, unsigned nlevels, uint64_t *misses)
{
    return run_memsim_shadow(t, nlevels, 1, misses);
}

static double run_memsim_s8(const trace *t, unsigned nlevels, uint64_t *misses)
{
    return run_memsim_shadow(t, nlevels, 8, misses);
}

static double run_memsim_s64(const trace *t, unsigned nlevels, uint64_t *misses)
{
    return run_memsim_shadow(t, nlevels, 64, misses);
}

/* ---- measurement ------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef double (*runner)(const trace *, unsigned, uint64_t *);

/* Median of REPS runs; v[] gets the sorted samples. */
static double median(runner run, const trace *t, unsigned nlevels, double v[REPS], uint64_t *sink)
{
    for (int r = 0; r < REPS; r++)
        v[r] = run(t, nlevels, sink);
    qsort(v, REPS, sizeof *v, cmp_double);
    return v[REPS / 2];
}

/* One line of the table for trace `kind` at nlevels levels. */
static void bench_case(const char *kind, const trace *t, unsigned nlevels, uint64_t *sink)
{
    double vc[REPS], vm[REPS], v8[REPS], v64[REPS];
    double c = median(run_cachesim, t, nlevels, vc, sink);
    double m = median(run_memsim, t, nlevels, vm, sink);
    double m8 = median(run_memsim_s8, t, nlevels, v8, sink);
    double m64 = median(run_memsim_s64, t, nlevels, v64, sink);
    printf("%-7s %6u %10.1f %6.1f %6.1f %10.1f %6.1f %6.1f %7.2f %7.1f %5.2f %7.1f %5.2f\n", kind, nlevels, c,
           vc[0], vc[REPS - 1], m, vm[0], vm[REPS - 1], m / c, m8, m8 / c, m64, m64 / c);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000;
    if (n == 0) {
        fprintf(stderr, "usage: memsim_bench [REFS [TRACE...]]   (REFS > 0, default 2000000)\n");
        return 2;
    }
    static const char *const all[] = {"mm", "hot", "l2", "l3", "stream", "mt"};
    const char *const *kinds = argc > 2 ? (const char *const *)argv + 2 : all;
    size_t nkinds = argc > 2 ? (size_t)argc - 2 : sizeof all / sizeof *all;
    uint64_t sink = 0;
    printf("# %zu references per pass, median (min max) of %d runs, ns per reference\n", n, REPS);
    printf("%-7s %6s %10s %6s %6s %10s %6s %6s %7s %7s %5s %7s %5s\n", "trace", "levels", "cachesim", "min",
           "max", "memsim", "min", "max", "ratio", "shadow8", "ratio", "shdw64", "ratio");
    for (size_t i = 0; i < nkinds; i++) {
        trace t;
        if (!make_trace(&t, kinds[i], n)) {
            fprintf(stderr, "memsim_bench: unknown trace '%s' (mm, hot, l2, l3, stream, mt)\n", kinds[i]);
            return 2;
        }
        for (unsigned nl = 1; nl <= 3; nl += 2)
            if (nl == 3 || strcmp(kinds[i], "mt"))
                bench_case(kinds[i], &t, nl, &sink);
        free_trace(&t);
    }
    fprintf(stderr, "# checksum %llu\n", (unsigned long long)sink);
    return 0;
}

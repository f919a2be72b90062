/* rd_bench.c — native micro-benchmark of the reuse-distance engine (rd_stack).
 *
 * For each case it creates a stack, touches every block of the footprint once
 * (timed separately: "first ns", the cost of cold inserts and table growth),
 * then times ACCESSES further accesses ("steady ns", compactions included)
 * and prints the median, min and max over 5 repetitions.  The naive
 * move-to-front list of the unit tests runs the smallest case as a sanity
 * ratio.  Block numbers are generated on the fly; "loop" measures that
 * overhead (a generator with no stack) so it can be told apart.
 *
 * usage: rd_bench                       the standard suite (docs/algorithms-rd.md):
 *                                       seq and rand at 1, 32, 256 MiB and 4, 64 KiB,
 *                                       col at 32, 256 MiB (64 B blocks), seq and rand
 *                                       at 256 MiB with 4 KiB blocks,
 *                                       naive list at 1 MiB, generator overhead
 *        rd_bench PATTERN BLOCK SIZE [ACCESSES]
 *   PATTERN  seq | rand | col, or naive-PATTERN, loop-PATTERN
 *            seq: blocks 0, 1, 2, ... cyclically; rand: uniform random blocks;
 *            col: a column walk, blocks 0, 32, 64, ..., then 1, 33, ... (a
 *            matrix with 2 KiB rows read by column at 64 B blocks); seq and
 *            col have distance blocks-1 on every timed access
 *   BLOCK    block size in bytes (64, 4096, ...)
 *   SIZE     footprint: a number of MiB, or with a suffix K, M, G (KiB...);
 *            the stack sees SIZE / BLOCK distinct blocks
 *   ACCESSES timed accesses per repetition (default: max(4 * blocks, 4M),
 *            naive: 2 * blocks)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rd/rd.h"

#define BENCH_NAME "rd_bench"
#include "bench_alloc.h"

#define REPS 5

/* Monotonic time in nanoseconds. */
static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* ---- block generators ---------------------------------------------------- */

typedef enum { SEQ, RAND, COL } pattern;

#define COL_STRIDE 32 /* blocks between consecutive accesses of a column walk */

__extension__ typedef unsigned __int128 u128; /* GNU C, for the multiply-high */

/* Generator state: sequential wraps around the footprint; random is
 * xorshift64* reduced to [0, nblocks) by a multiply-high; the column walk
 * visits row i, column j (block i*COL_STRIDE + j) rows first. */
typedef struct gen {
    pattern pat;
    uint64_t nblocks, base, i, x;
    uint64_t row, col;
} gen;

/* The generator's next block number. */
static inline uint64_t gen_next(gen *g)
{
    if (g->pat == SEQ) {
        uint64_t b = g->i;
        if (++g->i == g->nblocks)
            g->i = 0;
        return g->base + b;
    }
    if (g->pat == COL) {
        uint64_t b = g->row * COL_STRIDE + g->col;
        if (++g->row == g->nblocks / COL_STRIDE) {
            g->row = 0;
            if (++g->col == COL_STRIDE)
                g->col = 0;
        }
        return g->base + b;
    }
    g->x ^= g->x >> 12;
    g->x ^= g->x << 25;
    g->x ^= g->x >> 27;
    uint64_t r = g->x * 0x2545f4914f6cdd1dull;
    return g->base + (uint64_t)(((u128)r * g->nblocks) >> 64);
}

/* ---- the naive reference (as in tests/unit/test_rd_stack.c) -------------- */

typedef struct naive_lru {
    uint64_t *v; /* most recent last */
    size_t n, cap;
} naive_lru;

/* Reference distance of an access (RD_COLD the first time); O(distance),
 * or O(blocks) for a cold access. */
static uint64_t naive_access(naive_lru *l, uint64_t block)
{
    size_t i = l->n;
    while (i > 0 && l->v[i - 1] != block)
        i--;
    if (i == 0) {
        if (l->n == l->cap) {
            l->cap = l->cap ? 2 * l->cap : 1024;
            l->v = realloc(l->v, l->cap * sizeof *l->v);
            if (!l->v)
                exit(1);
        }
        l->v[l->n++] = block;
        return RD_COLD;
    }
    uint64_t d = l->n - i;
    memmove(&l->v[i - 1], &l->v[i], d * sizeof *l->v);
    l->v[l->n - 1] = block;
    return d;
}

/* ---- one case ------------------------------------------------------------ */

typedef enum { ENGINE, NAIVE, LOOP } impl;

typedef struct timing {
    double first_ns, steady_ns; /* per access */
    uint64_t check;             /* sum of distances, defeats dead-code removal */
} timing;

/* One repetition: first touch of every block, then `accesses` timed ones. */
static timing run_once(impl im, pattern pat, uint64_t nblocks, uint64_t accesses)
{
    gen g = {pat, nblocks, 0x7f0000000000ull >> 6, 0, 0x853c49e6748fea9bull, 0, 0};
    rd_stack *s = im == ENGINE ? rd_stack_new(&alloc) : NULL;
    naive_lru l = {0};
    timing t = {0, 0, 0};

    /* first touches: one full cycle of the pattern (in block order for rand),
     * so that the timed accesses continue the cycle */
    gen warm = g;
    if (pat == RAND)
        warm.pat = SEQ;
    double t0 = now_ns();
    for (uint64_t b = 0; b < nblocks; b++) {
        uint64_t blk = gen_next(&warm);
        t.check += im == ENGINE ? rd_stack_access(s, blk)
                   : im == NAIVE ? naive_access(&l, blk) : blk;
    }
    double t1 = now_ns();
    for (uint64_t i = 0; i < accesses; i++) {
        uint64_t blk = gen_next(&g);
        t.check += im == ENGINE ? rd_stack_access(s, blk)
                   : im == NAIVE ? naive_access(&l, blk) : blk;
    }
    double t2 = now_ns();

    t.first_ns = (t1 - t0) / (double)nblocks;
    t.steady_ns = (t2 - t1) / (double)accesses;
    rd_stack_free(s);
    free(l.v);
    return t;
}

/* qsort comparison of doubles, ascending. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Footprint in bytes from "32" (MiB), "4K", "32M", "1G". */
static uint64_t parse_size(const char *s)
{
    char *end;
    uint64_t v = strtoull(s, &end, 0);
    switch (*end) {
    case 'K': case 'k': return v << 10;
    case 'G': case 'g': return v << 30;
    default: return v << 20;
    }
}

/* Print a footprint in the largest unit that divides it. */
static void format_size(char *buf, size_t n, uint64_t bytes)
{
    if (bytes % (1u << 20) == 0)
        snprintf(buf, n, "%llu MiB", (unsigned long long)(bytes >> 20));
    else
        snprintf(buf, n, "%llu KiB", (unsigned long long)(bytes >> 10));
}

/* Run REPS repetitions of one case and print its line; exits on a bad
 * pattern name or on distances that contradict the pattern's closed form. */
static void run_case(const char *name, uint64_t block, uint64_t bytes, uint64_t accesses)
{
    impl im = ENGINE;
    const char *p = name;
    if (strncmp(p, "naive-", 6) == 0) {
        im = NAIVE;
        p += 6;
    } else if (strncmp(p, "loop-", 5) == 0) {
        im = LOOP;
        p += 5;
    }
    pattern pat;
    if (strcmp(p, "seq") == 0)
        pat = SEQ;
    else if (strcmp(p, "rand") == 0)
        pat = RAND;
    else if (strcmp(p, "col") == 0)
        pat = COL;
    else {
        fprintf(stderr, "rd_bench: unknown pattern %s\n", name);
        exit(2);
    }
    uint64_t nblocks = bytes / block;
    if (nblocks == 0 || (pat == COL && nblocks % COL_STRIDE != 0)) {
        fprintf(stderr, "rd_bench: footprint below one block (col: not a multiple of %d)\n",
                COL_STRIDE);
        exit(2);
    }
    if (accesses == 0)
        accesses = im == NAIVE ? 2 * nblocks
                   : 4 * nblocks > 4000000 ? 4 * nblocks : 4000000;

    double first[REPS], steady[REPS];
    uint64_t check = 0;
    for (int r = 0; r < REPS; r++) {
        timing t = run_once(im, pat, nblocks, accesses);
        first[r] = t.first_ns;
        steady[r] = t.steady_ns;
        if (r == 0)
            check = t.check;
        else if (t.check != check) {
            fprintf(stderr, "rd_bench: repetitions disagree\n");
            exit(1);
        }
    }
    /* sweeps and column walks have distance nblocks-1 on every timed access */
    if (pat != RAND && im != LOOP && check - RD_COLD * nblocks != (nblocks - 1) * accesses) {
        fprintf(stderr, "rd_bench: wrong distances for %s\n", name);
        exit(1);
    }
    qsort(first, REPS, sizeof *first, cmp_double);
    qsort(steady, REPS, sizeof *steady, cmp_double);
    char fp[32];
    format_size(fp, sizeof fp, bytes);
    printf("%-10s %5llu %9s %9llu %10llu %9.1f %9.1f %8.1f %8.1f\n", name,
           (unsigned long long)block, fp,
           (unsigned long long)nblocks, (unsigned long long)accesses,
           first[REPS / 2], steady[REPS / 2], steady[0], steady[REPS - 1]);
    fflush(stdout);
}

/* The standard suite without arguments, else the one case given. */
int main(int argc, char **argv)
{
    printf("%-10s %5s %9s %9s %10s %9s %9s %8s %8s\n", "pattern", "block", "footprint",
           "blocks", "accesses", "first ns", "steady ns", "min", "max");
    if (argc == 1) {
        static const uint64_t mibs[] = {1, 32, 256};
        for (int p = 0; p < 2; p++)
            for (int m = 0; m < 3; m++)
                run_case(p ? "rand" : "seq", 64, mibs[m] << 20, 0);
        /* small footprints: short distances, everything cache-resident */
        run_case("seq", 64, 4 << 10, 0);
        run_case("rand", 64, 4 << 10, 0);
        run_case("seq", 64, 64 << 10, 0);
        run_case("rand", 64, 64 << 10, 0);
        /* a column walk: one block per hash run */
        run_case("col", 64, 32 << 20, 0);
        run_case("col", 64, 256 << 20, 0);
        /* the collector's other block size */
        run_case("seq", 4096, 256 << 20, 0);
        run_case("rand", 4096, 256 << 20, 0);
        run_case("naive-seq", 64, 1 << 20, 0);
        run_case("naive-rand", 64, 1 << 20, 0);
        run_case("loop-seq", 64, 256 << 20, 0);
        run_case("loop-rand", 64, 256 << 20, 0);
        return 0;
    }
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: rd_bench [PATTERN BLOCK SIZE [ACCESSES]]\n");
        return 2;
    }
    uint64_t block = strtoull(argv[2], NULL, 0), bytes = parse_size(argv[3]);
    uint64_t accesses = argc == 5 ? strtoull(argv[4], NULL, 0) : 0;
    if (block == 0) {
        fprintf(stderr, "rd_bench: block size must be > 0\n");
        return 2;
    }
    run_case(argv[1], block, bytes, accesses);
    return 0;
}

/* calibrate_probes.c — the core clock and the page-fault cost of the host,
 * measured for `augur machine calibrate` (calibrate_probes.h). */
#define _GNU_SOURCE /* madvise's MADV_NOHUGEPAGE */
#include <stddef.h>
#include <sys/mman.h>
#include <time.h>

#include "machine/calibrate_probes.h"

#define ADDS_PER_ITER 16
#define CHAIN_ITERS 10000L
#define PAGE 4096u

double calibrate_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Nanoseconds of one chain of ADDS_PER_ITER * CHAIN_ITERS dependent adds;
 * the loop is assembly so that no compiler move joins the chain. */
static double chain_ns(void)
{
#if defined(__x86_64__)
    unsigned long x = 1;
    long n = CHAIN_ITERS;
    double t0 = calibrate_now_ns();
    __asm__ volatile("1:\n\t"
                     "add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\t"
                     "add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\t"
                     "add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\t"
                     "add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\t"
                     "dec %1\n\tjnz 1b"
                     : "+r"(x), "+r"(n));
    return calibrate_now_ns() - t0;
#else
    return 0;
#endif
}

/* Nanoseconds of 4 independent chains of ADDS_PER_ITER * CHAIN_ITERS / 4
 * adds each, 32 adds an iteration (half as many iterations as the chain). */
static double chains_ns(void)
{
#if defined(__x86_64__)
    unsigned long a = 1, b = 2, c = 3, d = 4;
    long n = CHAIN_ITERS / 2;
    double t0 = calibrate_now_ns();
    __asm__ volatile("1:\n\t"
                     "add %0, %0\n\tadd %1, %1\n\tadd %2, %2\n\tadd %3, %3\n\t"
                     "add %0, %0\n\tadd %1, %1\n\tadd %2, %2\n\tadd %3, %3\n\t"
                     "add %0, %0\n\tadd %1, %1\n\tadd %2, %2\n\tadd %3, %3\n\t"
                     "add %0, %0\n\tadd %1, %1\n\tadd %2, %2\n\tadd %3, %3\n\t"
                     "add %0, %0\n\tadd %1, %1\n\tadd %2, %2\n\tadd %3, %3\n\t"
                     "add %0, %0\n\tadd %1, %1\n\tadd %2, %2\n\tadd %3, %3\n\t"
                     "add %0, %0\n\tadd %1, %1\n\tadd %2, %2\n\tadd %3, %3\n\t"
                     "add %0, %0\n\tadd %1, %1\n\tadd %2, %2\n\tadd %3, %3\n\t"
                     "dec %4\n\tjnz 1b"
                     : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(n));
    return calibrate_now_ns() - t0;
#else
    return 0;
#endif
}

/* Adds per nanosecond of the fastest of `reps` runs of `run` (each of
 * ADDS_PER_ITER * CHAIN_ITERS adds): other processes only add time; 0 when
 * run measures nothing (off x86-64). */
static double fastest_adds_per_ns(double (*run)(void), int reps)
{
    double best = run();
    for (int r = 1; r < reps; r++) {
        double t = run();
        best = t < best ? t : best;
    }
    return best > 0 ? (double)ADDS_PER_ITER * CHAIN_ITERS / best : 0;
}

double calibrate_add_throughput(int reps)
{
    return fastest_adds_per_ns(chains_ns, reps);
}

double calibrate_clock_ghz(int reps)
{
    return fastest_adds_per_ns(chain_ns, reps); /* one add a cycle: adds per ns are GHz */
}

int calibrate_page_fault_pieces(size_t pages, int pieces, double *ns)
{
    size_t bytes = pages * (size_t)pieces * PAGE;
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    madvise(p, bytes, MADV_NOHUGEPAGE); /* programs' malloc'd arrays fault in 4 KiB pages */
    for (int k = 0; k < pieces; k++) {
        char *piece = p + (size_t)k * pages * PAGE;
        double t0 = calibrate_now_ns();
        for (size_t off = 0; off < pages * PAGE; off += PAGE)
            ((volatile char *)piece)[off] = 1;
        ns[k] = (calibrate_now_ns() - t0) / (double)pages;
    }
    /* a program frees what it touched, at the latest at its exit: each
     * page's share of the unmapping goes to every piece */
    double t0 = calibrate_now_ns();
    munmap(p, bytes);
    double unmap = (calibrate_now_ns() - t0) / (double)(pages * (size_t)pieces);
    for (int k = 0; k < pieces; k++)
        ns[k] += unmap;
    return 0;
}

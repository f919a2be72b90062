/* calibrate.c — the host's latencies and bandwidth, measured (machine.h,
 * machine_calibrate): a pointer chase through a random cyclic permutation
 * of cache lines in a buffer of half of each cache level and in one well
 * past the last level (each load depends on the one before, so the time
 * per step is the load-to-use latency), and a read-sum over that large
 * buffer for one core's streaming bandwidth.  Buffers are 2 MiB aligned
 * and advised to transparent huge pages so TLB misses stay out of the
 * cache latencies.  Latencies are the least of several repetitions, the
 * bandwidth their median. */
#define _GNU_SOURCE /* madvise's MADV_HUGEPAGE */
#include "machine/machine.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define HUGE_PAGE (2u << 20)

/* How much measuring a run does. */
typedef struct plan {
    int reps;          /* repetitions: least latency, median bandwidth */
    size_t steps;      /* pointer-chase steps per repetition */
    uint64_t mem_cap;  /* largest buffer for memory, bytes */
} plan;

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of x[0..n), n <= 16 (x is reordered). */
static double median(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, by_value);
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* xorshift64*: a deterministic stream, so runs chase the same cycle. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* A 2 MiB-aligned buffer of `bytes` (rounded up), advised to huge pages;
 * NULL when out of memory. */
static void *huge_alloc(size_t bytes)
{
    size_t size = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = aligned_alloc(HUGE_PAGE, size);
    if (p)
        madvise(p, size, MADV_HUGEPAGE); /* advice only: without it latencies include TLB misses */
    return p;
}

/* Link the n lines of buf (line bytes apart) into one random cycle
 * (Sattolo's algorithm: every line is visited once per n steps).
 * Returns -1 when out of memory. */
static int link_cycle(char *buf, size_t n, size_t line)
{
    uint32_t *next = malloc(n * sizeof *next);
    if (!next)
        return -1;
    for (size_t i = 0; i < n; i++)
        next[i] = (uint32_t)i;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = next_random(&seed) % i; /* j < i: one cycle, not any permutation */
        uint32_t t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
    for (size_t i = 0; i < n; i++)
        *(void **)(buf + i * line) = buf + (size_t)next[i] * line;
    free(next);
    return 0;
}

/* Follow `steps` links from *p; the loads are dependent, so none overlap.
 * The empty asm takes the end pointer as an input, so the compiler must
 * compute it: the loop stays at -O2. */
static void chase(void **p, size_t steps)
{
    for (size_t i = 0; i < steps; i++)
        p = (void **)*p;
    __asm__ volatile("" : : "r"(p));
}

/* The fewest nanoseconds per dependent load over a `bytes` buffer among
 * the repetitions (other processes only ever add time, so the minimum is
 * the least disturbed); -1 when out of memory. */
static double chase_latency_ns(size_t bytes, size_t line, const plan *pl)
{
    size_t n = bytes / line;
    char *buf = huge_alloc(n * line);
    if (!buf || link_cycle(buf, n, line) != 0) {
        free(buf);
        return -1;
    }
    chase((void **)buf, n < pl->steps ? n : pl->steps); /* warm the caches and TLBs */
    double t[16];
    for (int r = 0; r < pl->reps; r++) {
        double t0 = now_ns();
        chase((void **)buf, pl->steps);
        t[r] = (now_ns() - t0) / (double)pl->steps;
    }
    free(buf);
    qsort(t, (size_t)pl->reps, sizeof *t, by_value);
    return t[0];
}

/* Sum the words of buf; the sum is an input of an empty asm, so the loads
 * stay at -O2. */
static void read_sum(const uint64_t *buf, size_t words)
{
    uint64_t s = 0;
    for (size_t i = 0; i < words; i++)
        s += buf[i];
    __asm__ volatile("" : : "r"(s));
}

/* Median GB/s (10^9 bytes/s) of a read-sum over `bytes`; -1 when out of
 * memory. */
static double stream_gbs(size_t bytes, const plan *pl)
{
    uint64_t *buf = huge_alloc(bytes);
    if (!buf)
        return -1;
    memset(buf, 1, bytes); /* fault every page in before timing */
    double g[16];
    for (int r = 0; r < pl->reps; r++) {
        double t0 = now_ns();
        read_sum(buf, bytes / sizeof *buf);
        g[r] = (double)bytes / (now_ns() - t0);
    }
    free(buf);
    return median(g, pl->reps);
}

/* The memory buffer: 4x the last level, at least 64 MiB, at most the cap. */
static size_t memory_bytes(const machine *m, const plan *pl)
{
    uint64_t b = 4 * m->cache[m->ncaches - 1].size;
    if (b < (64u << 20))
        b = 64u << 20;
    return (size_t)(b < pl->mem_cap ? b : pl->mem_cap);
}

static void progress_line(FILE *progress, const char *what, int step, int steps)
{
    if (progress) {
        fprintf(progress, "calibrating %s (%d/%d)...\n", what, step, steps);
        fflush(progress);
    }
}

/* Append printf-style text to note. */
__attribute__((format(printf, 3, 4))) static void note_add(char *note, size_t notelen, const char *fmt, ...)
{
    size_t len = strlen(note);
    va_list ap;
    va_start(ap, fmt);
    if (len < notelen)
        vsnprintf(note + len, notelen - len, fmt, ap);
    va_end(ap);
}

/* Each cache level's latency, into m and note. */
static int calibrate_caches(machine *m, const plan *pl, FILE *progress, int steps, char *note, size_t notelen)
{
    for (uint32_t i = 0; i < m->ncaches; i++) {
        char what[64];
        snprintf(what, sizeof what, "%s latency", m->cache[i].name);
        progress_line(progress, what, (int)i + 1, steps);
        double ns = chase_latency_ns(m->cache[i].size / 2, m->cache[0].line, pl);
        if (ns < 0)
            return -1;
        m->cache[i].latency = ns * m->clock_ghz;
        note_add(note, notelen, "\n%s: %.2f ns = %.1f cycles (chase over %llu KiB)", m->cache[i].name, ns,
                 m->cache[i].latency, (unsigned long long)(m->cache[i].size / 2 / 1024));
    }
    return 0;
}

int machine_calibrate(machine *m, int quick, FILE *progress, char *note, size_t notelen, char *err, size_t errlen)
{
    plan pl = quick ? (plan){3, 500000, 512u << 20} : (plan){7, 1000000, 1u << 30};
    int steps = (int)m->ncaches + 2;
    note_add(note, notelen,
             "\nCalibrated by 'augur machine calibrate%s': pointer-chase latencies (least of %d runs of "
             "%zu dependent loads), cycles at clock_ghz %.3g:",
             quick ? " --quick" : "", pl.reps, pl.steps, m->clock_ghz);
    size_t mem = memory_bytes(m, &pl);
    double ns = -1, gbs = -1;
    if (calibrate_caches(m, &pl, progress, steps, note, notelen) == 0) {
        progress_line(progress, "memory latency", steps - 1, steps);
        ns = chase_latency_ns(mem, m->cache[0].line, &pl);
    }
    if (ns > 0) {
        progress_line(progress, "memory bandwidth", steps, steps);
        gbs = stream_gbs(mem, &pl);
    }
    if (ns < 0 || gbs < 0) {
        snprintf(err, errlen, "out of memory for a %zu MiB buffer (free memory, or use --quick)", mem >> 20);
        return -1;
    }
    m->mem_latency_ns = ns;
    m->mem_bandwidth_core_gbs = gbs;
    if (m->mem_bandwidth_gbs < gbs)
        m->mem_bandwidth_gbs = gbs; /* all cores reach at least what one does */
    note_add(note, notelen,
             "\nmemory: %.1f ns (chase over %zu MiB); one core's read bandwidth %.2f GB/s (read-sum of %zu MiB, "
             "median of %d); bandwidth_gbs (all cores) is not measured.",
             ns, mem >> 20, gbs, mem >> 20, pl.reps);
    return 0;
}

/* calibrate.c — the host's latencies and bandwidth, measured (machine.h,
 * machine_calibrate): a pointer chase through a random cyclic permutation
 * of cache lines in a buffer of half of each cache level and in one well
 * past the last level (each load depends on the one before, so the time
 * per step is the load-to-use latency), a read-sum and a STREAM triad over
 * buffers of that size for one core's streaming bandwidth; the clock and
 * the page-fault cost are calibrate_probes.c's.  Buffers are 2 MiB aligned
 * and advised to transparent huge pages so TLB misses stay out of the
 * cache latencies.  Latencies are the least of several repetitions, the
 * bandwidths their best (other processes only ever add time). */
#define _GNU_SOURCE /* madvise's MADV_HUGEPAGE */
#include "machine/machine.h"

#include "machine/calibrate_probes.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE (2u << 20)

/* How much measuring a run does. */
typedef struct plan {
    int reps;          /* repetitions (at most 16): least latency, best bandwidth */
    size_t steps;      /* pointer-chase steps per repetition */
    uint64_t mem_cap;  /* largest buffer for memory, bytes */
    int clock_reps;    /* add chains timed for the clock */
    size_t fault_bytes; /* fresh mapping touched per page-fault repetition */
} plan;

/* The least of x[0..n) (infinity when n is 0). */
static double least(const double *x, int n)
{
    double b = INFINITY;
    for (int i = 0; i < n; i++)
        b = x[i] < b ? x[i] : b;
    return b;
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
        double t0 = calibrate_now_ns();
        chase((void **)buf, pl->steps);
        t[r] = (calibrate_now_ns() - t0) / (double)pl->steps;
    }
    free(buf);
    return least(t, pl->reps);
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

/* The best GB/s (10^9 bytes/s) of a read-sum over `bytes` (as STREAM
 * reports its best time: other processes only take bandwidth away); -1
 * when out of memory. */
static double stream_gbs(size_t bytes, const plan *pl)
{
    uint64_t *buf = huge_alloc(bytes);
    if (!buf)
        return -1;
    memset(buf, 1, bytes); /* fault every page in before timing */
    double t[16];
    for (int r = 0; r < pl->reps; r++) {
        double t0 = calibrate_now_ns();
        read_sum(buf, bytes / sizeof *buf);
        t[r] = calibrate_now_ns() - t0;
    }
    free(buf);
    return (double)bytes / least(t, pl->reps);
}

/* One pass of a[i] = b[i] + 3 c[i] over n doubles. */
static void triad(double *a, const double *b, const double *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] + 3.0 * c[i];
    __asm__ volatile("" : : "r"(a) : "memory");
}

/* The best GB/s of a STREAM triad over three arrays of bytes / 4 each,
 * counted as the bytes that move: 32 per element (b and c read, a read
 * for the write-allocate and written back).  The memory model counts the
 * same (a stored line's miss and its write-back), so this prices mixed
 * read and write streams as the model sees them.  -1 when out of memory. */
static double triad_gbs(size_t bytes, const plan *pl)
{
    size_t n = bytes / 4 / sizeof(double);
    double *a = huge_alloc(n * sizeof *a), *b = huge_alloc(n * sizeof *b), *c = huge_alloc(n * sizeof *c);
    if (!a || !b || !c) {
        free(a), free(b), free(c);
        return -1;
    }
    memset(a, 0, n * sizeof *a); /* fault every page in before timing */
    memset(b, 0, n * sizeof *b);
    memset(c, 0, n * sizeof *c);
    double t[16];
    for (int r = 0; r < pl->reps; r++) {
        double t0 = calibrate_now_ns();
        triad(a, b, c, n);
        t[r] = calibrate_now_ns() - t0;
    }
    free(a), free(b), free(c);
    return 4.0 * (double)(n * sizeof(double)) / least(t, pl->reps);
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

/* The chase latency, ns, of levels [0, n) over half their size each, into
 * ns[]; -1 when out of memory. */
static int cache_pass(const machine *m, uint32_t n, const plan *pl, FILE *progress, int *step, int steps,
                      double *ns)
{
    for (uint32_t i = 0; i < n; i++) {
        char what[64];
        snprintf(what, sizeof what, "%s latency", m->cache[i].name);
        progress_line(progress, what, ++*step, steps);
        if ((ns[i] = chase_latency_ns(m->cache[i].size / 2, m->cache[0].line, pl)) < 0)
            return -1;
    }
    return 0;
}

/* The largest slices * line * ways * 2^k (the sizes machine_check_cache
 * accepts) that is at most `bytes` and above `floor`; 0 when none is. */
static uint64_t geometry_at_most(const machine_cache *c, uint64_t bytes, uint64_t floor)
{
    uint64_t unit = (uint64_t)c->slices * c->line * c->ways, largest = 0;
    for (uint64_t s = unit; s <= bytes; s *= 2)
        if (s > floor)
            largest = s;
    return largest;
}

/* The last level as one core sees it (a VM's share of a socket's L3 is
 * far below what hwloc reports): chases over 2x the level above, 4x, ...
 * up to half the level; the largest buffer whose latency is below the
 * midpoint of the level above's and memory's still fits, so the level's
 * size becomes the largest valid size at most twice that buffer, and its
 * latency that buffer's.  A level that holds half its size keeps it.
 * above_ns and mem_ns: the latencies of the level above and of memory. */
static int calibrate_last_level(machine *m, const plan *pl, double above_ns, double mem_ns, FILE *progress, int step,
                                int steps, char *note, size_t notelen)
{
    machine_cache *c = &m->cache[m->ncaches - 1];
    const machine_cache *above = &m->cache[m->ncaches - 2];
    double mid = (above_ns + mem_ns) / 2, fit_ns = -1, first_ns = -1;
    uint64_t fit = 0, b;
    char what[64];
    snprintf(what, sizeof what, "%s capacity and latency", c->name);
    progress_line(progress, what, step, steps);
    for (b = 2 * above->size; b <= c->size / 2; b *= 2) {
        double ns = chase_latency_ns(b, m->cache[0].line, pl);
        if (ns < 0)
            return -1;
        first_ns = first_ns < 0 ? ns : first_ns;
        note_add(note, notelen, "\n  %s sweep: chase over %llu KiB: %.1f ns", c->name,
                 (unsigned long long)(b >> 10), ns);
        if (ns >= mid)
            break;
        fit = b, fit_ns = ns;
    }
    uint64_t size = b > c->size / 2 ? c->size : geometry_at_most(c, 2 * (fit ? fit : above->size), above->size);
    if (size == 0 || first_ns < 0)
        return note_add(note, notelen, "\n%s: no size to sweep between the level above and it; kept as detected",
                        c->name), 0;
    if (fit == 0) { /* even twice the level above misses: the level adds next to nothing */
        note_add(note, notelen, "\n%s: %.2f ns = %.1f cycles (chase over %llu KiB, already above the midpoint "
                 "%.1f ns of %s and memory: the smallest valid size, %llu KiB of %llu detected)",
                 c->name, first_ns, first_ns * m->clock_ghz, (unsigned long long)(above->size >> 9), mid,
                 above->name, (unsigned long long)(size >> 10), (unsigned long long)(c->size >> 10));
        c->size = size;
        c->latency = first_ns * m->clock_ghz;
        return 0;
    }
    note_add(note, notelen, "\n%s: %.2f ns = %.1f cycles (chase over %llu KiB; size %llu KiB of %llu detected: "
             "the largest buffer below the midpoint %.1f ns of %s and memory, x2)",
             c->name, fit_ns, fit_ns * m->clock_ghz, (unsigned long long)(fit >> 10),
             (unsigned long long)(size >> 10), (unsigned long long)(c->size >> 10), mid, above->name);
    c->size = size;
    c->latency = fit_ns * m->clock_ghz;
    return 0;
}

/* The clock, before anything converts nanoseconds to cycles. */
static void calibrate_clock(machine *m, const plan *pl, char *note, size_t notelen)
{
    double ghz = calibrate_clock_ghz(pl->clock_reps);
    if (ghz <= 0)
        return;
    note_add(note, notelen,
             "\nclock_ghz: %.3f (was %.3g): fastest of %d chains of 1.6e5 dependent adds, one cycle each", ghz,
             m->clock_ghz, pl->clock_reps);
    m->clock_ghz = ghz;
}

/* One pass over memory: latency, read and triad bandwidth, page faults. */
typedef struct mem_pass {
    double ns, read, triad, fault;
} mem_pass;

/* Measure one mem_pass; -1 when out of memory. */
static int memory_pass(const machine *m, const plan *pl, size_t mem, FILE *progress, int *step, int steps,
                       mem_pass *out)
{
    progress_line(progress, "memory latency", ++*step, steps);
    out->ns = chase_latency_ns(mem, m->cache[0].line, pl);
    progress_line(progress, "memory read bandwidth", ++*step, steps);
    out->read = out->ns > 0 ? stream_gbs(mem, pl) : -1;
    progress_line(progress, "memory triad bandwidth", ++*step, steps);
    out->triad = out->read > 0 ? triad_gbs(mem, pl) : -1;
    progress_line(progress, "page faults", ++*step, steps);
    out->fault = out->triad > 0 ? calibrate_page_fault_ns(pl->fault_bytes, pl->reps) : -1;
    return out->fault < 0 ? -1 : 0;
}

/* The better of two passes, field by field: less time, more bandwidth. */
static void keep_best(mem_pass *a, const mem_pass *b)
{
    a->ns = b->ns < a->ns ? b->ns : a->ns;
    a->read = b->read > a->read ? b->read : a->read;
    a->triad = b->triad > a->triad ? b->triad : a->triad;
    a->fault = b->fault < a->fault ? b->fault : a->fault;
}

/* The memory figures into m and note. */
static void apply_memory(machine *m, const plan *pl, size_t mem, const mem_pass *p, char *note, size_t notelen)
{
    m->mem_latency_ns = p->ns;
    m->mem_bandwidth_core_gbs = p->triad;
    if (m->mem_bandwidth_gbs < p->triad)
        m->mem_bandwidth_gbs = p->triad; /* all cores reach at least what one does */
    m->page_fault_ns = p->fault;
    note_add(note, notelen,
             "\nmemory: %.1f ns (chase over %zu MiB); one core's bandwidth: read %.2f GB/s (read-sum of %zu MiB), "
             "triad %.2f GB/s (a = b + 3c over 3 x %zu MiB, 32 B per element: write-allocate and write-back "
             "included), best of %d; bandwidth_core_gbs is the triad's; bandwidth_gbs (all cores) is not measured."
             "\npage_fault_ns: %.0f ns per first touch of a fresh 4 KiB page (least of %d maps of %zu MiB)",
             p->ns, mem >> 20, p->read, mem >> 20, p->triad, mem >> 22, pl->reps, p->fault, pl->reps,
             pl->fault_bytes >> 20);
}

/* Latencies of levels [0, n) and the memory figures, in two passes, then
 * the last level's sweep: each figure is the better of the two passes,
 * since on a shared host a burst of other work can spoil every repetition
 * of one pass (measured here: memory 268 ns in one pass, 148 in the next). */
static int calibrate_passes(machine *m, const plan *pl, FILE *progress, int steps, char *note, size_t notelen)
{
    uint32_t sweep = m->ncaches >= 2; /* the last level is swept once memory's latency is known */
    uint32_t n = m->ncaches - sweep;
    double ns[MACHINE_MAX_CACHES], again[MACHINE_MAX_CACHES];
    mem_pass first, second;
    int step = 0;
    size_t mem = memory_bytes(m, pl); /* from the detected last level, before the sweep changes it */
    if (cache_pass(m, n, pl, progress, &step, steps, ns) != 0 ||
        memory_pass(m, pl, mem, progress, &step, steps, &first) != 0 ||
        cache_pass(m, n, pl, progress, &step, steps, again) != 0 ||
        memory_pass(m, pl, mem, progress, &step, steps, &second) != 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        ns[i] = again[i] < ns[i] ? again[i] : ns[i];
        m->cache[i].latency = ns[i] * m->clock_ghz;
        note_add(note, notelen, "\n%s: %.2f ns = %.1f cycles (chase over %llu KiB)", m->cache[i].name, ns[i],
                 m->cache[i].latency, (unsigned long long)(m->cache[i].size / 2 / 1024));
    }
    keep_best(&first, &second);
    apply_memory(m, pl, mem, &first, note, notelen);
    return sweep ? calibrate_last_level(m, pl, ns[n - 1], first.ns, progress, ++step, steps, note, notelen) : 0;
}

int machine_calibrate(machine *m, int quick, FILE *progress, char *note, size_t notelen, char *err, size_t errlen)
{
    plan pl = quick ? (plan){3, 500000, 512u << 20, 101, 64u << 20} : (plan){11, 1000000, 1u << 30, 301, 256u << 20};
    int steps = 2 * ((int)m->ncaches - (m->ncaches >= 2) + 4) + (m->ncaches >= 2);
    calibrate_clock(m, &pl, note, notelen);
    note_add(note, notelen,
             "\nCalibrated by 'augur machine calibrate%s': pointer-chase latencies (least of %d runs of "
             "%zu dependent loads), cycles at clock_ghz %.3f; every latency and bandwidth is the better of two "
             "passes, before and after the last level's sweep:",
             quick ? " --quick" : "", pl.reps, pl.steps, m->clock_ghz);
    if (calibrate_passes(m, &pl, progress, steps, note, notelen) != 0) {
        snprintf(err, errlen, "out of memory for a %zu MiB buffer (free memory, or use --quick)",
                 memory_bytes(m, &pl) >> 20);
        return -1;
    }
    /* a measurement spoilt past a limit (a latency of more than 100 us under
     * extreme load) is refused as a file with it would be */
    return machine_validate(m, "the calibrated description", err, errlen);
}

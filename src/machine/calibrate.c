/* calibrate.c — the host's latencies and bandwidths, measured (machine.h,
 * machine_calibrate): a pointer chase through a random cyclic permutation
 * of cache lines over half of each cache level, over a sweep from twice the
 * level above to half the last level, and over a buffer well past the last
 * level (each load depends on the one before, so the time per step is the
 * load-to-use latency); a read-sum and a STREAM triad over buffers of that
 * size for one core's streaming bandwidth; the clock and the page-fault
 * cost are calibrate_probes.c's.  Buffers are 2 MiB aligned and advised to
 * transparent huge pages so TLB misses stay out of the cache latencies.
 *
 * What a TLB miss costs: chases over 4 KiB pages, a line a page against
 * the same lines in fewer pages (calibrate_rules.h, cal_tlb_plan_for), for
 * a first-level miss and a page walk; they become the miss_latency_cycles
 * of the 4 KiB TLBs.
 *
 * The share of the core's integer throughput this hardware thread gets
 * (four independent add chains against what they reach on a core of their
 * own, cal_probe_adds_per_cycle, at the clock measured) becomes
 * core.throughput_share.
 *
 * Every quantity is measured once per round, the rounds one after the
 * other, each time as many short timed pieces; calibrate_rules.c says what
 * the rounds make (least time, most bandwidth, refusal when they disagree)
 * and this file applies it to the description and says what changed. */
#define _GNU_SOURCE /* madvise's MADV_HUGEPAGE, open_memstream */
#include "machine/machine.h"

#include "machine/calibrate_probes.h"
#include "machine/calibrate_rules.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define HUGE_PAGE (2u << 20)
#define MAX_CHASES (MACHINE_MAX_CACHES + 64) /* levels, a sweep of at most 63 doublings, memory */
#define MAX_SERIES (MAX_CHASES + 5 + CAL_TLB_CHASES)
#define MAX_CHANGES (2 * MACHINE_MAX_CACHES + 9)
#define SMALL_PAGE 4096u

/* How much measuring a run does. */
typedef struct plan {
    int rounds;          /* interleaved rounds, at most CAL_MAX_ROUNDS */
    int pieces;          /* timed pieces per quantity per round, at most CAL_MAX_PIECES */
    double piece_ns;     /* a chase piece's length: well inside a time slice under load */
    int clock_chains;    /* add chains per round; the round's clock is the fastest */
    size_t fault_pages;  /* fresh pages touched per page-fault piece */
    size_t stream_piece; /* bytes a bandwidth piece moves */
    uint64_t mem_cap;    /* largest buffer for memory, bytes */
} plan;

static const plan quick_plan = {5, 15, 5e4, 20, 64, 1u << 20, 512u << 20};
static const plan full_plan = {11, 41, 5e4, 33, 64, 1u << 20, 512u << 20};

/* One pointer-chase buffer and where its chase goes on from. */
typedef struct chase_buf {
    uint64_t bytes;
    char *buf;
    size_t lines; /* cache lines in its cycle */
    size_t steps; /* loads per timed piece */
    void **at;    /* the next load's address: a piece goes on where the last stopped */
    int warm;     /* a cache level's buffer: one untimed lap before each round's pieces */
    uint32_t per_page; /* 0: lines side by side on huge pages; else a TLB chase's
                          lines a 4 KiB page (cal_tlb_chase), huge pages advised against */
} chase_buf;

/* Everything measured: the buffers, and a series per quantity in the order
 * clock, chases (levels but the last at half their size, the last level's
 * sweep, memory), read-sum, triad, page faults, throughput share. */
typedef struct bench {
    plan pl;
    int nchase, nlevels, nsweep; /* chases: nlevels half-size levels, nsweep sweep buffers, memory */
    chase_buf ch[MAX_CHASES];
    const uint64_t *read; /* the read-sum's stream: memory's chase buffer */
    size_t read_words, read_at;
    double *a, *b, *c; /* the triad's arrays */
    size_t triad_n, triad_at;
    double adds_per_cycle; /* what the probe reaches on a core of its own (cal_probe_adds_per_cycle) */
    cal_tlb_plan tp;
    chase_buf tlb[CAL_TLB_CHASES]; /* the TLB chases; bytes 0: not measured */
    cal_series s[MAX_SERIES];
} bench;

enum { S_CLOCK = 0 };
#define S_CHASE(i) (1 + (i))
#define S_READ(b) (1 + (b)->nchase)
#define S_TRIAD(b) (2 + (b)->nchase)
#define S_FAULT(b) (3 + (b)->nchase)
#define S_SHARE(b) (4 + (b)->nchase)
#define S_TLB(b, k) (5 + (b)->nchase + (k))
#define S_LAST(b) S_TLB(b, CAL_TLB_CHASES - 1)
#define S_MEM(b) S_CHASE((b)->nchase - 1)

/* xorshift64*: a deterministic stream, so runs chase the same cycle. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* A 2 MiB-aligned buffer of `bytes` (rounded up), advised to huge pages,
 * or against them when !huge; NULL when out of memory. */
static void *page_alloc(size_t bytes, int huge)
{
    size_t size = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = aligned_alloc(HUGE_PAGE, size);
    if (p) /* advice only: the cache chases keep TLB misses out, the TLB chases in */
        madvise(p, size, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    return p;
}

/* page_alloc(bytes, 1): a buffer advised to huge pages. */
static void *huge_alloc(size_t bytes)
{
    return page_alloc(bytes, 1);
}

/* The address of line i of a chase: i lines in when per_page is 0; else
 * line i % per_page of 4 KiB page i / per_page, the lines of each page
 * turned by 7 lines a page so that a line a page still spreads over every
 * set of a cache indexed within the page. */
static char *node_at(char *buf, size_t i, size_t line, uint32_t per_page)
{
    if (per_page == 0)
        return buf + i * line;
    size_t page = i / per_page, page_lines = SMALL_PAGE / line;
    return buf + page * SMALL_PAGE + (i % per_page + page * 7) % page_lines * line;
}

/* Link the n lines of buf (placed by node_at) into one random cycle
 * (Sattolo's algorithm: every line is visited once per n steps).
 * Returns -1 when out of memory. */
static int link_cycle(char *buf, size_t n, size_t line, uint32_t per_page)
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
        *(void **)node_at(buf, i, line, per_page) = node_at(buf, next[i], line, per_page);
    free(next);
    return 0;
}

/* Follow `steps` links from p and return where they end; the loads are
 * dependent, so none overlap.  The empty asm takes the end pointer, so the
 * loop stays at -O2. */
static void **chase(void **p, size_t steps)
{
    for (size_t i = 0; i < steps; i++)
        p = (void **)*p;
    __asm__ volatile("" : "+r"(p));
    return p;
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

/* One pass of a[i] = b[i] + 3 c[i] over n doubles. */
static void triad(double *a, const double *b, const double *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] + 3.0 * c[i];
    __asm__ volatile("" : : "r"(a) : "memory");
}

/* "16 KiB" or "128 MiB". */
static void size_text(uint64_t bytes, char *buf, size_t len)
{
    if (bytes % (1u << 20) == 0)
        snprintf(buf, len, "%llu MiB", (unsigned long long)(bytes >> 20));
    else
        snprintf(buf, len, "%llu KiB", (unsigned long long)(bytes >> 10));
}

/* Loads per piece of about piece_ns, from the fastest of three probes of
 * 256 loads (a probe a preemption hits only shortens the pieces). */
static size_t piece_steps(chase_buf *c, double piece_ns)
{
    double best = INFINITY;
    for (int k = 0; k < 3; k++) {
        double t0 = calibrate_now_ns();
        c->at = chase(c->at, 256);
        double ns = (calibrate_now_ns() - t0) / 256;
        best = ns < best ? ns : best;
    }
    double steps = piece_ns / (best > 0 ? best : 1);
    return steps < 64 ? 64 : steps > (1 << 22) ? 1 << 22 : (size_t)steps;
}

/* Allocate, link and time-probe chase c of `lines` lines over `bytes`
 * (c->per_page set); -1 when out of memory. */
static int chase_setup(chase_buf *c, uint64_t bytes, size_t lines, size_t line, int warm, double piece_ns)
{
    c->bytes = bytes;
    c->lines = lines;
    c->warm = warm;
    if (!(c->buf = page_alloc(bytes, c->per_page == 0)) || link_cycle(c->buf, c->lines, line, c->per_page) != 0)
        return -1;
    c->at = (void **)node_at(c->buf, 0, line, c->per_page);
    if (warm)
        c->at = chase(c->at, c->lines);
    c->steps = piece_steps(c, piece_ns);
    return 0;
}

/* A chase over `bytes`, its series named "WHAT (chase over SIZE)"; -1 when
 * out of memory. */
static int chase_init(bench *b, uint64_t bytes, size_t line, int warm, const char *what)
{
    chase_buf *c = &b->ch[b->nchase];
    cal_series *s = &b->s[S_CHASE(b->nchase)];
    char size[32];
    size_text(bytes, size, sizeof size);
    snprintf(s->what, sizeof s->what, "%s (chase over %s)", what, size);
    s->unit = "ns";
    b->nchase++;
    return chase_setup(c, bytes, bytes / line, line, warm, b->pl.piece_ns);
}

/* The TLB chases of cal_tlb_plan_for, their series named "TLB WHAT (N
 * lines in P 4 KiB pages)"; -1 when out of memory. */
static int tlb_init(bench *b, const machine *m)
{
    static const char *const what[CAL_TLB_CHASES] = {"first-level miss", "first-level base", "walk",
                                                     "walk base", "far walk", "far walk base"};
    cal_tlb_plan_for(m, &b->tp);
    size_t line = m->cache[0].line;
    for (int k = 0; k < CAL_TLB_CHASES; k++) {
        const cal_tlb_chase *t = &b->tp.ch[k];
        if (!t->pages)
            continue;
        cal_series *s = &b->s[S_TLB(b, k)];
        size_t lines = (size_t)t->pages * t->per_page;
        snprintf(s->what, sizeof s->what, "TLB %s (%zu lines in %u 4 KiB pages)", what[k], lines, t->pages);
        s->unit = "ns";
        b->tlb[k].per_page = t->per_page;
        if (chase_setup(&b->tlb[k], (uint64_t)t->pages * SMALL_PAGE, lines, line, 1, b->pl.piece_ns) != 0)
            return -1;
    }
    return 0;
}

/* The memory buffer: 4x the last level, at least 64 MiB, at most the cap. */
static uint64_t memory_bytes(const machine *m, const plan *pl)
{
    uint64_t b = 4 * m->cache[m->ncaches - 1].size;
    if (b < (64u << 20))
        b = 64u << 20;
    return b < pl->mem_cap ? b : pl->mem_cap;
}

/* The chase buffers: levels but the last at half their size, at most 4x
 * the level above (cal_chase_bytes); the last
 * level's sweep, 2x the level above, 4x, ... up to half its size (none
 * when it is not 4x the level above; a single level is measured at half
 * its size); memory.  -1 when out of memory. */
static int chases_init(bench *b, const machine *m)
{
    size_t line = m->cache[0].line;
    uint32_t last = m->ncaches - 1;
    b->nlevels = last > 0 ? (int)last : 1;
    for (int i = 0; i < b->nlevels; i++) {
        char what[48];
        snprintf(what, sizeof what, "%s latency", m->cache[i].name);
        if (chase_init(b, cal_chase_bytes(m->cache[i].size, i > 0 ? m->cache[i - 1].size : 0), line, 1, what) != 0)
            return -1;
    }
    uint64_t from = last > 0 ? 2 * m->cache[last - 1].size : UINT64_MAX; /* one level: no sweep */
    for (uint64_t s = from; s <= m->cache[last].size / 2; s *= 2) {
        char what[48];
        snprintf(what, sizeof what, "%s sweep", m->cache[last].name);
        if (chase_init(b, s, line, 1, what) != 0)
            return -1;
        b->nsweep++;
    }
    return chase_init(b, memory_bytes(m, &b->pl), line, 0, "memory latency");
}

/* The streams of the bandwidths: the read-sum over memory's chase buffer,
 * the triad over three arrays of a quarter of it each, every page faulted
 * in before timing.  -1 when out of memory. */
static int streams_init(bench *b)
{
    const chase_buf *mem = &b->ch[b->nchase - 1];
    b->read = (const uint64_t *)mem->buf;
    b->read_words = mem->bytes / sizeof(uint64_t);
    b->triad_n = mem->bytes / 4 / sizeof(double);
    size_t bytes = b->triad_n * sizeof(double);
    if (!(b->a = huge_alloc(bytes)) || !(b->b = huge_alloc(bytes)) || !(b->c = huge_alloc(bytes)))
        return -1;
    memset(b->a, 0, bytes);
    memset(b->b, 0, bytes);
    memset(b->c, 0, bytes);
    char piece[32], size[32];
    size_text(b->pl.stream_piece, piece, sizeof piece);
    size_text(mem->bytes, size, sizeof size);
    snprintf(b->s[S_READ(b)].what, sizeof b->s[0].what, "read-sum bandwidth (%s pieces of %s)", piece, size);
    snprintf(b->s[S_TRIAD(b)].what, sizeof b->s[0].what, "triad bandwidth (%s pieces of 3 x %llu MiB)", piece,
             (unsigned long long)(bytes >> 20));
    b->s[S_READ(b)].unit = b->s[S_TRIAD(b)].unit = "GB/s";
    b->s[S_READ(b)].rate = b->s[S_TRIAD(b)].rate = 1;
    return 0;
}

static void bench_free(bench *b)
{
    for (int i = 0; i < b->nchase; i++)
        free(b->ch[i].buf);
    for (int k = 0; k < CAL_TLB_CHASES; k++)
        free(b->tlb[k].buf);
    free(b->a), free(b->b), free(b->c);
}

/* Set up every buffer and name every series; -1 when out of memory (what
 * was allocated is freed by bench_free). */
static int bench_init(bench *b, const machine *m, const plan *pl)
{
    memset(b, 0, sizeof *b);
    b->pl = *pl;
    snprintf(b->s[S_CLOCK].what, sizeof b->s[0].what, "clock (fastest of %d add chains)", pl->clock_chains);
    b->s[S_CLOCK].unit = "GHz";
    b->s[S_CLOCK].rate = 1;
    if (chases_init(b, m) != 0 || streams_init(b) != 0 || tlb_init(b, m) != 0)
        return -1;
    snprintf(b->s[S_FAULT(b)].what, sizeof b->s[0].what, "page fault and unmap (pieces of %zu fresh 4 KiB pages)",
             pl->fault_pages);
    b->s[S_FAULT(b)].unit = "ns";
    snprintf(b->s[S_SHARE(b)].what, sizeof b->s[0].what, "throughput share (4 add chains, fastest of %d)",
             pl->clock_chains);
    b->s[S_SHARE(b)].unit = "of the core";
    b->s[S_SHARE(b)].rate = 1;
    b->adds_per_cycle = cal_probe_adds_per_cycle(m);
    return 0;
}

/* The median ns per load of one round of c's pieces (after a lap that
 * brings a cache level's buffer back in). */
static double chase_round(chase_buf *c, const plan *pl, double *t)
{
    if (c->warm)
        c->at = chase(c->at, c->lines);
    for (int p = 0; p < pl->pieces; p++) {
        double t0 = calibrate_now_ns();
        c->at = chase(c->at, c->steps);
        t[p] = (calibrate_now_ns() - t0) / (double)c->steps;
    }
    return cal_median(t, (size_t)pl->pieces);
}

/* The median GB/s of one round of read-sum pieces, each going on where the
 * last stopped. */
static double read_round(bench *b, double *t)
{
    size_t words = b->pl.stream_piece / sizeof(uint64_t);
    for (int p = 0; p < b->pl.pieces; p++) {
        if (b->read_at + words > b->read_words)
            b->read_at = 0;
        double t0 = calibrate_now_ns();
        read_sum(b->read + b->read_at, words);
        t[p] = (double)b->pl.stream_piece / (calibrate_now_ns() - t0);
        b->read_at += words;
    }
    return cal_median(t, (size_t)b->pl.pieces);
}

/* The median GB/s of one round of triad pieces, counted as the bytes that
 * move: 32 per element (b and c read, a read for the write-allocate and
 * written back).  The memory model counts the same (a stored line's miss
 * and its write-back), so this prices mixed read and write streams as the
 * model sees them. */
static double triad_round(bench *b, double *t)
{
    size_t n = b->pl.stream_piece / 32;
    for (int p = 0; p < b->pl.pieces; p++) {
        if (b->triad_at + n > b->triad_n)
            b->triad_at = 0;
        size_t at = b->triad_at;
        double t0 = calibrate_now_ns();
        triad(b->a + at, b->b + at, b->c + at, n);
        t[p] = 32.0 * (double)n / (calibrate_now_ns() - t0);
        b->triad_at += n;
    }
    return cal_median(t, (size_t)b->pl.pieces);
}

/* The share of the core's integer throughput this thread gets at a clock
 * of ghz: the adds per cycle of four independent chains over what they
 * reach on a core of their own (the description's int_alu ports, or the
 * chains' latency where the ports are more than four), at most 1; 0 when
 * either is unknown (off x86-64, or no int_alu throughput described). */
static double thread_share(const bench *b, double ghz)
{
    double adds = calibrate_add_throughput(b->pl.clock_chains);
    if (!(ghz > 0) || !(adds > 0) || !(b->adds_per_cycle > 0))
        return 0;
    return fmin(1, adds / ghz / b->adds_per_cycle);
}

/* One round of every quantity into round r of its series; -1 when a fresh
 * mapping for the page faults fails. */
static int measure_round(bench *b, int r)
{
    double t[CAL_MAX_PIECES];
    b->s[S_CLOCK].round[r] = calibrate_clock_ghz(b->pl.clock_chains);
    for (int i = 0; i < b->nchase; i++)
        b->s[S_CHASE(i)].round[r] = chase_round(&b->ch[i], &b->pl, t);
    b->s[S_READ(b)].round[r] = read_round(b, t);
    b->s[S_TRIAD(b)].round[r] = triad_round(b, t);
    if (calibrate_page_fault_pieces(b->pl.fault_pages, b->pl.pieces, t) != 0)
        return -1;
    b->s[S_FAULT(b)].round[r] = cal_median(t, (size_t)b->pl.pieces);
    b->s[S_SHARE(b)].round[r] = thread_share(b, b->s[S_CLOCK].round[r]);
    for (int k = 0; k < CAL_TLB_CHASES; k++)
        if (b->tlb[k].buf)
            b->s[S_TLB(b, k)].round[r] = chase_round(&b->tlb[k], &b->pl, t);
    for (int i = 0; i <= S_LAST(b); i++)
        b->s[i].n = b->s[i].what[0] ? r + 1 : 0; /* a TLB chase not measured has no rounds */
    return 0;
}

/* The 1-minute load average, -1 when /proc/loadavg cannot be read. */
static double load_average(void)
{
    double load = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &load) != 1)
            load = -1;
        fclose(f);
    }
    return load;
}

/* A field calibrate changed. */
typedef struct change {
    char field[64];
    double was, now;
    const cal_series *s; /* the series it comes from */
} change;

/* What the measurements make of the description, before it is changed. */
typedef struct outcome {
    double ghz;                         /* the clock cycles are counted at */
    double ns[MACHINE_MAX_CACHES];      /* each level's hit latency; NAN: kept as described */
    const cal_series *from[MACHINE_MAX_CACHES]; /* the series of ns[] */
    cal_reach reach;                    /* the last level's, when it was swept */
    uint64_t last_size;                 /* the last level's size to write */
    int swept;
    double tlb_ns[CAL_TLB_CHASES];      /* at a chase's index: what its miss adds
                                           over its base (cal_tlb_cost); NAN: none */
} outcome;

/* What each TLB chase's miss adds over its base; marks the series of the
 * first-level and the walk pairs written when it is measurable (the far
 * pair is said only). */
static void decide_tlb(bench *b, outcome *out)
{
    for (int k = 0; k < CAL_TLB_CHASES; k++)
        out->tlb_ns[k] = NAN;
    for (int k = CAL_TLB_FIRST; k < CAL_TLB_CHASES; k += 2) {
        if (!b->tp.ch[k].pages)
            continue;
        out->tlb_ns[k] = cal_tlb_cost(cal_value(&b->s[S_TLB(b, k)]), cal_value(&b->s[S_TLB(b, k + 1)]));
        int written = !isnan(out->tlb_ns[k]) && k != CAL_TLB_FAR;
        b->s[S_TLB(b, k)].written = b->s[S_TLB(b, k + 1)].written = written;
    }
}

/* Each level's latency and the last level's size, as the rules say; marks
 * the series whose values are written. */
static void decide(bench *b, const machine *m, const machine_calibrate_options *o, outcome *out)
{
    cal_series *s = b->s;
    uint32_t last = m->ncaches - 1;
    out->ghz = cal_value(&s[S_CLOCK]) > 0 ? cal_value(&s[S_CLOCK]) : m->clock_ghz;
    s[S_CLOCK].written = cal_value(&s[S_CLOCK]) > 0; /* 0 off x86-64: the described clock stays */
    for (uint32_t i = 0; i < MACHINE_MAX_CACHES; i++)
        out->ns[i] = NAN;
    for (int i = 0; i < b->nlevels; i++) {
        s[S_CHASE(i)].written = 1;
        out->ns[i] = cal_value(&s[S_CHASE(i)]);
        out->from[i] = &s[S_CHASE(i)];
    }
    out->last_size = m->cache[last].size;
    out->swept = b->nsweep > 0;
    if (out->swept) {
        uint64_t bytes[MAX_CHASES];
        double typical[MAX_CHASES];
        for (int k = 0; k < b->nsweep; k++) {
            bytes[k] = b->ch[b->nlevels + k].bytes;
            typical[k] = cal_typical(&s[S_CHASE(b->nlevels + k)]);
        }
        cal_last_level_reach(&m->cache[last], &m->cache[last - 1], bytes, typical, b->nsweep, cal_value(&s[S_MEM(b)]),
                             &out->reach);
        /* a level that does not hold its size keeps its described latency
         * with its described size; --measured-capacity takes both from the sweep */
        int resized = o->measured_capacity && out->reach.size && !out->reach.holds;
        int k = out->reach.holds || resized ? out->reach.latency : -1;
        if (k >= 0) {
            out->from[last] = &s[S_CHASE(b->nlevels + k)];
            s[S_CHASE(b->nlevels + k)].written = 1;
            out->ns[last] = cal_value(out->from[last]);
        }
        if (resized)
            out->last_size = out->reach.size;
    }
    s[S_MEM(b)].written = s[S_TRIAD(b)].written = s[S_FAULT(b)].written = 1;
    s[S_SHARE(b)].written = cal_value(&s[S_SHARE(b)]) > 0;
    decide_tlb(b, out);
}

/* Set *field to now, and record the change when it is one. */
static void set_field(change *ch, int *n, const char *field, double *at, double now, const cal_series *s)
{
    if (*at != now && *n < MAX_CHANGES) {
        snprintf(ch[*n].field, sizeof ch[0].field, "%s", field);
        ch[*n].was = *at;
        ch[*n].now = now;
        ch[(*n)++].s = s;
    }
    *at = now;
}

/* Write the outcome and the memory figures into m; the changes into ch. */
static int apply(const bench *b, const outcome *out, machine *m, change *ch)
{
    int n = 0;
    uint32_t last = m->ncaches - 1;
    set_field(ch, &n, "core.clock_ghz", &m->clock_ghz, out->ghz, &b->s[S_CLOCK]);
    for (uint32_t i = 0; i < m->ncaches; i++) {
        char field[64];
        snprintf(field, sizeof field, "caches[%u].latency_cycles (%s)", i, m->cache[i].name);
        if (!isnan(out->ns[i]))
            set_field(ch, &n, field, &m->cache[i].latency, out->ns[i] * out->ghz, out->from[i]);
    }
    double size = (double)m->cache[last].size;
    char field[64];
    snprintf(field, sizeof field, "caches[%u].size (%s; --measured-capacity)", last, m->cache[last].name);
    set_field(ch, &n, field, &size, (double)out->last_size, NULL);
    m->cache[last].size = out->last_size;
    set_field(ch, &n, "memory.latency_ns", &m->mem_latency_ns, cal_value(&b->s[S_MEM(b)]), &b->s[S_MEM(b)]);
    double triad_gbs = cal_value(&b->s[S_TRIAD(b)]);
    set_field(ch, &n, "memory.bandwidth_core_gbs", &m->mem_bandwidth_core_gbs, triad_gbs, &b->s[S_TRIAD(b)]);
    if (m->mem_bandwidth_gbs < triad_gbs) /* all cores reach at least what one does */
        set_field(ch, &n, "memory.bandwidth_gbs", &m->mem_bandwidth_gbs, triad_gbs, &b->s[S_TRIAD(b)]);
    set_field(ch, &n, "memory.page_fault_ns", &m->page_fault_ns, cal_value(&b->s[S_FAULT(b)]), &b->s[S_FAULT(b)]);
    if (b->s[S_SHARE(b)].written)
        set_field(ch, &n, "core.throughput_share", &m->throughput_share, cal_value(&b->s[S_SHARE(b)]),
                  &b->s[S_SHARE(b)]);
    static const int pair[2] = {CAL_TLB_FIRST, CAL_TLB_WALK};
    int tlb[2] = {b->tp.first_tlb, b->tp.walk_tlb};
    for (int k = 0; k < 2; k++) {
        if (tlb[k] < 0 || !b->s[S_TLB(b, pair[k])].written)
            continue;
        machine_tlb *t = &m->tlb[tlb[k]];
        char field[64];
        snprintf(field, sizeof field, "tlbs[%d].miss_latency_cycles (%s)", tlb[k], t->name);
        set_field(ch, &n, field, &t->miss_latency, out->tlb_ns[pair[k]] * out->ghz, &b->s[S_TLB(b, pair[k])]);
    }
    return n;
}

/* What a TLB miss costs, chase by chase, and the page tables each walk
 * reads (8 bytes a page). */
static void say_tlb(FILE *t, const bench *b, const outcome *oc)
{
    static const char *const what[CAL_TLB_CHASES] = {"a first-level TLB miss", "", "a page walk", "",
                                                     "a page walk (not written)", ""};
    for (int k = CAL_TLB_FIRST; k < CAL_TLB_CHASES; k += 2) {
        const cal_tlb_chase *c = &b->tp.ch[k];
        if (!c->pages)
            continue;
        char ns[32], cycles[32], span[32], tables[32];
        size_text((uint64_t)c->pages * SMALL_PAGE, span, sizeof span);
        size_text((uint64_t)c->pages * 8, tables, sizeof tables);
        if (isnan(oc->tlb_ns[k])) {
            fprintf(t, "%s over %s of 4 KiB pages: not measurable (the chase is not slower than its base); its "
                       "miss_latency_cycles stays as described\n", what[k], span);
            continue;
        }
        cal_figure(oc->tlb_ns[k], ns, sizeof ns);
        cal_figure(oc->tlb_ns[k] * oc->ghz, cycles, sizeof cycles);
        fprintf(t, "%s over %s of 4 KiB pages (page tables %s) adds %s ns, %s cycles\n", what[k], span, tables, ns,
                cycles);
    }
}

/* A progress line on screen (may be NULL). */
__attribute__((format(printf, 2, 3))) static void progress(FILE *screen, const char *fmt, ...)
{
    if (!screen)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("calibrating: ", screen);
    vfprintf(screen, fmt, ap);
    fputs("...\n", screen);
    fflush(screen);
    va_end(ap);
}

/* How the figures were measured and combined. */
static void say_plan(FILE *t, const plan *pl, const machine_calibrate_options *o)
{
    char when[32];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M", localtime(&now));
    fprintf(t,
            "Calibrated by 'augur machine calibrate%s' (%s): %d rounds of every figure, interleaved; a round's "
            "figure is the median of %d timed pieces (chases of about %.0f us, %zu KiB streams, %zu-page faults); "
            "a time is the least of its rounds, a bandwidth or the clock the most; every figure written is "
            "within %.2fx of the median of its rounds (--tolerance); cycles at the clock measured.\n",
            o->quick ? " --quick" : "", when, pl->rounds, pl->pieces, pl->piece_ns / 1e3, pl->stream_piece >> 10,
            pl->fault_pages, o->tolerance);
}

/* The load average at the start and the end, with a warning when either
 * is above the CPUs. */
static void say_load(FILE *t, double start, double end)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (start < 0 || end < 0) {
        fputs("load average: /proc/loadavg cannot be read\n", t);
        return;
    }
    fprintf(t, "load average (1 min): %.2f at the start, %.2f at the end, on %ld CPUs\n", start, end, cpus);
    double most = start > end ? start : end;
    if (cpus > 0 && most > (double)cpus)
        fprintf(t, "warning: the load average, %.2f, is above the %ld CPUs: other processes share the cores, caches "
                   "and memory, so these figures are the host's under that load (calibrate an idle machine for a "
                   "description to keep)\n",
                most, cpus);
}

/* Every series: its rounds, value and spread. */
static void say_figures(FILE *t, const bench *b)
{
    for (int i = 0; i <= S_LAST(b); i++) {
        const cal_series *s = &b->s[i];
        if (s->n == 0)
            continue; /* a TLB chase the description gives no TLB for */
        char rounds[512], value[32], spread[64];
        cal_rounds_text(s, rounds, sizeof rounds);
        cal_figure(cal_value(s), value, sizeof value);
        cal_spread_text(s, spread, sizeof spread);
        fprintf(t, "%s: %s; %s %s (%s)%s\n", s->what, rounds, s->rate ? "most" : "least", value, spread,
                s->written ? "" : ", not written");
    }
}

/* What the last level's sweep says of its reported size, and what was
 * done about it. */
static void say_reach(FILE *t, const bench *b, const machine *m, const outcome *oc,
                      const machine_calibrate_options *o)
{
    uint32_t last = m->ncaches - 1;
    const machine_cache *c = &m->cache[last];
    if (last == 0)
        return;
    if (!oc->swept) {
        fprintf(t, "%s: not swept (not 4x the size of %s); its latency_cycles is kept as described\n", c->name,
                m->cache[last - 1].name);
        return;
    }
    const cal_reach *r = &oc->reach;
    char largest[32], reported[32], over[32], mid[32], mem[32], first[32], first_ns[32], reach[32];
    size_text(b->ch[b->nlevels + b->nsweep - 1].bytes, largest, sizeof largest); /* at most half the level */
    size_text(c->size, reported, sizeof reported);
    size_text(b->ch[b->nlevels + r->fit + 1 < b->nlevels + b->nsweep ? b->nlevels + r->fit + 1 : 0].bytes, over,
              sizeof over); /* the first buffer above the midpoint, when it does not hold */
    cal_figure(r->mid_ns, mid, sizeof mid);
    size_text(b->ch[b->nlevels].bytes, first, sizeof first);
    cal_figure(cal_typical(&b->s[S_CHASE(b->nlevels)]), first_ns, sizeof first_ns);
    cal_figure(cal_value(&b->s[S_MEM(b)]), mem, sizeof mem);
    if (r->holds) {
        fprintf(t, "%s holds its reported %s: every chase up to %s is typically below the midpoint %s ns of "
                   "the chase over %s (%s ns) and memory (%s ns)\n",
                c->name, reported, largest, mid, first, first_ns, mem);
        return;
    }
    size_text(r->size, reach, sizeof reach);
    fprintf(t, "warning: %s: the chase over %s, within the %s reported, is typically above the midpoint %s ns of "
               "the chase over %s (%s ns) and memory (%s ns): this core reaches about %s of it (a cache shared with "
               "other cores or tenants)",
            c->name, over, reported, mid, first, first_ns, mem, r->size ? reach : "none");
    if (!o->measured_capacity || !r->size) {
        fprintf(t, "; its size stays %s as reported, and its latency_cycles as described%s\n", reported,
                r->size ? " (--measured-capacity takes both from the sweep)" : "");
        return;
    }
    fprintf(t, "; --measured-capacity: its size becomes %s\n", reach);
    if (r->latency >= 0) {
        fprintf(t, "%s latency: the chase over %s (twice %s: the sweep's buffer with the most hits)\n", c->name,
                first, m->cache[last - 1].name);
    } else
        fprintf(t, "%s latency: no chase is typically below the midpoint, so its latency_cycles is kept as "
                   "described\n",
                c->name);
}

/* Every field changed, was -> now, with the spread of its rounds. */
static void say_changes(FILE *t, const change *ch, int n)
{
    fprintf(t, "changed (was -> now)%s\n", n ? ":" : ": nothing");
    for (int i = 0; i < n; i++) {
        char now[32];
        if (ch[i].s)
            cal_figure(ch[i].now, now, sizeof now);
        else
            snprintf(now, sizeof now, "%.0f", ch[i].now);
        fprintf(t, "  %s: %.15g -> %s", ch[i].field, ch[i].was, now);
        char spread[64];
        if (ch[i].s) {
            cal_spread_text(ch[i].s, spread, sizeof spread);
            fprintf(t, " (rounds: %s)\n", spread);
        } else
            fputs(" (the sweep's reach)\n", t);
    }
}

/* Append "\n" and text, without its last newline, to note. */
static void note_add(char *note, size_t notelen, const char *text)
{
    size_t len = strlen(note), n = strlen(text);
    if (len < notelen)
        snprintf(note + len, notelen - len, "\n%.*s", (int)(n - (n && text[n - 1] == '\n')), text);
}

/* Measure every round into b; -1 with err when a page-fault mapping fails. */
static int measure(bench *b, FILE *screen, char *err, size_t errlen)
{
    for (int r = 0; r < b->pl.rounds; r++) {
        progress(screen, "round %d/%d", r + 1, b->pl.rounds);
        if (measure_round(b, r) != 0) {
            snprintf(err, errlen, "cannot map %zu KiB for the page-fault pieces: %s (free memory)",
                     b->pl.fault_pages * (size_t)b->pl.pieces * 4, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* The figures made into m, said in *text (a new string); -1 with err, m
 * unchanged, when the rounds of a written figure disagree beyond the
 * tolerance. */
static int conclude(bench *b, machine *m, const machine_calibrate_options *o, double load_start, char **text,
                    char *err, size_t errlen)
{
    size_t len;
    FILE *t = open_memstream(text, &len);
    if (!t) {
        snprintf(err, errlen, "out of memory for calibrate's report");
        return -1;
    }
    outcome oc;
    char disagree[3072];
    double load_end = load_average();
    decide(b, m, o, &oc);
    say_plan(t, &b->pl, o);
    say_load(t, load_start, load_end);
    say_figures(t, b);
    say_reach(t, b, m, &oc, o);
    say_tlb(t, b, &oc);
    int bad = cal_disagreements(b->s, (size_t)S_LAST(b) + 1, o->tolerance, disagree, sizeof disagree);
    if (!bad) {
        change ch[MAX_CHANGES];
        say_changes(t, ch, apply(b, &oc, m, ch));
    }
    fclose(t);
    if (bad)
        snprintf(err, errlen, "the rounds disagree: fewer than half of them lie within %.2fx (--tolerance) of the "
                 "figure taken: %s; load average %.2f on %ld CPUs; nothing was written (calibrate again on an idle "
                 "machine%s, or accept more spread with --tolerance)",
                 o->tolerance, disagree, load_end, sysconf(_SC_NPROCESSORS_ONLN),
                 o->quick ? ", or without --quick: more pieces a round" : "");
    return bad ? -1 : 0;
}

int machine_calibrate(machine *m, const machine_calibrate_options *o, FILE *screen, char *note, size_t notelen,
                      char *err, size_t errlen)
{
    const plan *pl = o->quick ? &quick_plan : &full_plan;
    double load_start = load_average();
    bench *b = calloc(1, sizeof *b);
    progress(screen, "setting up the buffers");
    if (!b || bench_init(b, m, pl) != 0) {
        uint64_t mem = memory_bytes(m, pl);
        snprintf(err, errlen, "out of memory for the buffers (a %llu MiB memory chase, 3 x %llu MiB triad arrays, "
                 "the cache levels' and the TLBs' chases): free memory and calibrate again",
                 (unsigned long long)(mem >> 20), (unsigned long long)(mem >> 22));
        if (b)
            bench_free(b);
        free(b);
        return -1;
    }
    char *text = NULL;
    int rc = measure(b, screen, err, errlen);
    if (rc == 0) {
        rc = conclude(b, m, o, load_start, &text, err, errlen);
        if (screen && text)
            fputs(text, screen);
        if (rc == 0)
            note_add(note, notelen, text);
        /* a measurement spoilt past a limit (a latency of more than 100 us
         * under extreme load) is refused as a file with it would be */
        if (rc == 0)
            rc = machine_validate(m, "the calibrated description", err, errlen);
    }
    free(text);
    bench_free(b);
    free(b);
    return rc;
}

/* calibrate_rules.h — what `augur machine calibrate` makes of its
 * measurements (calibrate.c measures; docs/machines.md, "calibrate"):
 *
 *   - each quantity is measured in rounds, interleaved with the others, so
 *     that a burst of other work spoils one round of everything rather than
 *     every round of one thing;
 *   - a round's figure is the median of many short timed pieces (a piece that
 *     a preemption or an interrupt hits is an outlier the median ignores);
 *   - the quantity's value is the least of its rounds for a time (other
 *     processes only add time) and the most for a rate (they only take
 *     bandwidth away);
 *   - rounds whose figures differ by more than a tolerance (max / min) make
 *     the calibration refuse: the figures are the load's, not the host's;
 *   - the last cache level's reach, from a sweep of chases of growing size,
 *     is compared with the size hwloc reports.
 *
 * No measuring here, so that unit tests (tests/unit/test_calibrate.c) can
 * give these rules synthetic series.  Internal to src/machine. */
#ifndef AUGUR_CALIBRATE_RULES_H
#define AUGUR_CALIBRATE_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "machine/machine.h"

#define CAL_MAX_ROUNDS 16
#define CAL_MAX_PIECES 64

/* One measured quantity: its figure in each round. */
typedef struct cal_series {
    char what[64];    /* "L2 latency (chase over 256 KiB)" */
    const char *unit; /* "ns", "GB/s", "GHz", "ns per page" */
    int rate;         /* 1: more is better (a bandwidth, the clock); 0: a time */
    int written;      /* 1: its value goes into the description, so the tolerance holds it */
    int n;            /* rounds measured, at most CAL_MAX_ROUNDS */
    double round[CAL_MAX_ROUNDS];
} cal_series;

/* The median of x[0..n) (n >= 1); x is sorted in place. */
double cal_median(double *x, size_t n);

/* The series' value: the most of its rounds for a rate, the least for a
 * time; NAN when it has no rounds. */
double cal_value(const cal_series *s);

/* The series' typical round: the median of its rounds (NAN with none). */
double cal_typical(const cal_series *s);

/* How far its rounds disagree: the most over the least (1 when they agree,
 * infinity when a round is 0 or below; NAN with no rounds). */
double cal_spread(const cal_series *s);

/* How far the value is from its typical round: the median of the rounds
 * over the least for a time, the most over the median for a rate (>= 1;
 * infinity when a round is 0 or below; NAN with no rounds).  At most T
 * when at least half the rounds lie within the factor T of the value: the
 * value is reproduced, not a fluke, though a burst of load may have hit
 * the other rounds. */
double cal_agreement(const cal_series *s);

/* The rounds as "3.84, 9.61, 4.02 ns" (3 significant digits, no exponent)
 * into buf. */
void cal_rounds_text(const cal_series *s, char *buf, size_t len);

/* The series' agreement and spread as "median/least 1.05, max/min 2.87"
 * ("most/median" for a rate) into buf. */
void cal_spread_text(const cal_series *s, char *buf, size_t len);

/* A figure with 3 significant digits and no exponent ("3.84", "4.00",
 * "27.7", "223"; 1234 is "1230"): measurements are not more precise than
 * that. */
void cal_figure(double x, char *buf, size_t len);

/* Each written series of s[0..n) whose agreement exceeds `tolerance`, as
 * "L2 latency (chase over 256 KiB) 3.84, 9.61, 9.02 ns (median/least 2.35)"
 * joined by "; " into msg (empty when none).  Returns how many. */
int cal_disagreements(const cal_series *s, size_t n, double tolerance, char *msg, size_t len);

/* The bytes of the chase that measures the hit latency of a level of
 * `size` bytes below a level of `above` bytes (0: the first level): half
 * the level, but no more than 4 times the level above.  A cyclic chase
 * larger than the level above misses it on every load (LRU, and the
 * pseudo-LRU of real caches, evicts a line a lap before its next use), so
 * 4x is a buffer the level above cannot hold; and the smaller the buffer,
 * the more of it survives a tenant sharing the level (a hardware thread
 * on the same core) and the sooner a lap brings it back after another
 * process ran.  Measured on the Emerald Rapids guest (2 MiB L2, 48 KiB
 * L1) at load 8: the chase over 1 MiB read 102-146 ns in rounds where the
 * L2 had been emptied, and refused calibration after calibration. */
uint64_t cal_chase_bytes(uint64_t size, uint64_t above);

/* The adds per cycle that calibrate's throughput probe (four independent
 * chains of 8 dependent 64-bit adds and a fused dec-jnz an iteration,
 * calibrate_probes.c) reaches on a core of description m that it has to
 * itself: an iteration takes the longest of its chains' latency (8 adds
 * each), its 33 uops on the int_alu ports, and their issue.  32 adds over
 * the ports' 33 uops on 4 int_alu ports (zen3: 8.25 cycles, 3.88 adds a
 * cycle); the chains' 8 cycles on 5 (Golden Cove: 4 adds a cycle, not the
 * ports' 4.85, which four chains cannot fill).  0 when the int_alu class
 * has no throughput. */
double cal_probe_adds_per_cycle(const machine *m);

/* The TLB probes: chases over 4 KiB pages (huge pages advised against),
 * each a cycle through `per_page` lines of each of `pages` pages, so that
 * a chase and its base touch as many lines (the same cache level serves
 * both) and differ only in how many pages they spread over:
 *
 *   first     pages = 4 x the first-level 4 KiB TLB's entries (at most
 *             half the L1's lines, a multiple of the lines of a page, and
 *             at least twice the entries), a line each: every load misses
 *             the first level and hits the second;
 *   its base  the same lines packed into whole pages, which that TLB
 *             holds: no miss;
 *   walk      2 x the second-level 4 KiB TLB's entries, a line each: every
 *             load misses both levels (a cyclic chase over twice the
 *             entries) and walks the page tables, whose entries (8 bytes a
 *             page: the chase's pages / 512) stay in the caches near the
 *             core.  Not 4 x: on the Emerald Rapids guest at load 7 the
 *             chase over 8192 pages (512 KiB of lines in the L2) read
 *             26-274 ns from round to round, and its calibrations refused;
 *             over 4096 pages, 9 of 9 were taken;
 *   far       the same at 32 x the entries (the page tables 16 times
 *             larger, and the lines further out);
 *   bases     the walk's and the far chase's lines in half the second
 *             level's entries of pages (2 x 2 and 2 x 32 lines a page): every
 *             load misses the first level and hits the second.
 *
 * A chase's cost over its base is what a miss adds: the first's the
 * first-level miss (miss_latency_cycles of the first-level 4 KiB TLB), the
 * walk's the second-level miss (of the second-level 4 KiB TLB); the far
 * one is said, not written.  Measured on the Emerald Rapids guest:
 * docs/machines.md, "TLB misses". */
enum {
    CAL_TLB_FIRST,
    CAL_TLB_FIRST_BASE,
    CAL_TLB_WALK,
    CAL_TLB_WALK_BASE,
    CAL_TLB_FAR,
    CAL_TLB_FAR_BASE,
    CAL_TLB_CHASES
};

/* One TLB chase's shape; pages 0: not measured. */
typedef struct cal_tlb_chase {
    uint32_t pages;    /* 4 KiB pages its lines lie in */
    uint32_t per_page; /* its lines in each page, at most 4096 / line */
} cal_tlb_chase;

typedef struct cal_tlb_plan {
    cal_tlb_chase ch[CAL_TLB_CHASES];
    int first_tlb, walk_tlb; /* indices into m->tlb of the first- and second-level
                                4 KiB TLBs the chases price; -1: none */
} cal_tlb_plan;

/* The TLB chases for description m, as above: the first-level pair when
 * m has a first-level 4 KiB TLB and its chase fits the rules, the walk and
 * far pairs when it has a second-level one. */
void cal_tlb_plan_for(const machine *m, cal_tlb_plan *p);

/* The nanoseconds a TLB miss adds: a chase's value (its least round) less
 * its base's; NAN when that is not above 0 (nothing measurable: the
 * described miss_latency_cycles stays). */
double cal_tlb_cost(double ns, double base_ns);

/* The last level as one core sees it, from a sweep of chases over buffers
 * bytes[0..nb) (growing; the first twice the level above, the last half the
 * reported size) whose typical rounds (cal_typical) took ns[0..nb), and
 * memory's latency: a buffer fits when its typical round is below the
 * midpoint of the first buffer's (the level's own latency: the buffer with
 * the most hits) and memory's, the half-way point of the step from the
 * level to memory (one that hits in one round of five, the other tenants of
 * a shared cache having left it alone for a moment, does not).  The level
 * above's latency is not the low end: where the level's own latency is
 * half of memory's (an Emerald Rapids guest: 127 ns over 4 to 128 MiB, 271
 * ns at 512 MiB), the midpoint of L2's and memory's runs through the
 * sweep, and its reach moved from 2.4 to 75 MiB from one calibration to
 * the next. */
typedef struct cal_reach {
    double mid_ns; /* the midpoint of the first buffer's latency and memory's */
    int fit;       /* the last buffer of the leading run below mid_ns, -1 when the first is not
                      (it is not faster than memory) */
    int holds;     /* every buffer is below mid_ns: the level holds half its reported size */
    int latency;   /* the buffer whose latency is the level's: the last (half the level) when it
                      holds, else the first (twice the level above: the most hits) when it is
                      below mid_ns; -1 when none is (the described latency stays) */
    uint64_t size; /* what the level holds as seen: the largest valid size (slices * line * ways
                      * 2^k) below the first buffer that does not fit (which a level of that size
                      would hold) and above the level above; with no fit buffer, the smallest
                      valid size above the level above; the reported size when it holds; 0 when
                      no valid size lies in between */
} cal_reach;

/* The reach of level c below `above`, as cal_reach says. */
void cal_last_level_reach(const machine_cache *c, const machine_cache *above, const uint64_t *bytes,
                          const double *ns, int nb, double mem_ns, cal_reach *out);

#endif

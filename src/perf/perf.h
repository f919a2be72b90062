/* perf.h — the performance models of a described machine (docs/
 * performance-model.md), one module per model, Kerncraft-style, and the
 * plain data they pass:
 *
 *   rd_dist.c      reuse-distance distributions: from a measured histogram
 *                  (rd_binrec) or from a histogram model at a parameter point
 *   cache_model.c  misses of one cache or TLB level from a distribution:
 *                  fully-associative cut with the set-associative (binomial)
 *                  correction; each level's geometry from the machine
 *   mem_model.c    memory time of a loop from its misses per level:
 *                  latency term over the overlap, bandwidth bound per level
 *   time_model.c   time of a loop from core cycles and memory time, with
 *                  the bound named; sums for functions and programs
 *   penalty_model.c  costs that do not overlap with a loop's work: page
 *                  faults of first touches, branch mispredictions (each
 *                  the refill plus its branch's resolution time)
 *   core_model.c   cycles per iteration of a loop body (core_model.h)
 *
 * Units: distances and capacities in blocks (lines or pages), times in
 * core cycles unless a name says seconds. */
#ifndef AUGUR_PERF_H
#define AUGUR_PERF_H

#include <stddef.h>
#include <stdint.h>

#include "machine/machine.h"
#include "model/model.h"
#include "perf/core_model.h"
#include "rd/rd.h"

/* ---- reuse-distance distributions (rd_dist.c) ---------------------------- */

/* `count` touches whose distances are spread evenly over [low, high);
 * low = high for touches all at one distance. */
typedef struct perf_rd_bin {
    double count, low, high;
} perf_rd_bin;

typedef struct perf_rd_dist {
    double cold;       /* first touches: a miss at every level */
    size_t nbins;
    perf_rd_bin *bins; /* ascending, not overlapping */
} perf_rd_dist;

/* A measured histogram as a distribution: each bin's touches at its mean
 * distance sum / count (low = high = the mean).  In regular code a bin
 * holds one distance, which this keeps exactly; the mean lies inside the
 * bin, so the fully-associative cut at a bin boundary (every cache size
 * with at most four significant bits) equals rd_misses'.  -1 when memory
 * runs out.  Free with perf_rd_dist_free. */
int perf_rd_dist_measured(uint64_t cold, const rd_binrec *bins, size_t nbins, perf_rd_dist *out);

/* A histogram model's distribution at the parameter point x: the touches
 * between consecutive histogram bin boundaries b_k = rd_bin_low(k) are
 * rd_model_misses(m, x, b_k) - rd_model_misses(m, x, b_{k+1}), spread
 * evenly in between; so the fully-associative cut of the result equals
 * rd_model_misses at every bin boundary.  -1 when memory runs out. */
int perf_rd_dist_modeled(const rd_model *m, const double *x, perf_rd_dist *out);

/* Touches (cold included) the distribution describes. */
double perf_rd_dist_accesses(const perf_rd_dist *d);

void perf_rd_dist_free(perf_rd_dist *d);

/* ---- page distances from line distances (page_dist.c) ---------------------- */

/* Touches of d at distance `distance` or more, cold ones included: its
 * misses in a fully-associative LRU of that many blocks. */
double perf_rd_dist_beyond(const perf_rd_dist *d, double distance);

/* The distribution at a page size of the accesses whose distribution at
 * the line size is `line`, from `page`, the page-size one as modeled
 * alone, into *out (free with perf_rd_dist_free): `cold` first touches of
 * pages (at most line's: a page's first touch is one of its lines'), the
 * rest of line's accesses as touches spread over page's bins in page's
 * proportions, then, from the largest distance down, the touches beyond
 * which line has fewer moved to the bins below: a page's last touch is at
 * or after its line's, so at every access the distinct pages since it are
 * at most the distinct lines since the line's, and
 *     perf_rd_dist_beyond(out, D) <= perf_rd_dist_beyond(line, D)
 * at every bin's low end D.  Page models fitted at small sizes, where
 * arrays are a few pages, chase the rounding of those counts (hpccg's
 * first touches at N = 80 from N = 6..10: 1.6 times the run's); the line
 * models see 64 times the counts.  -1 when memory runs out. */
int perf_page_dist(const perf_rd_dist *page, const perf_rd_dist *line, double cold, perf_rd_dist *out);

/* ---- cache and TLB levels (cache_model.c) ---------------------------------- */

/* An LRU cache (or TLB) of `sets` sets of `ways` blocks each, seen from the
 * reuse-distance stream of every access at its block size.  sets = 1 is
 * fully associative. */
typedef struct perf_level {
    const char *name; /* "L1", "L2", "L1 DTLB 4K", ...: borrowed */
    uint32_t block;   /* bytes per line or page */
    double sets, ways;
    double miss_latency; /* TLB levels: cycles a miss adds (0 for caches) */
    uint32_t tlb_level;  /* TLB levels: 1 first, 2 second (its miss walks the
                            page tables); 0 for caches */
} perf_level;

/* Probability that an access of reuse distance d (real d >= 0: the
 * distinct blocks touched since its block's last touch) hits an LRU cache
 * of `sets` sets x `ways` ways, each of the d blocks falling into the
 * access's set with probability 1/sets independently:
 *     P(hit | d) = P(Binomial(d, 1/sets) < ways)
 *               = sum_{k < ways} C(d, k) s^-k (1 - 1/s)^(d-k).
 * With sets = 1 it is the fully-associative cut: 1 if d < ways, else 0. */
double perf_hit_probability(double d, double sets, double ways);

/* Misses of level L over distribution d: cold + sum over bins of
 * count * (1 - mean of P(hit | t) over t in [low, high)).  Fully
 * associative: the share of each bin at or above the capacity, exactly
 * (as rd_misses); set associative: the mean over 16 evenly spaced points
 * of the bin (midpoint rule), P(hit | low) for a bin at most one wide. */
double perf_level_misses(const perf_rd_dist *d, const perf_level *L);

/* Probability that an access of reuse distance d hits an LRU cache of
 * `sets` x `ways` when the d blocks touched since its last touch and its
 * own are consecutive blocks, as in the sweeps of affine loops: the n =
 * d + 1 blocks fall round-robin into the sets, q = floor(n / sets) into
 * each and one more into r = n - q * sets of them; a block hits when its
 * set holds at most `ways` of them:
 *     1 when q + [r > 0] <= ways,  0 when q > ways,
 *     (sets - r) * q / n when q = ways (the blocks of the sets with q).
 * So hits reach past the fully-associative capacity sets * ways, up to
 * sets * (ways + 1): an 80x80 matrix of doubles (800 blocks) in a 48 KiB
 * 12-way L1 (768 blocks) keeps 48% of its blocks, where the
 * fully-associative cut keeps none (issue 20).  sets = 1 is the cut. */
double perf_contiguous_hit(double d, double sets, double ways);

/* Misses of level L from d for accesses whose reuse footprints are
 * consecutive blocks (perf_contiguous_hit; bins spread as in
 * perf_level_misses). */
double perf_level_misses_contiguous(const perf_rd_dist *d, const perf_level *L);

/* A walk at a constant stride (docs/performance-model.md, "Strides"):
 * the magnitude of an instruction's dominant address delta in bytes (0:
 * none), and the mean accesses of a run at that stride before another
 * delta (a column of n lines: n). */
typedef struct perf_stride {
    double bytes, run;
} perf_stride;

/* The sets of a level of `sets` sets of `block`-byte lines that a walk
 * at `stride` bytes reaches: the distinct floor(i * stride / block) mod
 * sets over all i.  With g = gcd(stride, sets * block) it is sets when g
 * <= block, else sets * block / g (sets / gcd(stride / block, sets) when
 * block divides the stride: 1792 bytes of 64-byte lines in 64 sets, 16;
 * 4096 bytes, 1).  A stride below a block reaches every set. */
double perf_stride_sets(double stride, uint32_t block, double sets);

/* Probability that a touch at reuse distance d hits level L when it is
 * of a walk whose lines reach only P = `stream_sets` of L's S sets, in
 * runs of `run` lines (a column of a matrix).  Of the n = d + 1 lines
 * since its last touch (its own included), own = min(n, run) are its
 * run's, own / P in each of the P sets; of the other n - own, whole runs
 * of the walk (at most S / P - 1 of them) fill the sets the run does not
 * reach, as the next columns of a matrix do, and the rest spread over all
 * S sets.  The touch's set then holds
 *     own / P + (n - own - runs * run) / S
 * of them, dealt as if the n lines went round-robin into n / that many
 * sets (perf_contiguous_hit's rule at a real number of sets).
 * stream_sets >= sets is perf_contiguous_hit. */
double perf_strided_hit(double d, const perf_level *L, double stream_sets, double run);

/* The distance past which perf_strided_hit's touches miss (each set then
 * holds more than `ways` lines): P * ways when a run overfills the P sets
 * it reaches (run / P > ways), else L's capacity, which runs filling the
 * other sets reach as contiguous lines do. */
double perf_strided_capacity(const perf_level *L, double stream_sets, double run);

/* Of a group's accesses, the share whose address delta narrows L's sets:
 * share[k] is the share of its accesses whose delta (from the same
 * instruction's access before) has 2^(first_shift + k) bytes as its largest
 * power-of-two divisor; a class counts when a walk at that stride reaches
 * fewer than L's sets (perf_stride_sets), as an FFT's butterflies do at
 * every stage past a line.  Such accesses may be conflict misses that the
 * distances cannot show. */
double perf_pow2_narrow_share(const double *share, int first_shift, int nclasses, const perf_level *L);

/* The high end of a range of `misses` of L from d when the share `narrow`
 * of d's touches (perf_pow2_narrow_share) may be conflict misses the
 * distances cannot show: misses + narrow * (d's touches - misses), as if
 * each of them that the model lets hit missed; `misses` when the
 * program's lines (`footprint`, its first touches at L's line size) fit
 * in L, where lines of a few contiguous arrays put at most `ways` into any
 * set whatever the order they are touched in. */
double perf_pow2_conflict_high(const perf_rd_dist *d, const perf_level *L, double footprint, double misses,
                               double narrow);

/* log2 of the bytes the walks of a group without a dominant stride span
 * (lines since a reuse times the stride), when share[k] of its accesses
 * are made at power-of-two deltas of class first_shift + k (as
 * perf_pow2_narrow_share): an FFT's butterflies, a stride per stage, each
 * stage a walk over the same array.  A walk that covers the same lines at
 * a larger stride comes back to a line after fewer of them, so the
 * touches from distance 1 on (at distance 0 a line was just touched, not
 * walked back to) are taken in ascending distance (d's bins must be in
 * that order) and given to the classes from the largest stride down,
 * share[k] times d's accesses each; the span is the median of lines since
 * (distance + 1) times stride over the touches given.  -1 when no touch
 * is given a class. */
double perf_pow2_span(const perf_rd_dist *d, const double *share, int first_shift, int nclasses);

/* Misses of level L from d for that group when its walks span 2^log2_span
 * bytes (perf_pow2_span; negative: no walk, the contiguous model): the
 * touches perf_pow2_span gives a class are its walk's returns.  Of the n
 * = distance + 1 lines since such a touch, the walk's own are all n, but
 * for fewer than `ways` beyond a power of two, which are a few others (a
 * spilled variable's line: a walk at a power-of-two stride over a
 * power-of-two span comes back after a power of two of its lines), at the
 * stride s that spans the span in them.  A stride of a power of two (of
 * lines) reaches S * line / s of L's S sets (at least one): as many of its
 * lines in each as the span has set spans, until s passes the set span
 * and all share one.  The others spread over all S sets, and no set holds
 * more than the program's lines (`footprint`) over L's sets, rounded up,
 * which is what contiguous arrays put there; the touch hits when its set
 * holds at most `ways` (perf_strided_hit's rule).  The touches left over
 * (deltas of no class, or under 2^first_shift bytes) take the contiguous
 * model, which is also a walk's when it reaches all of L's sets.  Cold
 * touches miss. */
double perf_level_misses_pow2(const perf_rd_dist *d, const perf_level *L, const double *share, int nclasses,
                              double log2_span, double footprint);

/* Misses of level L from d for a walk at stride s (perf_strided_hit over
 * the sets perf_stride_sets gives); perf_level_misses_contiguous when s is
 * NULL, 0 or reaches every set. */
double perf_level_misses_strided(const perf_rd_dist *d, const perf_level *L, const perf_stride *s);


/* The levels of machine m's data caches as the model sees them, closest
 * first: level i has size / line / ways sets of `ways` ways, except a
 * victim level (filled by what the level above it evicts), which holds
 * its own lines and those of the level above: its ways grow by
 * lines(above) / sets(it).  Returns m->ncaches. */
size_t perf_cache_levels(const machine *m, perf_level *out);

/* The TLB levels of m, each with sets = entries / ways. */
size_t perf_tlb_levels(const machine *m, perf_level *out);

/* ---- memory time (mem_model.c) -------------------------------------------- */

#define PERF_MAX_LEVELS MACHINE_MAX_CACHES

/* What a loop (or any piece of code) moves through the memory hierarchy. */
typedef struct perf_traffic {
    size_t nlevels;                       /* the machine's cache levels */
    double misses[PERF_MAX_LEVELS];       /* misses at each cache level */
    double stream_misses[PERF_MAX_LEVELS]; /* the part of misses[] from
                                            constant-stride accesses, which
                                            hardware prefetchers fetch ahead */
    double dirty_misses[PERF_MAX_LEVELS]; /* the part of misses[] of lines
                                            the code stores to: each is
                                            written back to the level below
                                            once, moving its line twice */
    double store_misses[PERF_MAX_LEVELS]; /* the part of misses[] of
                                            instructions that store and do
                                            not load: the core does not
                                            wait for them (they retire into
                                            the store buffer), so they cost
                                            bandwidth only */
    size_t ntlbs;                         /* the TLB levels priced */
    double tlb_misses[MACHINE_MAX_TLBS];  /* misses at each TLB level */
    double tlb_latency[MACHINE_MAX_TLBS]; /* cycles a miss of that level
                                             adds (its miss_latency: the
                                             levels are those the runs
                                             measured, not all of the
                                             machine's) */
    int tlb_walk[MACHINE_MAX_TLBS];       /* 1: a miss of that level walks
                                             the page tables (a second-level
                                             TLB), so at most the core's
                                             page walkers overlap */
    double stream_pages;                  /* first-level 4 KiB TLB misses
                                             of the constant-stride
                                             accesses: the pages a stream
                                             enters anew, where a prefetcher
                                             starts over */
    int dependent;                        /* its other misses form a chain
                                             (each address needs the last
                                             load): no overlap */
    double page_faults;                   /* first touches of 4 KiB pages
                                             (the cold misses of the
                                             4096-byte histograms) */
    double instructions;                  /* the instructions the misses
                                             are spread over (0: unknown,
                                             no window limit) */
} perf_traffic;

/* Memory time, cycles, every term kept for the report. */
typedef struct perf_mem {
    double served[PERF_MAX_LEVELS + 1]; /* accesses served by level i+1
                                           (the last: memory) that missed
                                           every level above */
    double latency_cycles;              /* latency term */
    double overlap;                     /* misses in flight in the term */
    double bw_cycles[PERF_MAX_LEVELS];  /* transfer time into level i from
                                           the level below it */
    double tlb_cycles;                  /* page walks */
    double cycles;                      /* max(latency, bandwidth) + TLB */
    int bound;                          /* the winning term: -1 latency,
                                           i for bw_cycles[i] */
} perf_mem;

/* The memory time of traffic t on m:
 *   served[i]    = misses[i-1] - misses[i] (served[0] unused: L1 hits are
 *                  the core model's), served[n] = misses[n-1] (memory);
 *   latency      = sum_i served'[i] * (latency(i) - latency(L1)) / overlap:
 *                  the wait beyond an L1 hit (the core model's), over the misses
 *                  the core waits for: not prefetched, and of loads (m' =
 *                  (m - prefetched) * (1 - store_misses / m)); overlap =
 *                  min(max_outstanding_misses, max(1, reorder_buffer *
 *                  (misses[0] - store_misses[0]) / instructions)): the
 *                  load misses one window of instructions holds (no window
 *                  when reorder_buffer or instructions is 0), or 1 when
 *                  t->dependent;
 *   bw_cycles[i] = (misses[i] + dirty_misses[i]) * line / bandwidth of
 *                  level i+1 (bytes/cycle; memory: mem_bandwidth_core_gbs /
 *                  clock_ghz): the fill and the write-back of a dirty line;
 *   tlb_cycles   = sum_j tlb_misses[j] * tlb_latency[j] / overlap_j:
 *                  a first-level miss (an STLB hit) overlaps as the misses
 *                  do, overlap_j = overlap; a walk (tlb_walk[j]) only as
 *                  far as the core has page walkers, overlap_j =
 *                  min(overlap, page_walkers) (overlap when the machine
 *                  does not describe page_walkers);
 *   cycles       = max(latency, max_i bw_cycles[i]) + tlb_cycles. */
void perf_mem_time(const machine *m, const perf_traffic *t, perf_mem *out);

/* ---- time (time_model.c) --------------------------------------------------- */

enum perf_bound {
    PERF_TIME_ISSUE,
    PERF_TIME_PORTS,
    PERF_TIME_RECURRENCE,
    PERF_TIME_BANDWIDTH, /* + level index: "L2 bandwidth", ..., "memory bandwidth" */
    PERF_TIME_LATENCY = PERF_TIME_BANDWIDTH + PERF_MAX_LEVELS + 1,
    PERF_TIME_PAGE_FAULTS,
    PERF_TIME_MISPREDICTS,
};

/* Time of one loop: its iterations at the core's cycles per iteration,
 * overlapped with its memory time. */
typedef struct perf_loop_time {
    double iterations;  /* header executions */
    double core_cycles; /* core.cycles * iterations */
    double mem_cycles;  /* perf_mem.cycles */
    double fault_cycles;      /* page faults (perf_fault_cycles) */
    double mispredict_cycles; /* branch mispredictions */
    double cycles;      /* max(core_cycles, mem_cycles) + fault_cycles +
                           mispredict_cycles */
    double seconds;
    int bound;          /* enum perf_bound, plus the level for bandwidth */
} perf_loop_time;

/* cycles = max(C + S, mem->cycles), C = iterations * core->cycles, S =
 * mem->latency_cycles + mem->tlb_cycles: the core's work and the stalls
 * of the misses it waits for add (a miss the reorder buffer cannot cover
 * stops retirement; the interval model of Eyerman et al., 2009), while
 * the transfers of prefetched lines overlap with both (the bandwidth
 * bound of mem->cycles); seconds = cycles / (clock_ghz * 1e9).  The bound:
 * the core's when C + S is the larger (ties too) and C >= S, "latency"
 * when S > C, else the memory term's. */
void perf_loop_combine(const machine *m, double iterations, const perf_core *core, const perf_mem *mem,
                       perf_loop_time *out);

/* ---- penalties (penalty_model.c) ------------------------------------------- */

/* Cycles of `faults` first touches of 4 KiB pages: faults * page_fault_ns
 * * clock_ghz.  The kernel's work, so it adds to the loop's time. */
double perf_fault_cycles(const machine *m, double faults);

/* Predicted mispredictions of one conditional branch that ran `executions`
 * times and jumped `taken` of them:
 *   0                                 when it is `predictable`: it closes
 *                                     a loop's back edge (predicted taken;
 *                                     its one exit per loop entry is left
 *                                     out), or its outcome is a function
 *                                     of loop counters alone
 *                                     (perf_counter_branch),
 *   min(taken, executions - taken)    otherwise: a data-dependent branch
 *                                     mispredicts its minority direction
 *                                     (a random one at rate p about
 *                                     min(p, 1 - p)); a branch almost
 *                                     always or never taken gives ~0. */
double perf_branch_mispredicts(double executions, double taken, int predictable);

/* Whether conditional branch `branch` of f decides on loop counters and
 * constants alone (branch_pattern.c): every compare whose flags it reads
 * reads only counters (values set from immediates, stepped by
 * immediates, copied, or spilled to and reloaded from stack slots that
 * only such values are written to) and immediates.  Its outcomes repeat
 * with each pass of the loops around it, which a global-history
 * predictor (TAGE and its kin, on every described core) learns: 0
 * mispredictions.  A value loaded from anywhere else, a function's
 * argument, or arithmetic between registers (a bit-reversal index) makes
 * it data-dependent. */
int perf_counter_branch(const st_function *f, const st_dataflow *df, uint32_t branch);

/* For every instruction i of b's function, ready[i]: the cycles from the
 * start of an iteration of b's loop until i's register inputs are ready,
 * the longest path of plain (within-iteration) dependences into it, each
 * instruction taking its class's latency plus the load latency (an L1
 * hit) when it reads memory, and waiting for a producer through a data
 * register while its own load proceeds (perf_latency_in); values the
 * loop carries and loads of addresses known at the start begin at 0.  So
 * for a conditional branch, when its condition (the flags of the compare
 * before it) is known.  0 outside the body.  Returns 0, or -1 when memory
 * runs out. */
int perf_resolution_times(const machine *m, const perf_body *b, double *ready);

/* For every instruction v of b's function, through[v]: 1 when v or an
 * instruction on its plain (within-iteration) dependences into it runs
 * only on ports as busy as the busiest of a port-bound loop (core: the
 * loop's perf_core_loop): it waits behind the queued work, so a branch
 * whose compare is such an instruction resolves no earlier for the
 * window's queue and hides nothing of its misprediction behind it (a
 * branch at the end of a divide in a loop bound by the divider; measured,
 * bench/branches.c).  All 0 when the loop is not port-bound.  Returns 0,
 * or -1 when memory runs out. */
int perf_saturated_paths(const machine *m, const perf_body *b, const perf_core *core, uint8_t *through);

/* Cycles one misprediction of a branch resolved `resolution` cycles into
 * its iteration (perf_resolution_times) costs: branch_mispredict_cycles
 * + resolution.  What the front end fetched after the branch is thrown
 * away only when the branch executes, and it waits for its condition
 * (interval analysis, Eyerman et al., ISPASS 2006: the penalty is the
 * refill plus the branch's resolution time). */
double perf_mispredict_cycles(const machine *m, double resolution);

/* The expected cycles of a misprediction of full cost `penalty`
 * (perf_mispredict_cycles) that the core does not hide, in a loop whose
 * core (perf_core_loop) mispredicts `rate` times an iteration.  The front
 * end issues an iteration in core->issue cycles and the core retires one
 * in core->cycles: every iteration since the last misprediction left
 * slack = cycles - issue cycles of queued work in the window (at most a
 * full window, reorder_buffer uops, core->cycles per core->uops of them),
 * which the core keeps doing while the branch resolves and the front end
 * refills.  With k iterations from the last misprediction, geometric at
 * `rate` (k = 1 / rate when rate >= 1):
 *     exposed = E[ max(0, penalty - min(k slack, window)) ]
 * penalty when the loop is issue-bound (slack 0) or rate is 0; measured
 * on Golden Cove (bench/branches.c; docs/performance-model.md, "Branch
 * mispredictions"). */
double perf_mispredict_exposed(const machine *m, const perf_core *core, double rate, double penalty);

/* Add the costs that do not overlap with the loop's core and memory work
 * (each stops the core: a fault enters the kernel, a misprediction
 * flushes the pipeline) to t: cycles += fault_cycles + mispredict_cycles,
 * seconds again; the bound becomes "page faults" or "mispredictions" when
 * that term alone exceeds the rest of the loop's time. */
void perf_loop_add_penalties(const machine *m, double fault_cycles, double mispredict_cycles, perf_loop_time *t);

/* The bound's name for people and JSON: "issue", "ports", "recurrence",
 * "L2 bandwidth", "L3 bandwidth", "memory bandwidth", "latency", "page
 * faults", "mispredictions".  `m` names
 * the levels (bandwidth bound i is the transfer into level i from level
 * i+1, named after the level below). */
const char *perf_bound_name(const machine *m, int bound, char *buf, size_t len);

#endif

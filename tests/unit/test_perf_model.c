/* test_perf_model.c — unit tests of the performance models of src/perf
 * (cache_model.c, rd_dist.c, mem_model.c, time_model.c) on cases computed
 * by hand: a stream of N doubles read once (misses N*8/64 at every level,
 * bandwidth-bound time), a copy stream whose stored lines are written back, a dependent chain (latency-bound, no overlap), a
 * port-bound loop, a set-associative conflict case (a stride that maps to
 * one set of an A-way cache hits iff the distance is below A, as the
 * simulator of src/cachesim says), strided walks (the sets a stride
 * reaches, in closed form and counted; an ijk product's column loads
 * against the simulator), the binomial correction on small cases
 * summed by hand, random placement against the simulator, the TLB misses
 * of a page-strided sweep, page distances bounded by line distances
 * (page_dist.c), a modeled histogram's cut against
 * rd_model_misses, a victim level's capacity, and the penalties: page
 * faults of first touches, branch mispredictions. */
#include <math.h>
#include <stdio.h>

#include "rd_test_support.h"

#include "cachesim/cachesim.h"
#include "perf/perf.h"
#include "profile/profile_writer.h" /* PROFILE_POW2_FIRST, PROFILE_POW2_CLASSES */

/* ---- fixtures ------------------------------------------------------------- */

/* A Zen 4-like machine, built by hand (the numbers are the test's, not a
 * description's): 4 GHz; 32 KiB 8-way L1, 1 MiB 8-way L2, 32 MiB 16-way
 * L3; 64 B lines; L2 32 B/cycle, L3 16 B/cycle, memory 20 GB/s per core =
 * 5 B/cycle, 100 ns = 400 cycles; 16 misses in flight; a 64-entry 4-way
 * first-level TLB (7 cycles) and a 2048-entry 16-way second level (30). */
static machine test_machine(void)
{
    machine m = {.name = "test", .clock_ghz = 4, .issue_width = 6, .max_outstanding_misses = 16,
                 .ncaches = 3, .ntlbs = 2, .mem_latency_ns = 100, .mem_bandwidth_gbs = 60,
                 .mem_bandwidth_core_gbs = 20};
    m.cache[0] = (machine_cache){"L1", 32 << 10, 64, 8, 4, 64, 1, MACHINE_INCLUSIVE, 1};
    m.cache[1] = (machine_cache){"L2", 1 << 20, 64, 8, 14, 32, 1, MACHINE_INCLUSIVE, 1};
    m.cache[2] = (machine_cache){"L3", 32 << 20, 64, 16, 50, 16, 8, MACHINE_NON_INCLUSIVE, 1};
    m.tlb[0] = (machine_tlb){"L1 DTLB 4K", 1, 4096, 64, 4, 7};
    m.tlb[1] = (machine_tlb){"L2 DTLB 4K", 2, 4096, 2048, 16, 30};
    return m;
}

/* The exact histogram (block size 1 << shift) of an address stream, as a
 * distribution. */
typedef struct tracer {
    rd_stack *stack;
    rd_hist h;
    int shift;
} tracer;

static void tracer_init(tracer *t, int shift)
{
    t->stack = rd_stack_new(&alloc);
    memset(&t->h, 0, sizeof t->h);
    t->shift = shift;
}

static void touch(tracer *t, uint64_t addr)
{
    rd_hist_add(&t->h, rd_stack_access(t->stack, addr >> t->shift), 1, &alloc);
}

static perf_rd_dist tracer_dist(tracer *t)
{
    rd_binrec *recs = malloc((t->h.nbins + 1) * sizeof *recs);
    assert_non_null(recs);
    size_t n = 0;
    for (uint32_t b = 0; b < t->h.nbins; b++)
        if (t->h.bins[b].count)
            recs[n++] = (rd_binrec){b, t->h.bins[b].count, t->h.bins[b].sum};
    perf_rd_dist d;
    assert_int_equal(perf_rd_dist_measured(t->h.cold, recs, n, &d), 0);
    free(recs);
    rd_hist_free(&t->h, &alloc);
    rd_stack_free(t->stack);
    return d;
}

/* ---- the binomial correction ------------------------------------------------ */

static void binomial_small_cases(void **state)
{
    (void)state;
    /* d = 3 blocks, 2 sets, 2 ways: P(X < 2) = (1 + 3) / 8 */
    assert_float_equal(perf_hit_probability(3, 2, 2), 0.5, 1e-12);
    /* d = 4, 4 sets, 1 way: none of the 4 in the set: (3/4)^4 */
    assert_float_equal(perf_hit_probability(4, 4, 1), 81.0 / 256, 1e-12);
    /* d = 10, 8 sets, 2 ways: (7/8)^10 + 10 (1/8)(7/8)^9 */
    assert_float_equal(perf_hit_probability(10, 8, 2), pow(7.0 / 8, 10) + 10.0 / 8 * pow(7.0 / 8, 9), 1e-12);
    /* fewer blocks than ways always hit; fully associative is the cut */
    assert_float_equal(perf_hit_probability(3, 64, 4), 1, 0);
    assert_float_equal(perf_hit_probability(511, 1, 512), 1, 0);
    assert_float_equal(perf_hit_probability(512, 1, 512), 0, 0);
    /* far beyond the capacity: certainly a miss */
    assert_float_equal(perf_hit_probability(1e6, 64, 8), 0, 1e-15);
}

/* Uniformly random blocks: the binomial model's own assumption, so the
 * simulator of a 64-set 4-way cache must agree with it within noise. */
static void binomial_matches_random_placement(void **state)
{
    (void)state;
    const rd_allocator *a = &alloc;
    cs_level *c = cs_level_new(64 * 4 * 64, 64, 4, a, NULL);
    assert_non_null(c);
    tracer t;
    tracer_init(&t, 6);
    rng_state = 12345;
    uint64_t sim_misses = 0, n = 400000;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t addr = rng_below(512) * 64; /* 512 blocks over a 256-line cache */
        sim_misses += 1 - (uint64_t)cs_level_access_block(c, addr >> 6);
        touch(&t, addr);
    }
    perf_rd_dist d = tracer_dist(&t);
    perf_level L = {"L", 64, 64, 4, 0, 0};
    double model = perf_level_misses(&d, &L);
    printf("random placement: simulated %lu, binomial model %.0f\n", (unsigned long)sim_misses, model);
    assert_true(fabs(model - (double)sim_misses) < 0.02 * (double)sim_misses);
    perf_rd_dist_free(&d);
    cs_level_free(c);
}

/* Blocks at a stride of sets * line all fall into one set: the level acts
 * as one A-way set, a cyclic sweep of K such blocks (distance K - 1) hits
 * iff K - 1 < A.  The simulator and the model of that set (sets = 1, ways
 * = A) agree exactly, on both sides of the edge. */
static void conflict_case(void **state)
{
    (void)state;
    const uint32_t sets = 64, ways = 8, rounds = 50;
    for (uint32_t k = ways - 1; k <= ways + 1; k++) {
        cs_level *c = cs_level_new((uint64_t)sets * ways * 64, 64, ways, &alloc, NULL);
        assert_non_null(c);
        tracer t;
        tracer_init(&t, 6);
        uint64_t sim = 0;
        for (uint32_t r = 0; r < rounds; r++)
            for (uint32_t i = 0; i < k; i++) {
                uint64_t addr = (uint64_t)i * sets * 64;
                sim += 1 - (uint64_t)cs_level_access_block(c, addr >> 6);
                touch(&t, addr);
            }
        perf_rd_dist d = tracer_dist(&t);
        perf_level one_set = {"set", 64, 1, ways, 0, 0};
        double want = k <= ways ? k : (double)k * rounds; /* cold only, or every access */
        assert_float_equal((double)sim, want, 0);
        assert_float_equal(perf_level_misses(&d, &one_set), want, 1e-9);
        perf_rd_dist_free(&d);
        cs_level_free(c);
    }
}

/* Cyclic sweeps of K consecutive blocks through a 48 KiB 12-way cache (64
 * sets, 768 blocks), K from below the capacity to past 64 * 13: the
 * contiguous model (perf_contiguous_hit) gives the simulator's misses
 * exactly, where the fully-associative cut is off by up to every reuse
 * between 768 and 832 blocks (800 blocks: 48% hit; issue 20). */
static void contiguous_sweeps(void **state)
{
    (void)state;
    const uint32_t sets = 64, ways = 12, rounds = 20;
    static const uint32_t ks[] = {700, 768, 769, 800, 831, 832, 833, 900};
    for (size_t j = 0; j < sizeof ks / sizeof *ks; j++) {
        uint32_t k = ks[j];
        cs_level *c = cs_level_new((uint64_t)sets * ways * 64, 64, ways, &alloc, NULL);
        assert_non_null(c);
        tracer t;
        tracer_init(&t, 6);
        uint64_t sim = 0;
        for (uint32_t r = 0; r < rounds; r++)
            for (uint32_t i = 0; i < k; i++) {
                sim += 1 - (uint64_t)cs_level_access_block(c, i);
                touch(&t, (uint64_t)i * 64);
            }
        perf_rd_dist d = tracer_dist(&t);
        perf_level L = {"L1", 64, sets, ways, 0, 0};
        double got = perf_level_misses_contiguous(&d, &L);
        print_message("    %u blocks: simulated %llu, contiguous model %.1f\n", k, (unsigned long long)sim, got);
        assert_float_equal(got, (double)sim, 1e-6);
        perf_rd_dist_free(&d);
        cs_level_free(c);
    }
}

/* ---- strides ----------------------------------------------------------------- */

/* The sets a walk at `stride` bytes reaches in `sets` sets of 64-byte
 * lines, counted: floor(i * stride / 64) mod sets over one period of i. */
static double counted_sets(uint64_t stride, uint64_t sets)
{
    char *seen = calloc(sets, 1);
    assert_non_null(seen);
    double n = 0;
    for (uint64_t i = 0; i < sets * 64; i++) { /* i * stride mod sets * 64 repeats within sets * 64 steps */
        uint64_t set = (i * stride / 64) % sets;
        n += !seen[set];
        seen[set] = 1;
    }
    free(seen);
    return n;
}

/* perf_stride_sets: the closed forms of docs/performance-model.md, and
 * the sets a walk visits, counted, for every stride of 8 to 8192 bytes in
 * 8-byte steps in 64, 48 and 2048 sets. */
static void stride_sets(void **state)
{
    (void)state;
    assert_float_equal(perf_stride_sets(1792, 64, 64), 16, 0); /* 28 lines: 64 / gcd(28, 64) */
    assert_float_equal(perf_stride_sets(-1792, 64, 64), 16, 0); /* backwards alike */
    assert_float_equal(perf_stride_sets(1800, 64, 64), 64, 0); /* not whole lines: gcd(1800, 4096) = 8 */
    assert_float_equal(perf_stride_sets(4096, 64, 64), 1, 0);  /* sets * line: one set */
    assert_float_equal(perf_stride_sets(192, 64, 64), 64, 0);  /* an odd number of lines */
    assert_float_equal(perf_stride_sets(32, 64, 64), 64, 0);   /* below a line: contiguous */
    assert_float_equal(perf_stride_sets(1792, 64, 2048), 512, 0);
    static const uint64_t set_counts[] = {64, 48, 2048};
    for (size_t k = 0; k < sizeof set_counts / sizeof *set_counts; k++)
        for (uint64_t s = 8; s <= 8192; s += 8)
            if (perf_stride_sets((double)s, 64, (double)set_counts[k]) != counted_sets(s, set_counts[k]))
                fail_msg("stride %llu in %llu sets: %g sets, counted %g", (unsigned long long)s,
                         (unsigned long long)set_counts[k], perf_stride_sets((double)s, 64, (double)set_counts[k]),
                         counted_sets(s, set_counts[k]));
}

/* perf_strided_hit on cases worked by hand: n = d + 1 lines, own =
 * min(n, run) of them in the walk's P sets, the rest over all S; the
 * touch's set holds own / P + (n - own) / S, dealt round-robin into n /
 * that many sets. */
static void strided_hit_cases(void **state)
{
    (void)state;
    perf_level l48 = {"L1", 64, 64, 12, 0, 0}, l32 = {"L1", 64, 64, 8, 0, 0};
    /* a column of 224 lines at 28 lines' stride (16 sets) and 28 other
     * lines: 14.45 a set, past 12 ways */
    assert_float_equal(perf_strided_hit(252, &l48, 16, 224), 0, 0);
    /* a column of 64 lines at 8 lines' stride (8 sets) and 9 other lines:
     * 8 + 9/64 a set, as over 73 / 8.140625 = 8.967 sets: q = 8 = ways, so
     * the lines of the sets without a 9th hit */
    double se = 73 / (8 + 9.0 / 64), r = 73 - 8 * se;
    assert_float_equal(perf_strided_hit(72, &l32, 8, 64), (se - r) * 8 / 73, 1e-12);
    /* fewer lines than ways in each stream set: a hit */
    assert_float_equal(perf_strided_hit(100, &l48, 16, 100), 1, 0);
    /* the same distance reached by 2000 other lines after a run of 16:
     * spread, as contiguous lines are */
    assert_float_equal(perf_strided_hit(700, &l48, 16, 16), 1, 0);
    /* a stride that reaches every set is the contiguous model */
    assert_float_equal(perf_strided_hit(799, &l48, 64, 800), perf_contiguous_hit(799, 64, 12), 0);
    assert_float_equal(perf_strided_hit(799, &l48, 64, 800), 0.48, 1e-12);
    /* the distance past which the walk misses: its sets' capacity when a
     * run overfills them (224 lines in 16 sets of 12 ways), else the
     * level's (512 sets of a 2 MiB 16-way L2: under one line a set) */
    perf_level l2 = {"L2", 64, 2048, 16, 0, 0};
    assert_float_equal(perf_strided_capacity(&l48, 16, 224), 16 * 12, 0);
    assert_float_equal(perf_strided_capacity(&l2, 512, 224), 2048 * 16, 0);
    assert_float_equal(perf_strided_capacity(&l48, 64, 224), 64 * 12, 0);
}

/* The reference stream of an ijk matrix product of n x n doubles,
 * c[i][j] = sum_k a[i][k] b[k][j] (b's column at a stride of n doubles),
 * through one simulated level of `sets` x `ways`: b's load's misses by
 * the simulator, and by the strided model from b's exact histogram with
 * stride 8n and runs of n lines (the column); also the contiguous
 * model's, which the stride proves wrong. */
static void gemm_b_misses(uint32_t n, uint32_t sets, uint32_t ways, double *sim, double *strided, double *contiguous)
{
    cs_level *c = cs_level_new((uint64_t)sets * ways * 64, 64, ways, &alloc, NULL);
    assert_non_null(c);
    rd_stack *stack = rd_stack_new(&alloc);
    rd_hist hb;
    memset(&hb, 0, sizeof hb);
    const uint64_t a = 0, b = (uint64_t)n * n * 8 + 4096, cc = 2 * b;
    uint64_t miss_b = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++) {
            for (uint32_t k = 0; k < n; k++) {
                uint64_t la = (a + ((uint64_t)i * n + k) * 8) >> 6, lb = (b + ((uint64_t)k * n + j) * 8) >> 6;
                cs_level_access_block(c, la);
                rd_stack_access(stack, la);
                miss_b += 1 - (uint64_t)cs_level_access_block(c, lb);
                rd_hist_add(&hb, rd_stack_access(stack, lb), 1, &alloc);
            }
            uint64_t lc = (cc + ((uint64_t)i * n + j) * 8) >> 6;
            cs_level_access_block(c, lc);
            rd_stack_access(stack, lc);
        }
    tracer t = {.stack = stack, .h = hb, .shift = 6};
    perf_rd_dist d = tracer_dist(&t);
    perf_level L = {"L", 64, sets, ways, 0, 0};
    perf_stride st = {8.0 * n, n};
    *sim = (double)miss_b;
    *strided = perf_level_misses_strided(&d, &L, &st);
    *contiguous = perf_level_misses_contiguous(&d, &L);
    perf_rd_dist_free(&d);
    cs_level_free(c);
}

/* b's misses of an ijk product against the simulator, with rows of 8,
 * 12, 16, 20 and 28 lines in L1s of 64 sets and an L2 of 2048: the
 * column's reuse one column later conflicts in the sets its stride
 * reaches (16 of 64 at 28 lines: 14 lines a set, past 12 ways), the
 * matrix's reuse one row of c later does not (its columns fill every
 * set).  Within 1% of the simulator, where the contiguous model says
 * 88% fewer when they conflict; at the edge (8 lines in each of 8 sets of 8 ways, plus
 * a's row) which of the sets a's lines join decides, and the model,
 * spreading them, is within 35% (the contiguous model: -65%). */
static void strided_gemm_against_simulator(void **state)
{
    (void)state;
    static const struct {
        uint32_t n, sets, ways;
        double tolerance;
    } cases[] = {{64, 64, 8, 0.35},  {64, 64, 12, 0.01},  {96, 64, 8, 0.01},     {128, 64, 8, 0.01},
                 {128, 2048, 8, 0.01}, {160, 64, 8, 0.01}, {224, 64, 12, 0.01}, {224, 2048, 8, 0.01}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        double sim, strided, contiguous;
        gemm_b_misses(cases[k].n, cases[k].sets, cases[k].ways, &sim, &strided, &contiguous);
        print_message("    n = %u, %u x %u: simulated %.0f, strided model %.0f, contiguous model %.0f\n", cases[k].n,
                      cases[k].sets, cases[k].ways, sim, strided, contiguous);
        assert_true(fabs(strided - sim) <= cases[k].tolerance * sim);
        assert_true(fabs(strided - sim) <= fabs(contiguous - sim));
    }
}

/* ---- power-of-two strides that change: an FFT's butterflies ------------------ */

/* Count delta in its 2-adic class as the collector does (collect_runtime.c,
 * count_pow2): multiples of 2^PROFILE_POW2_FIRST bytes only. */
static void count_class(int64_t delta, double *count)
{
    if (delta == 0 || delta % (1 << PROFILE_POW2_FIRST))
        return;
    int k = __builtin_ctzll((uint64_t)delta) - PROFILE_POW2_FIRST;
    count[k < PROFILE_POW2_CLASSES ? k : PROFILE_POW2_CLASSES - 1]++;
}

/* The butterflies of a radix-2 FFT of n complex doubles (Numerical
 * Recipes' four1 without its bit reversal): at each stage, for each
 * twiddle m < half, the pairs (i, i + half) for i = m, m + 2 half, ...;
 * the two loads' lines through one simulated level of sets x ways and
 * through the reuse-distance stack, and with `spill` a line past the
 * points touched after each twiddle (a variable spilled to the stack).
 * *sim the simulator's misses of the loads, *d their exact distribution,
 * share[] their deltas by 2-adic class over their accesses. */
static void butterfly_misses(uint32_t n, uint32_t sets, uint32_t ways, int spill, double *sim, perf_rd_dist *d,
                             double *share)
{
    cs_level *c = cs_level_new((uint64_t)sets * ways * 64, 64, ways, &alloc, NULL);
    assert_non_null(c);
    tracer t;
    tracer_init(&t, 6);
    double count[PROFILE_POW2_CLASSES] = {0}, accesses = 0;
    uint64_t misses = 0, last[2] = {0, 0};
    int seen = 0;
    for (uint32_t half = 1; half < n; half *= 2)
        for (uint32_t m = 0; m < half; m++)
            for (uint32_t i = m; i < n; i += 2 * half) {
                uint64_t addr[2] = {(uint64_t)i * 16, (uint64_t)(i + half) * 16};
                for (int k = 0; k < 2; k++) {
                    misses += 1 - (uint64_t)cs_level_access_block(c, addr[k] >> 6);
                    touch(&t, addr[k]);
                    if (seen)
                        count_class((int64_t)(addr[k] - last[k]), count);
                    last[k] = addr[k];
                    accesses++;
                }
                seen = 1;
                if (spill && i + 2 * half >= n) {
                    cs_level_access_block(c, (uint64_t)n * 16 / 64 + 1);
                    rd_stack_access(t.stack, (uint64_t)n * 16 / 64 + 1); /* the spill's own instruction */
                }
            }
    for (int k = 0; k < PROFILE_POW2_CLASSES; k++)
        share[k] = count[k] / accesses;
    *sim = (double)misses;
    *d = tracer_dist(&t);
    cs_level_free(c);
}

/* The butterflies of n points in a 32 KiB 8-way L1 (2^14 points, 4096
 * lines) and a 1 MiB 8-way L2 (2^17, 32768 lines): from the stage whose
 * pairs lie sets * 64 bytes apart on, one twiddle's pairs share one set,
 * and the contiguous model, whose distances say the next twiddle finds
 * them, is far below the simulator (the fft kernel: Cachegrind's L1 misses
 * 38% above the model's at 2^19 points, its L2 104%).  The share of the
 * loads' deltas at strides that narrow the sets makes the range's high end
 * cover the simulator.  The same 2^14 points in the L2 fit it, so no set
 * can hold more than its ways of them: simulator and model agree, and the
 * range is not widened; nor is a sweep's, which has no such deltas. */
static void butterflies_conflict(void **state)
{
    (void)state;
    static const struct {
        uint32_t n, sets, ways;
        int conflicts;
    } cases[] = {{1 << 14, 64, 8, 1}, {1 << 17, 2048, 8, 1}, {1 << 14, 2048, 8, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        double sim, share[PROFILE_POW2_CLASSES];
        perf_rd_dist d;
        butterfly_misses(cases[k].n, cases[k].sets, cases[k].ways, 0, &sim, &d, share);
        perf_level L = {"L", 64, cases[k].sets, cases[k].ways, 0, 0};
        double model = perf_level_misses_contiguous(&d, &L);
        double narrow = perf_pow2_narrow_share(share, PROFILE_POW2_FIRST, PROFILE_POW2_CLASSES, &L);
        double high = perf_pow2_conflict_high(&d, &L, d.cold, model, narrow);
        print_message("    %u points, %u sets x %u ways: simulated %.0f, contiguous model %.0f, narrow share %.3f, "
                      "high %.0f\n",
                      cases[k].n, cases[k].sets, cases[k].ways, sim, model, narrow, high);
        assert_true(narrow > 0.5);
        if (cases[k].conflicts) {
            assert_true(sim > 1.2 * model); /* the conflicts the distances cannot see */
            assert_true(high >= sim);
            assert_true(high <= 2.0 * cases[k].n * log2(cases[k].n)); /* at most every access */
        } else {
            assert_float_equal(sim, model, 0);
            assert_float_equal(high, model, 0);
        }
        perf_rd_dist_free(&d);
    }
    /* a sweep at 16 bytes: no delta narrows the sets */
    double sweep[PROFILE_POW2_CLASSES] = {0};
    for (int i = 1; i < 100; i++)
        count_class(16, sweep);
    perf_level l1 = {"L1", 64, 64, 8, 0, 0};
    assert_float_equal(perf_pow2_narrow_share(sweep, PROFILE_POW2_FIRST, PROFILE_POW2_CLASSES, &l1), 0, 0);
}

/* The butterflies' misses counted from their classes
 * (perf_level_misses_pow2): the largest strides' deltas go with the
 * shortest distances, as each stage walks the same n points at twice the
 * stride of the one before and comes back after half the lines.  Against
 * the simulator: equal in the L1 and the L2 where the contiguous model is
 * 43% and 62% low, and where the points fit (no conflicts); with a
 * spilled variable's line between twiddles (tests/programs/fft_radix2.c
 * at -O2), whose line lies in another set, within 1% where taking it for
 * one of the walk's gave 7% too many (the 8 lines of a walk in one set of
 * 8 ways and the spill's beside them hit); with no class (a sweep's
 * deltas), the contiguous model. */
static void butterflies_counted(void **state)
{
    (void)state;
    static const struct {
        uint32_t n, sets, ways;
        int spill;
    } cases[] = {{1 << 14, 64, 8, 0}, {1 << 17, 2048, 8, 0}, {1 << 14, 2048, 8, 0}, {1 << 12, 64, 8, 0},
                 {1 << 14, 64, 8, 1}, {1 << 17, 2048, 8, 1}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        double sim, share[PROFILE_POW2_CLASSES], none[PROFILE_POW2_CLASSES] = {0};
        perf_rd_dist d;
        butterfly_misses(cases[k].n, cases[k].sets, cases[k].ways, cases[k].spill, &sim, &d, share);
        perf_level L = {"L", 64, cases[k].sets, cases[k].ways, 0, 0};
        double model = perf_level_misses_pow2(&d, &L, share, PROFILE_POW2_CLASSES,
                                              perf_pow2_span(&d, share, PROFILE_POW2_FIRST, PROFILE_POW2_CLASSES), d.cold);
        double contiguous = perf_level_misses_contiguous(&d, &L);
        print_message("    %u points, %u sets x %u ways%s: simulated %.0f, counted %.0f, contiguous model %.0f\n",
                      cases[k].n, cases[k].sets, cases[k].ways, cases[k].spill ? ", a spill" : "", sim, model,
                      contiguous);
        assert_true(fabs(model - sim) <= 0.01 * sim);
        assert_float_equal(perf_level_misses_pow2(&d, &L, none, PROFILE_POW2_CLASSES,
                                                  perf_pow2_span(&d, none, PROFILE_POW2_FIRST, PROFILE_POW2_CLASSES), d.cold),
                           contiguous, 1e-9 * contiguous);
        perf_rd_dist_free(&d);
    }
}

/* Which 2-adic classes narrow a level's sets: those above its line (2^7
 * bytes on 64-byte lines reach half of them); on 128-byte lines 2^7 does
 * not. */
static void pow2_narrow_classes(void **state)
{
    (void)state;
    double share[PROFILE_POW2_CLASSES] = {0};
    share[0] = 0.25; /* 2^7 bytes */
    share[5] = 0.5;  /* 2^12 */
    perf_level l64 = {"L1", 64, 64, 8, 0, 0}, l128 = {"L1", 128, 64, 8, 0, 0};
    assert_float_equal(perf_pow2_narrow_share(share, PROFILE_POW2_FIRST, PROFILE_POW2_CLASSES, &l64), 0.75, 1e-12);
    assert_float_equal(perf_pow2_narrow_share(share, PROFILE_POW2_FIRST, PROFILE_POW2_CLASSES, &l128), 0.5, 1e-12);
    perf_level one = {"L", 64, 1, 16, 0, 0}; /* fully associative: no set to narrow */
    assert_float_equal(perf_pow2_narrow_share(share, PROFILE_POW2_FIRST, PROFILE_POW2_CLASSES, &one), 0, 0);
}

/* ---- stream kernel: N doubles read once -------------------------------------- */

static void stream_kernel(void **state)
{
    (void)state;
    const uint64_t n = 1 << 22; /* 32 MiB of doubles, read once */
    machine m = test_machine();
    tracer t;
    tracer_init(&t, 6);
    for (uint64_t i = 0; i < n; i++)
        touch(&t, i * 8);
    perf_rd_dist d = tracer_dist(&t);
    perf_level lv[PERF_MAX_LEVELS];
    size_t nl = perf_cache_levels(&m, lv);
    perf_traffic tr = {.nlevels = nl};
    for (size_t i = 0; i < nl; i++) {
        tr.misses[i] = tr.stream_misses[i] = perf_level_misses(&d, &lv[i]);
        assert_float_equal(tr.misses[i], n * 8 / 64, 0); /* N*8/64 at every level */
    }
    perf_mem mem;
    perf_mem_time(&m, &tr, &mem);
    /* streamed: no latency term; bandwidth: lines*64 B at 32, 16 and 5 B/cycle */
    assert_float_equal(mem.latency_cycles, 0, 0);
    assert_float_equal(mem.bw_cycles[0], n / 8 * 64 / 32.0, 1e-6);
    assert_float_equal(mem.bw_cycles[2], n / 8 * 64 / 5.0, 1e-6);
    assert_float_equal(mem.served[3], n / 8, 0);
    assert_int_equal(mem.bound, 2);
    perf_core core = {.cycles = 1, .bound = PERF_BOUND_ISSUE}; /* 1 cycle per element */
    perf_loop_time lt;
    perf_loop_combine(&m, (double)n, &core, &mem, &lt);
    assert_float_equal(lt.cycles, n * 8 / 5.0, 1e-6); /* 1.6 cycles per element > 1 */
    assert_float_equal(lt.seconds, n * 8 / 5.0 / 4e9, 1e-15);
    char name[32];
    assert_string_equal(perf_bound_name(&m, lt.bound, name, sizeof name), "memory bandwidth");
    perf_rd_dist_free(&d);
}

/* A copy b[i] = a[i] of N doubles: a's and b's lines miss every level
 * (2 N / 8), and b's are dirty: each is filled (write-allocate) and written
 * back, so memory moves 3 N / 8 lines: 3 N / 8 * 64 / 5 cycles at 5 B/cycle. */
static void copy_stream_writes_back(void **state)
{
    (void)state;
    const double n = 1 << 20;
    machine m = test_machine();
    perf_traffic tr = {.nlevels = 3};
    for (size_t i = 0; i < 3; i++) {
        tr.misses[i] = tr.stream_misses[i] = 2 * n / 8;
        tr.dirty_misses[i] = n / 8;
    }
    perf_mem mem;
    perf_mem_time(&m, &tr, &mem);
    assert_float_equal(mem.bw_cycles[2], 3 * n / 8 * 64 / 5.0, 1e-6);
    assert_float_equal(mem.bw_cycles[0], 3 * n / 8 * 64 / 32.0, 1e-6); /* L1 <-> L2 as well */
    assert_int_equal(mem.bound, 2);
}

/* 1000 misses of each of the two TLB levels (7 and 30 cycles): 37 000
 * cycles of page walks, 16 at a time for independent loads, one at a time
 * for a chase. */
static void page_walks_overlap_as_misses_do(void **state)
{
    (void)state;
    machine m = test_machine();
    perf_traffic tr = {.nlevels = 3, .ntlbs = 2, .tlb_misses = {1000, 1000}};
    perf_level tl[MACHINE_MAX_TLBS];
    for (size_t j = 0; j < perf_tlb_levels(&m, tl); j++)
        tr.tlb_latency[j] = tl[j].miss_latency;
    perf_mem mem;
    perf_mem_time(&m, &tr, &mem);
    assert_float_equal(mem.tlb_cycles, 37000.0 / 16, 1e-9);
    tr.dependent = 1;
    perf_mem_time(&m, &tr, &mem);
    assert_float_equal(mem.tlb_cycles, 37000.0, 1e-9);
}

/* Page walks overlap no more than the core's page walkers: 1000 misses of
 * each TLB level, the first (7 cycles, an STLB hit) 16 at a time as the
 * misses, the second (30, a walk) 4 at a time on a core of 4 walkers:
 * 7000 / 16 + 30000 / 4 = 7937.5 cycles; with 32 walkers, more than the
 * misses in flight, 37000 / 16; a chase, one at a time. */
static void walk_at_most_page_walkers(void **state)
{
    (void)state;
    machine m = test_machine();
    m.page_walkers = 4;
    perf_traffic tr = {.nlevels = 3, .ntlbs = 2, .tlb_misses = {1000, 1000}};
    perf_level tl[MACHINE_MAX_TLBS];
    for (size_t j = 0; j < perf_tlb_levels(&m, tl); j++) {
        tr.tlb_latency[j] = tl[j].miss_latency;
        tr.tlb_walk[j] = tl[j].tlb_level >= 2;
    }
    assert_int_equal(tr.tlb_walk[0], 0);
    assert_int_equal(tr.tlb_walk[1], 1);
    perf_mem mem;
    perf_mem_time(&m, &tr, &mem);
    assert_float_equal(mem.tlb_cycles, 7000.0 / 16 + 30000.0 / 4, 1e-9);
    m.page_walkers = 32;
    perf_mem_time(&m, &tr, &mem);
    assert_float_equal(mem.tlb_cycles, 37000.0 / 16, 1e-9);
    m.page_walkers = 4;
    tr.dependent = 1;
    perf_mem_time(&m, &tr, &mem);
    assert_float_equal(mem.tlb_cycles, 37000.0, 1e-9);
}

/* Streams and pages: 1000 misses at every level, all of constant-stride
 * accesses.  With a stride of a page or more each miss enters a page anew
 * (1000 first-level page misses): no prefetcher covers it, and every one
 * waits for memory beyond its L1 hit, 1000 x (400 - 4) / 16 = 24 750
 * cycles, above the bandwidth bound 1000 x 64 / 5 = 12 800.  A unit-stride
 * stream enters a page every 64 lines: 1000 / 64 x 396 / 16 = 386.71875
 * cycles, and the bandwidth bound wins. */
static void streams_restart_at_pages(void **state)
{
    (void)state;
    machine m = test_machine();
    perf_traffic tr = {.nlevels = 3, .misses = {1000, 1000, 1000}, .stream_misses = {1000, 1000, 1000},
                       .stream_pages = 1000};
    perf_mem mem;
    perf_mem_time(&m, &tr, &mem);
    assert_float_equal(mem.latency_cycles, 24750, 1e-9);
    assert_float_equal(mem.bw_cycles[2], 12800, 1e-9);
    assert_int_equal(mem.bound, -1);
    tr.stream_pages = 1000.0 / 64;
    perf_mem_time(&m, &tr, &mem);
    assert_float_equal(mem.latency_cycles, 386.71875, 1e-9);
    assert_int_equal(mem.bound, 2);
}

/* ---- dependent chain --------------------------------------------------------------- */

/* A pointer chase over K lines (128 MiB) in a fixed random order, R times:
 * every access after the first round has distance K - 1 > every cache, so
 * every access misses every level; with the chain, each waits its 400
 * cycles: 396 beyond the L1 hit in the latency term, the core's chain of
 * L1 hits the other 4 (the core term adds to the stalls). */
static void dependent_chain(void **state)
{
    (void)state;
    const uint64_t k = 1 << 21, rounds = 3;
    machine m = test_machine();
    uint64_t *order = malloc(k * sizeof *order);
    assert_non_null(order);
    for (uint64_t i = 0; i < k; i++)
        order[i] = i;
    rng_state = 7;
    for (uint64_t i = k - 1; i > 0; i--) {
        uint64_t j = rng_below(i + 1), tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
    }
    tracer t;
    tracer_init(&t, 6);
    for (uint64_t r = 0; r < rounds; r++)
        for (uint64_t i = 0; i < k; i++)
            touch(&t, order[i] * 64);
    free(order);
    perf_rd_dist d = tracer_dist(&t);
    perf_level lv[PERF_MAX_LEVELS];
    size_t nl = perf_cache_levels(&m, lv);
    perf_traffic tr = {.nlevels = nl, .dependent = 1};
    for (size_t i = 0; i < nl; i++) {
        tr.misses[i] = perf_level_misses(&d, &lv[i]);
        assert_float_equal(tr.misses[i], (double)(k * rounds), 1e-6);
    }
    perf_mem mem;
    perf_mem_time(&m, &tr, &mem);
    assert_float_equal(mem.overlap, 1, 0);
    assert_float_equal(mem.latency_cycles, (double)(k * rounds) * 396, 1e-3);
    assert_int_equal(mem.bound, -1);
    perf_core core = {.cycles = 4, .bound = PERF_BOUND_RECURRENCE}; /* the L1 hit latency of the chain */
    perf_loop_time lt;
    perf_loop_combine(&m, (double)(k * rounds), &core, &mem, &lt);
    char name[32];
    assert_string_equal(perf_bound_name(&m, lt.bound, name, sizeof name), "latency");
    assert_float_equal(lt.cycles, (double)(k * rounds) * 400, 1e-3);
    /* a chase through an affine-looking next[p] (its group counted as
     * streamed) still waits the full latency: nothing runs ahead of it */
    for (size_t i = 0; i < nl; i++)
        tr.stream_misses[i] = tr.misses[i];
    perf_mem_time(&m, &tr, &mem);
    assert_float_equal(mem.latency_cycles, (double)(k * rounds) * 396, 1e-3);
    for (size_t i = 0; i < nl; i++)
        tr.stream_misses[i] = 0;
    /* independent misses of the same count overlap 16 at a time */
    tr.dependent = 0;
    perf_mem_time(&m, &tr, &mem);
    assert_float_equal(mem.latency_cycles, (double)(k * rounds) * 396 / 16, 1e-3);
    perf_rd_dist_free(&d);
}

/* ---- the misses the core waits for, and how many at once ---------------------------- */

/* 1000 misses at every level, none prefetched, each waiting 396 cycles
 * beyond its L1 hit.  Stores retire into the store buffer and wait for
 * nobody: with 600 of them of stores only, 400 x 396 / 16 = 9900 cycles
 * of latency; the lines still move (bandwidth 1000 x 64 / 5 = 12 800). */
static void stores_do_not_wait(void **state)
{
    (void)state;
    machine m = test_machine();
    perf_traffic tr = {.nlevels = 3, .misses = {1000, 1000, 1000}};
    perf_mem mem;
    perf_mem_time(&m, &tr, &mem);
    assert_float_equal(mem.latency_cycles, 1000 * 396.0 / 16, 1e-9);
    for (size_t i = 0; i < 3; i++)
        tr.store_misses[i] = 600;
    perf_mem_time(&m, &tr, &mem);
    assert_float_equal(mem.latency_cycles, 400 * 396.0 / 16, 1e-9);
    assert_float_equal(mem.bw_cycles[2], 12800, 1e-9);
}

/* Misses overlap only within a window of the reorder buffer: with 256
 * entries, 1000 load misses over I instructions put 256000 / I of them in
 * a window: I = 8000, 32 -> the 16 miss buffers; I = 64000, 4; I = 10^6,
 * 0.256 -> 1 (each waits alone).  With no reorder_buffer described, or no
 * instruction count, the 16 buffers.  Stores do not count. */
static void window_limits_overlap(void **state)
{
    (void)state;
    machine m = test_machine();
    m.reorder_buffer = 256;
    perf_traffic tr = {.nlevels = 3, .misses = {1000, 1000, 1000}, .instructions = 8000};
    perf_mem mem;
    perf_mem_time(&m, &tr, &mem);
    assert_float_equal(mem.overlap, 16, 0);
    tr.instructions = 64000;
    perf_mem_time(&m, &tr, &mem);
    assert_float_equal(mem.overlap, 4, 1e-12);
    assert_float_equal(mem.latency_cycles, 1000 * 396.0 / 4, 1e-9);
    tr.store_misses[0] = 500;
    perf_mem_time(&m, &tr, &mem);
    assert_float_equal(mem.overlap, 2, 1e-12);
    tr.store_misses[0] = 0;
    tr.instructions = 1e6;
    perf_mem_time(&m, &tr, &mem);
    assert_float_equal(mem.overlap, 1, 0);
    tr.instructions = 0;
    perf_mem_time(&m, &tr, &mem);
    assert_float_equal(mem.overlap, 16, 0);
    m.reorder_buffer = 0;
    tr.instructions = 1e6;
    perf_mem_time(&m, &tr, &mem);
    assert_float_equal(mem.overlap, 16, 0);
}

/* The core's work and the stalls add; prefetched transfers overlap with
 * both.  A loop of 1e6 iterations at 2 cycles (2e6) with 24 750 cycles of
 * latency takes 2 024 750 cycles, bound by its ports; with 10^4 such
 * misses (247 500 x 10 = 2.475e6 of stalls, above the core's work) it is
 * "latency"; with 10^5 prefetched misses instead, their 1.28e6 cycles of
 * memory bandwidth hide under the core's 2e6. */
static void stalls_add_to_core(void **state)
{
    (void)state;
    machine m = test_machine();
    perf_core core = {.cycles = 2, .bound = PERF_BOUND_PORTS};
    perf_traffic tr = {.nlevels = 3, .misses = {1000, 1000, 1000}, .stream_misses = {1000, 1000, 1000},
                       .stream_pages = 1000};
    perf_mem mem;
    perf_loop_time lt;
    char name[32];
    perf_mem_time(&m, &tr, &mem);
    perf_loop_combine(&m, 1e6, &core, &mem, &lt);
    assert_float_equal(lt.cycles, 2e6 + 24750, 1e-6);
    assert_string_equal(perf_bound_name(&m, lt.bound, name, sizeof name), "ports");
    for (size_t i = 0; i < 3; i++)
        tr.misses[i] = tr.stream_misses[i] = 1e5;
    tr.stream_pages = 1e5;
    perf_mem_time(&m, &tr, &mem);
    perf_loop_combine(&m, 1e6, &core, &mem, &lt);
    assert_float_equal(lt.cycles, 2e6 + 2.475e6, 1e-3);
    assert_string_equal(perf_bound_name(&m, lt.bound, name, sizeof name), "latency");
    tr.stream_pages = 0;
    perf_mem_time(&m, &tr, &mem);
    perf_loop_combine(&m, 1e6, &core, &mem, &lt);
    assert_float_equal(mem.bw_cycles[2], 1.28e6, 1e-6);
    assert_float_equal(lt.cycles, 2e6, 1e-6);
    assert_string_equal(perf_bound_name(&m, lt.bound, name, sizeof name), "ports");
}

/* ---- port-bound loop --------------------------------------------------------------- */

static void port_bound_loop(void **state)
{
    (void)state;
    machine m = test_machine();
    /* two fp_mul per iteration on one port: 2 cycles; L1-resident data */
    perf_core core = {.uops = 4, .issue = 4.0 / 6, .resource = 2, .recurrence = 1, .cycles = 2,
                      .bound = PERF_BOUND_PORTS};
    perf_traffic tr = {.nlevels = 3, .misses = {100, 100, 100}, .stream_misses = {100, 100, 100}};
    perf_mem mem;
    perf_mem_time(&m, &tr, &mem); /* 100 lines: 1280 cycles at 5 B/cycle */
    perf_loop_time lt;
    perf_loop_combine(&m, 1e6, &core, &mem, &lt);
    assert_float_equal(lt.core_cycles, 2e6, 0);
    assert_float_equal(lt.mem_cycles, 1280, 1e-9);
    assert_float_equal(lt.cycles, 2e6, 0);
    assert_float_equal(lt.seconds, 2e6 / 4e9, 1e-18);
    char name[32];
    assert_string_equal(perf_bound_name(&m, lt.bound, name, sizeof name), "ports");
    /* L2-bandwidth bound: 1e6 L1 misses at 32 B/cycle exceed 2e6 core cycles */
    perf_traffic tr2 = {.nlevels = 3, .misses = {1.5e6, 0, 0}, .stream_misses = {1.5e6, 0, 0}};
    perf_mem_time(&m, &tr2, &mem);
    perf_loop_combine(&m, 1e6, &core, &mem, &lt);
    assert_float_equal(lt.cycles, 1.5e6 * 64 / 32, 1e-6);
    assert_string_equal(perf_bound_name(&m, lt.bound, name, sizeof name), "L2 bandwidth");
}

/* ---- penalties ------------------------------------------------------------------ */

/* N pages of 4 KiB, each 8-byte word written then read again (two sweeps):
 * the 4096-byte histogram has exactly N first touches, so N faults; at
 * 1500 ns and 4 GHz each costs 6000 cycles, added to the loop's 1 cycle
 * per access (2 * 512 per page), and it is what bounds the loop. */
static void page_faults_of_first_touches(void **state)
{
    (void)state;
    const uint64_t pages = 300;
    machine m = test_machine();
    m.page_fault_ns = 1500;
    tracer t;
    tracer_init(&t, 12);
    for (int sweep = 0; sweep < 2; sweep++)
        for (uint64_t a = 0; a < pages * 4096; a += 8)
            touch(&t, a);
    perf_rd_dist d = tracer_dist(&t);
    assert_float_equal(d.cold, (double)pages, 0);
    assert_float_equal(perf_fault_cycles(&m, d.cold), pages * 6000.0, 1e-6);
    perf_core core = {.cycles = 1, .bound = PERF_BOUND_ISSUE};
    perf_traffic tr = {.nlevels = 3};
    perf_mem mem;
    perf_mem_time(&m, &tr, &mem);
    perf_loop_time lt;
    double accesses = 2.0 * pages * 512;
    perf_loop_combine(&m, accesses, &core, &mem, &lt);
    perf_loop_add_penalties(&m, perf_fault_cycles(&m, d.cold), 0, &lt);
    assert_float_equal(lt.fault_cycles, pages * 6000.0, 1e-6);
    assert_float_equal(lt.cycles, accesses + pages * 6000.0, 1e-6);
    assert_float_equal(lt.seconds, (accesses + pages * 6000.0) / 4e9, 1e-15);
    char name[32];
    assert_string_equal(perf_bound_name(&m, lt.bound, name, sizeof name), "page faults");
    /* a cost below the loop's own time adds without taking the bound */
    perf_loop_combine(&m, accesses * 10, &core, &mem, &lt);
    perf_loop_add_penalties(&m, perf_fault_cycles(&m, d.cold), 0, &lt);
    assert_float_equal(lt.cycles, accesses * 10 + pages * 6000.0, 1e-6);
    assert_string_equal(perf_bound_name(&m, lt.bound, name, sizeof name), "issue");
    perf_rd_dist_free(&d);
}

/* Page distances bounded by line distances (perf_page_dist).  A cyclic
 * walk of 100 lines a page apart, 5 rounds: at both sizes 100 first
 * touches and 400 touches at distance 99, so a 128-entry TLB misses 100
 * times and a 64-entry one 500.  A page model that extrapolated far (300
 * first touches, every touch beyond 2^20 pages) is brought back to those
 * figures by the walk's lines and the 100 pages first touched, and at no
 * bin's low end does it keep more touches than the lines have.  A sweep
 * of 300 pages of doubles, twice: its exact page distribution is within
 * the bound, and comes out with the same misses (300 and 600 at 64
 * entries, 300 at 2048) and first touches. */
static void page_dist_from_lines(void **state)
{
    (void)state;
    tracer lt, pt;
    tracer_init(&lt, 6);
    tracer_init(&pt, 12);
    for (int round = 0; round < 5; round++)
        for (uint64_t k = 0; k < 100; k++) {
            touch(&lt, k * 4096);
            touch(&pt, k * 4096);
        }
    perf_rd_dist lines = tracer_dist(&lt), exact = tracer_dist(&pt), out;
    perf_rd_bin far = {400, 1 << 20, 1 << 21};
    perf_rd_dist wrong = {.cold = 300, .nbins = 1, .bins = &far};
    perf_level tlb128 = {"T", 4096, 1, 128, 0, 0}, tlb64 = {"T", 4096, 1, 64, 0, 0};
    assert_float_equal(perf_level_misses(&wrong, &tlb128), 700, 1e-9);
    assert_int_equal(perf_page_dist(&wrong, &lines, 100, &out), 0);
    assert_float_equal(out.cold, 100, 0);
    assert_float_equal(perf_rd_dist_accesses(&out), 500, 1e-9);
    assert_float_equal(perf_level_misses(&out, &tlb128), 100, 1e-9);
    assert_float_equal(perf_level_misses(&out, &tlb64), 500, 1e-9);
    assert_float_equal(perf_level_misses(&exact, &tlb128), 100, 1e-9);
    for (size_t k = 0; k < out.nbins; k++)
        assert_true(perf_rd_dist_beyond(&out, out.bins[k].low) <= perf_rd_dist_beyond(&lines, out.bins[k].low) + 1e-9);
    perf_rd_dist_free(&out);
    perf_rd_dist_free(&lines);
    perf_rd_dist_free(&exact);

    tracer_init(&lt, 6);
    tracer_init(&pt, 12);
    for (int sweep = 0; sweep < 2; sweep++)
        for (uint64_t a = 0; a < 300 * 4096; a += 8) {
            touch(&lt, a);
            touch(&pt, a);
        }
    lines = tracer_dist(&lt);
    exact = tracer_dist(&pt);
    perf_level tlb2048 = {"T", 4096, 1, 2048, 0, 0};
    assert_int_equal(perf_page_dist(&exact, &lines, exact.cold, &out), 0);
    assert_float_equal(out.cold, 300, 0);
    assert_float_equal(perf_level_misses(&out, &tlb64), 600, 1e-6);
    assert_float_equal(perf_level_misses(&out, &tlb2048), 300, 1e-6);
    assert_float_equal(perf_level_misses(&exact, &tlb64), 600, 1e-6);
    perf_rd_dist_free(&out);
    perf_rd_dist_free(&lines);
    perf_rd_dist_free(&exact);
}

/* A data-dependent branch taken 30 times of 100 mispredicts its minority
 * direction, 30 times; taken 70 of 100 the same; a loop's back edge
 * (taken 99 of 100) none; a branch never taken none.  30 mispredictions
 * at 17 cycles add 510 cycles to a loop of 100 iterations at 2 cycles. */
static void branch_mispredictions(void **state)
{
    (void)state;
    assert_float_equal(perf_branch_mispredicts(100, 30, 0), 30, 0);
    assert_float_equal(perf_branch_mispredicts(100, 70, 0), 30, 0);
    assert_float_equal(perf_branch_mispredicts(100, 99, 1), 0, 0);
    assert_float_equal(perf_branch_mispredicts(100, 0, 0), 0, 0);
    assert_float_equal(perf_branch_mispredicts(0, 0, 0), 0, 0);
    machine m = test_machine();
    m.branch_mispredict_cycles = 17;
    perf_core core = {.cycles = 2, .bound = PERF_BOUND_RECURRENCE};
    perf_traffic tr = {.nlevels = 3};
    perf_mem mem;
    perf_mem_time(&m, &tr, &mem);
    perf_loop_time lt;
    perf_loop_combine(&m, 100, &core, &mem, &lt);
    perf_loop_add_penalties(&m, 0, perf_branch_mispredicts(100, 30, 0) * m.branch_mispredict_cycles, &lt);
    assert_float_equal(lt.mispredict_cycles, 510, 0);
    assert_float_equal(lt.cycles, 200 + 510, 0);
    char name[32];
    assert_string_equal(perf_bound_name(&m, lt.bound, name, sizeof name), "mispredictions");
}

/* A misprediction's refill and resolution overlap with the work already
 * queued in the window (perf_mispredict_exposed).  The shapes of
 * bench/branches.c on Golden Cove (penalty 26 = refill 18 + a loaded
 * value's compare; a misprediction every other iteration at random, k
 * geometric with rate 1/2):
 *   24 independent adds   12 cycles an iteration, issued in 5: slack 7,
 *                         E[max(0, 26 - 7k)] = 19/2 + 12/4 + 5/8 = 13.125
 *                         (measured 12.2)
 *   3 divides             12 cycles, issued in 1.5: slack 10.5,
 *                         15.5/2 + 5/4 = 9 (measured 7.8)
 *   issue-bound           slack 0: the full 26 (measured 26.0)
 * At rate 1/100 (q = 0.99) the closed form with K = 3:
 * 26 (1 - q^3) - 7 (1 - 4 q^3 + 3 q^4) / 0.01.  A penalty of 300 meets
 * the cap, a window of 512 uops at 30 uops an iteration draining in
 * 512 / 30 * 12 = 204.8 cycles: against the sum term by term.  At 2
 * mispredictions an iteration the interval is half an iteration: 26 - 7/2.
 * Main's model charged the full penalty: a loop of 100 such iterations
 * with 50 mispredictions took 1200 + 1300 cycles, now 1200 + 50 * 13.125. */
static void mdtime_mispredict_overlap(void **state)
{
    (void)state;
    machine m = test_machine();
    m.reorder_buffer = 512;
    perf_core adds = {.uops = 30, .issue = 5, .cycles = 12, .bound = PERF_BOUND_PORTS};
    perf_core divides = {.uops = 9, .issue = 1.5, .cycles = 12, .bound = PERF_BOUND_PORTS};
    perf_core issue = {.uops = 30, .issue = 5, .cycles = 5, .bound = PERF_BOUND_ISSUE};
    assert_float_equal(perf_mispredict_exposed(&m, &adds, 0.5, 26), 13.125, 1e-9);
    assert_float_equal(perf_mispredict_exposed(&m, &divides, 0.5, 26), 9, 1e-9);
    assert_float_equal(perf_mispredict_exposed(&m, &issue, 0.5, 26), 26, 0);
    assert_float_equal(perf_mispredict_exposed(&m, &adds, 0, 26), 26, 0);
    double q = 0.99;
    assert_float_equal(perf_mispredict_exposed(&m, &adds, 0.01, 26),
                       26 * (1 - pow(q, 3)) - 7 * (1 - 4 * pow(q, 3) + 3 * pow(q, 4)) / 0.01, 1e-9);
    double cap = 512.0 / 30 * 12, direct = 0;
    for (int k = 1; k < 4000; k++)
        direct += 0.01 * pow(q, k - 1) * (300 - (7.0 * k < cap ? 7.0 * k : cap));
    assert_float_equal(perf_mispredict_exposed(&m, &adds, 0.01, 300), direct, 1e-6);
    assert_float_equal(perf_mispredict_exposed(&m, &adds, 2, 26), 26 - 3.5, 1e-12);
    perf_traffic tr = {.nlevels = 3};
    perf_mem mem;
    perf_mem_time(&m, &tr, &mem);
    perf_loop_time lt;
    perf_loop_combine(&m, 100, &adds, &mem, &lt);
    perf_loop_add_penalties(&m, 0, 50 * perf_mispredict_exposed(&m, &adds, 50 / 100.0, 26), &lt);
    assert_float_equal(lt.cycles, 1200 + 50 * 13.125, 1e-9);
}

/* ---- TLB ---------------------------------------------------------------------- */

/* P(Binomial(d, 1/sets) < ways), summed term by term with integer
 * binomial coefficients: the test's own evaluation of the formula. */
static double binomial_below(int d, double sets, int ways)
{
    double sum = 0, coef = 1; /* C(d, 0) */
    for (int j = 0; j < ways; j++) {
        sum += coef * pow(1 / sets, j) * pow(1 - 1 / sets, d - j);
        coef = coef * (d - j) / (j + 1);
    }
    return sum;
}

/* R sweeps over P pages, one access per page: distance P - 1 after the
 * first sweep.  A fully-associative 64-entry TLB hits every non-cold
 * access for P = 32 and none for P = 100; the 4-way (16-set) one hits
 * with P(Binomial(P - 1, 1/16) < 4). */
static void tlb_page_stride(void **state)
{
    (void)state;
    machine m = test_machine();
    perf_level tl[MACHINE_MAX_TLBS];
    assert_int_equal(perf_tlb_levels(&m, tl), 2);
    assert_float_equal(tl[0].sets, 16, 0);
    assert_float_equal(tl[1].sets, 128, 0);
    const uint64_t rounds = 10;
    for (uint64_t pages = 32; pages <= 100; pages += 68) {
        tracer t;
        tracer_init(&t, 12);
        for (uint64_t r = 0; r < rounds; r++)
            for (uint64_t p = 0; p < pages; p++)
                touch(&t, p * 4096 + 8);
        perf_rd_dist d = tracer_dist(&t);
        double reuses = (double)(pages * (rounds - 1));
        double want = pages + reuses * (1 - binomial_below((int)pages - 1, 16, 4));
        assert_float_equal(perf_level_misses(&d, &tl[0]), want, 1e-9 * want);
        perf_level fa = {"FA", 4096, 1, 64, 0, 0};
        assert_float_equal(perf_level_misses(&d, &fa), pages == 100 ? (double)(pages * rounds) : pages, 1e-9);
        perf_rd_dist_free(&d);
    }
}

/* ---- modeled distributions and geometry -------------------------------------------- */

static model constant(double v)
{
    return (model){.method = MODEL_CONSTANT, .constant = v};
}

/* cold 100, touches 1000: 40% at distance 3, the rest evenly over
 * [256, 4096): the distribution's cut equals rd_model_misses at bin
 * boundaries, and the hand count at 1024: 100 + 600 * 3072 / 3840. */
static void modeled_distribution(void **state)
{
    (void)state;
    rd_model_lead lead = {3, constant(0.4)};
    rd_model_bin bin = {0, 1, constant(256), constant(4096), constant(2176)};
    rd_model rm = {.cold = constant(100), .touches = constant(1000), .nlead = 1, .lead = &lead, .nbins = 1,
                   .bins = &bin};
    double x[1] = {1};
    perf_rd_dist d;
    assert_int_equal(perf_rd_dist_modeled(&rm, x, &d), 0);
    assert_float_equal(perf_rd_dist_accesses(&d), 1100, 1e-9);
    uint64_t caps[] = {1, 4, 16, 256, 1024, 3072, 4096, 1 << 20};
    for (size_t i = 0; i < sizeof caps / sizeof *caps; i++) {
        perf_level fa = {"FA", 64, 1, (double)caps[i], 0, 0};
        assert_float_equal(perf_level_misses(&d, &fa), rd_model_misses(&rm, x, caps[i]), 1e-9);
    }
    perf_level l1024 = {"FA", 64, 1, 1024, 0, 0};
    assert_float_equal(perf_level_misses(&d, &l1024), 100 + 600.0 * 3072 / 3840, 1e-9);
    perf_rd_dist_free(&d);
}

/* A measured bin's touches sit at its mean: touches all at 20 (bin
 * [20, 22)) miss a capacity of 20 and hit 21. */
static void measured_bin_spread(void **state)
{
    (void)state;
    rd_binrec recs[] = {{rd_bin_index(20), 5, 100}, {rd_bin_index(3), 7, 21}};
    perf_rd_dist d;
    assert_int_equal(perf_rd_dist_measured(2, recs, 2, &d), 0);
    perf_level c21 = {"FA", 64, 1, 21, 0, 0}, c20 = {"FA", 64, 1, 20, 0, 0}, c4 = {"FA", 64, 1, 4, 0, 0}, c3 = {"FA", 64, 1, 3, 0, 0};
    assert_float_equal(perf_level_misses(&d, &c21), 2, 1e-12);
    assert_float_equal(perf_level_misses(&d, &c20), 7, 1e-12);
    assert_float_equal(perf_level_misses(&d, &c4), 7, 1e-12);
    assert_float_equal(perf_level_misses(&d, &c3), 14, 1e-12);
    perf_rd_dist_free(&d);
}

/* Zen 4's L3 is a victim of L2: 32768 sets of 16 ways plus L2's 16384
 * lines, i.e. 16.5 ways. */
static void victim_level(void **state)
{
    (void)state;
    machine m = test_machine();
    m.cache[2].policy = MACHINE_VICTIM;
    perf_level lv[PERF_MAX_LEVELS];
    assert_int_equal(perf_cache_levels(&m, lv), 3);
    assert_float_equal(lv[0].sets, 64, 0);
    assert_float_equal(lv[1].sets, 2048, 0);
    assert_float_equal(lv[2].sets, 32768, 0);
    assert_float_equal(lv[2].ways, 16.5, 1e-12);
    assert_string_equal(lv[1].name, "L2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(binomial_small_cases, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(binomial_matches_random_placement, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(conflict_case, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(contiguous_sweeps, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(stride_sets, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(strided_hit_cases, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(strided_gemm_against_simulator, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(butterflies_conflict, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(butterflies_counted, reset_counts, check_no_leaks),
        cmocka_unit_test(pow2_narrow_classes),
        cmocka_unit_test_setup_teardown(stream_kernel, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(copy_stream_writes_back, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(page_walks_overlap_as_misses_do, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(walk_at_most_page_walkers, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(streams_restart_at_pages, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(dependent_chain, reset_counts, check_no_leaks),
        cmocka_unit_test(stores_do_not_wait),
        cmocka_unit_test(window_limits_overlap),
        cmocka_unit_test(stalls_add_to_core),
        cmocka_unit_test_setup_teardown(port_bound_loop, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(page_faults_of_first_touches, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(branch_mispredictions, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(mdtime_mispredict_overlap, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(tlb_page_stride, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(page_dist_from_lines, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(modeled_distribution, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(measured_bin_spread, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(victim_level, reset_counts, check_no_leaks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

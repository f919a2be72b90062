/* test_rd_hist.c — unit tests of the reuse-distance bins, histograms and the
 * LRU miss formula (rd_hist.c).
 *
 * The bin layout is checked against hand-computed values and against the
 * property rd.h promises (a bin boundary falls on every number with at most
 * four significant bits, and nowhere else).  rd_misses is checked against a
 * brute-force fully-associative LRU cache simulated here, on traces whose
 * histograms come from rd_stack, and against hand-computed interpolations.
 * Sampling (SHARDS): the scaling against 128-bit arithmetic, the share of
 * blocks sampled against its binomial bounds, and the clamped bin sums
 * against hand-computed values.
 */
#include <math.h>

#include "rd_test_support.h"

/* ---- bins ---------------------------------------------------------------- */

/* Values worked out by hand from the formula in rd.h. */
static void test_bin_examples(void **state)
{
    (void)state;
    static const struct { uint64_t d; unsigned bin; uint64_t low, high; } ex[] = {
        {0, 0, 0, 1},        {1, 1, 1, 2},        {15, 15, 15, 16},
        {16, 16, 16, 18},    {17, 16, 16, 18},    {18, 17, 18, 20},
        {23, 19, 22, 24},    {24, 20, 24, 26},    {31, 23, 30, 32},
        {32, 24, 32, 36},    {35, 24, 32, 36},    {36, 25, 36, 40},
        {47, 27, 44, 48},    {48, 28, 48, 52},    {63, 31, 60, 64},
        {64, 32, 64, 72},    {95, 35, 88, 96},    {96, 36, 96, 104},
        {100, 36, 96, 104},  {511, 55, 480, 512}, {512, 56, 512, 576},
        {767, 59, 704, 768}, {768, 60, 768, 832}, {4096, 80, 4096, 4608},
        {1000000, 16 + 15 * 8 + 7, 983040, 1048576},
        {(uint64_t)1 << 63, 16 + 59 * 8, (uint64_t)1 << 63, 9ull << 60},
        {UINT64_MAX - 1, RD_MAX_BINS - 1, 15ull << 60, UINT64_MAX},
    };
    for (size_t i = 0; i < sizeof ex / sizeof *ex; i++) {
        assert_int_equal(rd_bin_index(ex[i].d), ex[i].bin);
        assert_int_equal(rd_bin_low(ex[i].bin), ex[i].low);
        assert_int_equal(rd_bin_high(ex[i].bin), ex[i].high);
    }
    assert_int_equal(RD_MAX_BINS, 496);
}

/* The bins tile [0, 2^64) without gaps or overlaps, in increasing order,
 * each octave split into 8 bins of equal width. */
static void test_bins_contiguous(void **state)
{
    (void)state;
    assert_int_equal(rd_bin_low(0), 0);
    for (unsigned b = 0; b < RD_MAX_BINS; b++) {
        uint64_t lo = rd_bin_low(b), hi = rd_bin_high(b);
        assert_true(lo < hi);
        if (b + 1 < RD_MAX_BINS)
            assert_int_equal(hi, rd_bin_low(b + 1));
        assert_int_equal(rd_bin_index(lo), b);
        assert_int_equal(rd_bin_index(hi - 1), b);
        if (b < RD_EXACT_BINS)
            assert_int_equal(hi - lo, 1);
        else if (b + 1 < RD_MAX_BINS) /* width 2^(p-3) in octave p */
            assert_int_equal(hi - lo, (uint64_t)1 << (4 + (b - 16) / 8 - 3));
    }
    assert_int_equal(rd_bin_high(RD_MAX_BINS - 1), UINT64_MAX); /* saturated */
    assert_int_equal(rd_bin_index(UINT64_MAX), RD_MAX_BINS - 1);
    /* past the last bin: empty, beyond every distance */
    assert_int_equal(rd_bin_low(RD_MAX_BINS), UINT64_MAX);
    assert_int_equal(rd_bin_high(RD_MAX_BINS), UINT64_MAX);
    assert_int_equal(rd_bin_low(UINT32_MAX), UINT64_MAX);
}

/* Random distances of every magnitude land in a bin that contains them. */
static void test_bin_random(void **state)
{
    (void)state;
    rng_state = 99;
    for (int i = 0; i < 1000000; i++) {
        uint64_t d = rng_next() >> rng_below(64);
        unsigned b = rd_bin_index(d);
        assert_true(b < RD_MAX_BINS);
        assert_true(rd_bin_low(b) <= d);
        assert_true(d < rd_bin_high(b) || d == UINT64_MAX);
    }
}

/* Number of significant bits of c > 0 (from the highest set bit to the
 * lowest), computed bit by bit. */
static unsigned significant_bits(uint64_t c)
{
    while (!(c & 1))
        c >>= 1;
    unsigned n = 0;
    for (; c; c >>= 1)
        n++;
    return n;
}

/* rd.h: "a bin boundary falls on every capacity with at most four
 * significant bits" — and, for c >= 16, only there. */
static void test_bin_boundaries(void **state)
{
    (void)state;
    for (uint64_t c = 1; c < (1u << 20); c++) {
        int boundary = rd_bin_low(rd_bin_index(c)) == c;
        int expect = c < 16 || significant_bits(c) <= 4;
        assert_int_equal(boundary, expect);
    }
    static const uint64_t yes[] = {16, 24, 32, 48, 64, 96, 512, 768, 4096, 7u << 20};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        assert_int_equal(rd_bin_low(rd_bin_index(yes[i])), yes[i]);
    static const uint64_t no[] = {17, 25, 33, 100, 1000, 4097};
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        assert_true(rd_bin_low(rd_bin_index(no[i])) < no[i]);
}

/* ---- histograms ---------------------------------------------------------- */

static void test_hist_add(void **state)
{
    (void)state;
    rd_hist h = {0};
    rd_hist_add(&h, RD_COLD, 3, &alloc);
    assert_int_equal(h.cold, 3);
    assert_int_equal(h.nbins, 0); /* cold needs no bins */
    assert_int_equal(counts.allocs, 0);

    rd_hist_add(&h, 0, 1, &alloc);
    rd_hist_add(&h, 5, 4, &alloc);
    rd_hist_add(&h, 5, 1, &alloc);
    assert_true(h.nbins >= 6);
    assert_int_equal(h.bins[0].count, 1);
    assert_int_equal(h.bins[0].sum, 0);
    assert_int_equal(h.bins[5].count, 5);
    assert_int_equal(h.bins[5].sum, 25);

    rd_hist_add(&h, 1000, 2, &alloc); /* bin 16+5*8+7 = 63: [960, 1024) */
    rd_hist_add(&h, 1001, 1, &alloc);
    assert_true(h.nbins >= 64 && h.nbins <= RD_MAX_BINS);
    assert_int_equal(h.bins[63].count, 3);
    assert_int_equal(h.bins[63].sum, 3001);
    assert_int_equal(h.bins[5].count, 5); /* kept across the growth */
    uint64_t total = 0;
    for (uint32_t i = 0; i < h.nbins; i++)
        total += h.bins[i].count;
    assert_int_equal(total, 1 + 5 + 3); /* new bins start empty */

    rd_hist_add(&h, UINT64_MAX - 1, 1, &alloc); /* the very last bin */
    assert_int_equal(h.nbins, RD_MAX_BINS);
    assert_int_equal(h.bins[RD_MAX_BINS - 1].count, 1);

    rd_bin *kept = h.bins;
    rd_hist_clear(&h);
    assert_int_equal(h.cold, 0);
    assert_int_equal(h.nbins, RD_MAX_BINS);
    assert_ptr_equal(h.bins, kept);
    for (uint32_t i = 0; i < h.nbins; i++)
        assert_true(h.bins[i].count == 0 && h.bins[i].sum == 0);

    rd_hist_free(&h, &alloc);
    assert_int_equal(h.nbins, 0);
    assert_null(h.bins);
    rd_hist_free(&h, &alloc); /* freeing twice is harmless */
}

/* Distances growing one octave at a time: a bounded number of
 * reallocations (one per octave at most), and every count lands. */
static void test_hist_growth(void **state)
{
    (void)state;
    rd_hist h = {0};
    for (unsigned p = 0; p < 64; p++)
        rd_hist_add(&h, (uint64_t)1 << p, 1, &alloc);
    assert_true(counts.allocs <= 62);
    assert_int_equal(h.nbins, RD_MAX_BINS);
    for (unsigned p = 0; p < 64; p++)
        assert_int_equal(h.bins[rd_bin_index((uint64_t)1 << p)].count, 1);
    rd_hist_free(&h, &alloc);
}

/* ---- misses -------------------------------------------------------------- */

/* Brute-force fully-associative LRU cache of `cap` blocks: the blocks in an
 * array, most recent last; an access hits iff its block is present. */
static uint64_t lru_misses(const uint64_t *trace, size_t n, size_t cap)
{
    uint64_t *c = malloc(cap * sizeof *c), misses = 0;
    assert_non_null(c);
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = used;
        while (j > 0 && c[j - 1] != trace[i])
            j--;
        if (j == 0) { /* miss: evict the least recent if full */
            misses++;
            if (used == cap) {
                shift_down(c, cap - 1);
                used--;
            }
            c[used++] = trace[i];
        } else { /* hit: move to the most recent end */
            shift_down(&c[j - 1], used - j);
            c[used - 1] = trace[i];
        }
    }
    free(c);
    return misses;
}

/* The trace's histogram through rd_stack + rd_hist, as sparse records in a
 * shuffled order (rd_misses accepts any order).  Returns the record count. */
static size_t trace_hist(const uint64_t *trace, size_t n, uint64_t *cold,
                         rd_binrec *recs)
{
    rd_stack *s = rd_stack_new(&alloc);
    rd_hist h = {0};
    for (size_t i = 0; i < n; i++)
        rd_hist_add(&h, rd_stack_access(s, trace[i]), 1, &alloc);
    rd_stack_free(s);
    size_t m = 0;
    for (uint32_t b = 0; b < h.nbins; b++)
        if (h.bins[b].count)
            recs[m++] = (rd_binrec){b, h.bins[b].count, h.bins[b].sum};
    for (size_t i = m; i > 1; i--) {
        size_t j = rng_below(i);
        rd_binrec t = recs[i - 1];
        recs[i - 1] = recs[j];
        recs[j] = t;
    }
    *cold = h.cold;
    rd_hist_free(&h, &alloc);
    return m;
}

static const uint64_t boundary_caps[] = {1, 2, 8, 16, 64, 96, 512, 768, 4096};

/* rd_misses of the trace's histogram equals the LRU simulation at every
 * boundary capacity, and capacity 0 misses every access. */
static void check_misses_exact(const uint64_t *trace, size_t n)
{
    rd_binrec recs[RD_MAX_BINS];
    uint64_t cold;
    size_t m = trace_hist(trace, n, &cold, recs);
    assert_int_equal(rd_misses(cold, recs, m, 0), (double)n);
    for (size_t k = 0; k < sizeof boundary_caps / sizeof *boundary_caps; k++) {
        uint64_t cap = boundary_caps[k];
        double got = rd_misses(cold, recs, m, cap);
        uint64_t want = lru_misses(trace, n, cap);
        if (got != (double)want)
            print_error("capacity %llu: rd_misses %.3f, LRU simulation %llu\n",
                        (unsigned long long)cap, got, (unsigned long long)want);
        assert_true(got == (double)want);
    }
}

/* Random traces whose distances spread over all the capacities: each access
 * picks one of several footprints, then a block inside it. */
static void test_misses_random(void **state)
{
    (void)state;
    static const uint64_t fps[] = {3, 20, 90, 600, 800, 3000, 6000};
    const size_t n = 200000;
    uint64_t *trace = malloc(n * sizeof *trace);
    assert_non_null(trace);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        rng_state = seed;
        for (size_t i = 0; i < n; i++)
            trace[i] = rng_below(fps[rng_below(7)]) * 64 + seed;
        check_misses_exact(trace, n);
    }
    free(trace);
}

/* Cyclic sweeps whose sizes sit just below, at and above the capacities,
 * so distances fall exactly on the bin boundaries (K blocks swept: K-1). */
static void test_misses_sweeps(void **state)
{
    (void)state;
    static const uint64_t ks[] = {1, 2, 3, 8, 9, 16, 17, 64, 65, 96, 97,
                                  512, 513, 768, 769, 4096, 4097};
    size_t n = 0, cap = 400000;
    uint64_t *trace = malloc(cap * sizeof *trace);
    assert_non_null(trace);
    for (size_t k = 0; k < sizeof ks / sizeof *ks; k++)
        for (int r = 0; r < 4; r++)
            for (uint64_t b = 0; b < ks[k]; b++)
                trace[n++] = b + 100000 * k;
    assert_true(n <= cap);
    rng_state = 5;
    check_misses_exact(trace, n);
    free(trace);
}

/* A hand-made histogram and capacities inside bins: the uniform
 * interpolation count * (high - capacity) / (high - low). */
static void test_misses_interpolation(void **state)
{
    (void)state;
    const rd_binrec recs[] = { /* deliberately not in order */
        {40, 4, 4 * 130}, /* [128, 144) */
        {3, 7, 21},       /* distance 3 */
        {24, 8, 8 * 33},  /* [32, 36) */
        {16, 10, 165},    /* [16, 18) */
    };
    const uint64_t cold = 5;
    assert_true(rd_misses(cold, recs, 4, 0) == 34.0);   /* everything */
    assert_true(rd_misses(cold, recs, 4, 3) == 34.0);   /* d=3 misses a 3-block cache */
    assert_true(rd_misses(cold, recs, 4, 4) == 27.0);   /* d=3 hits */
    assert_true(rd_misses(cold, recs, 4, 16) == 27.0);  /* boundary: [16,18) misses */
    assert_true(rd_misses(cold, recs, 4, 17) == 22.0);  /* 5 + 10*1/2 + 8 + 4 */
    assert_true(rd_misses(cold, recs, 4, 18) == 17.0);
    assert_true(rd_misses(cold, recs, 4, 33) == 15.0);  /* 5 + 8*3/4 + 4 */
    assert_true(rd_misses(cold, recs, 4, 35) == 11.0);  /* 5 + 8*1/4 + 4 */
    assert_true(rd_misses(cold, recs, 4, 36) == 9.0);
    assert_true(rd_misses(cold, recs, 4, 130) == 8.5);  /* 5 + 4*14/16 */
    assert_true(rd_misses(cold, recs, 4, 144) == 5.0);
    assert_true(rd_misses(cold, recs, 4, UINT64_MAX) == 5.0);
    assert_true(rd_misses(0, NULL, 0, 100) == 0.0);

    /* the last bin [15*2^60, 2^64), whose high saturates */
    const rd_binrec last[] = {{RD_MAX_BINS - 1, 16, 0}};
    assert_true(rd_misses(0, last, 1, 15ull << 60) == 16.0);
    double half = rd_misses(0, last, 1, (15ull << 60) + (1ull << 59));
    assert_true(half > 7.99 && half < 8.01);
}

/* Misses never increase with capacity (on a random histogram). */
static void test_misses_monotone(void **state)
{
    (void)state;
    rng_state = 11;
    rd_binrec recs[200];
    for (unsigned i = 0; i < 200; i++)
        recs[i] = (rd_binrec){i * 2, 1 + rng_below(1000), 0};
    double prev = rd_misses(17, recs, 200, 0);
    for (uint64_t c = 1; c < 100000; c += 1 + c / 50) {
        double m = rd_misses(17, recs, 200, c);
        assert_true(m <= prev);
        prev = m;
    }
}

/* ---- sampling ------------------------------------------------------------ */

/* rd_sample_scale is round(x * 2^24 / T), half up, without overflow: against
 * 128-bit arithmetic on random x below 2^39 and every kind of T. */
static void test_sample_scale(void **state)
{
    (void)state;
    assert_int_equal(rd_sample_scale(3, 1677722), 30); /* 29.99998 at rate 0.1 */
    assert_int_equal(rd_sample_scale(0, 1677722), 0);
    assert_int_equal(rd_sample_scale(1, 1), RD_SAMPLE_MODULUS);
    assert_int_equal(rd_sample_scale((uint64_t)1 << 39, 1), (uint64_t)1 << 63);
    assert_int_equal(rd_sample_scale(12345, RD_SAMPLE_MODULUS), 12345);
    rng_state = 42;
    for (int i = 0; i < 100000; i++) {
        uint64_t x = rng_next() >> 25, t = 1 + rng_below(RD_SAMPLE_MODULUS);
        unsigned __int128 want = ((unsigned __int128)x * RD_SAMPLE_MODULUS + t / 2) / t;
        assert_int_equal(rd_sample_scale(x, (uint32_t)t), (uint64_t)want);
    }
}

/* The share of blocks sampled at rate q, over 2^20 consecutive blocks (a
 * sweep) and 2^20 blocks 4096 apart (a column walk), lies within four
 * standard deviations of a binomial (n, q): what an ideal hash gives. */
static void test_sampled_share(void **state)
{
    (void)state;
    const uint64_t n = 1u << 20;
    const uint32_t thresholds[] = {1677722, 167772, 8388608};
    for (size_t k = 0; k < sizeof thresholds / sizeof *thresholds; k++) {
        double q = (double)thresholds[k] / RD_SAMPLE_MODULUS, sd = sqrt(n * q * (1 - q));
        for (uint64_t stride = 1; stride <= 4096; stride *= 4096) {
            uint64_t hits = 0;
            for (uint64_t b = 0; b < n; b++)
                hits += (uint64_t)rd_sampled(0x7f0000000ull + b * stride, thresholds[k]);
            assert_true(fabs((double)hits - n * q) <= 4 * sd);
        }
    }
    for (uint64_t b = 0; b < 1000; b++)
        assert_true(rd_sampled(b, RD_SAMPLE_MODULUS)); /* the whole modulus: every block */
}

/* Scaled bins keep their sums possible: hand-computed roundings. */
static void test_bin_sample_scale(void **state)
{
    (void)state;
    const uint32_t rate_03 = 5033165, rate_0385 = 6452775; /* 0.3 and 1/2.6 of 2^24, rounded */
    rd_bin b = rd_bin_sample_scale(5, (rd_bin){1, 5}, rate_03); /* 3.33 -> 3 touches, 16.7 -> 17 > 3 * 5 */
    assert_int_equal(b.count, 3);
    assert_int_equal(b.sum, 15);
    b = rd_bin_sample_scale(16, (rd_bin){1, 16}, rate_03); /* bin [16, 18): 53.3 -> 53 > 3 * 17 */
    assert_int_equal(b.count, 3);
    assert_int_equal(b.sum, 51);
    b = rd_bin_sample_scale(16, (rd_bin){1, 16}, rate_0385); /* 2.6 -> 3 touches, 41.6 -> 42 < 3 * 16 */
    assert_int_equal(b.count, 3);
    assert_int_equal(b.sum, 48);
    b = rd_bin_sample_scale(rd_bin_index(1000), (rd_bin){4, 4000}, 1677722); /* inside: just scaled */
    assert_int_equal(b.count, 40);
    assert_int_equal(b.sum, 40000);
}

#define T(f) cmocka_unit_test_setup_teardown(f, reset_counts, check_no_leaks)

/* Run every test; cmocka returns the number of failures. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_bin_examples),
        T(test_bins_contiguous),
        T(test_bin_random),
        T(test_bin_boundaries),
        T(test_hist_add),
        T(test_hist_growth),
        T(test_misses_random),
        T(test_misses_sweeps),
        T(test_misses_interpolation),
        T(test_misses_monotone),
        T(test_sample_scale),
        T(test_sampled_share),
        T(test_bin_sample_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

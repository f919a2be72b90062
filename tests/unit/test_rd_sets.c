/* test_rd_sets.c — unit tests of set-local LRU distances (src/rd/rd_sets.c):
 * closed forms of cyclic sweeps over lines of one set and of spread sets,
 * the cap at RD_SET_WAYS, the misses a histogram gives against a direct LRU
 * simulation of the set-associative cache written here, the export that
 * rebuilds the lists, and the option's list. */
#include "rd_test_support.h"
#include "rd/rd_sets.h"

/* k lines of one set (stride = the set count), swept r times: the first
 * sweep far, then every touch at distance k - 1 (far from k = 33 on). */
static void test_cyclic_one_set(void **state)
{
    (void)state;
    for (unsigned k = 1; k <= 40; k++) {
        rd_sets *s = rd_sets_new(64, &alloc);
        for (unsigned r = 0; r < 3; r++)
            for (unsigned i = 0; i < k; i++) {
                uint64_t d = rd_sets_access(s, 5 + 64ull * i);
                assert_int_equal(d, r == 0 || k > RD_SET_WAYS ? RD_SET_FAR : k - 1);
            }
        rd_sets_free(s, &alloc);
    }
}

/* Consecutive lines fill the sets round-robin: n lines in S sets swept again
 * are at distance floor(n / S) or one less, per their set's share. */
static void test_consecutive_lines(void **state)
{
    (void)state;
    const unsigned S = 64, n = 200; /* 8 sets hold 4 lines, 56 hold 3 */
    rd_sets *s = rd_sets_new(S, &alloc);
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(rd_sets_access(s, i), RD_SET_FAR);
    unsigned at[4] = {0};
    for (unsigned i = 0; i < n; i++)
        at[rd_sets_access(s, i)]++;
    assert_int_equal(at[3], 8 * 4);
    assert_int_equal(at[2], 56 * 3);
    rd_sets_free(s, &alloc);
}

/* A direct LRU simulation of S sets x W ways: hits of a trace. */
static uint64_t lru_misses(const uint64_t *trace, size_t n, unsigned S, unsigned W)
{
    uint64_t *ways = malloc((size_t)S * W * sizeof *ways), misses = 0;
    unsigned *fill = calloc(S, sizeof *fill);
    for (size_t t = 0; t < n; t++) {
        uint64_t *w = ways + (trace[t] % S) * W;
        unsigned *f = &fill[trace[t] % S], p = 0;
        while (p < *f && w[p] != trace[t])
            p++;
        if (p == *f) {
            misses++;
            if (*f < W)
                (*f)++;
            p = *f - 1;
        }
        for (; p > 0; p--)
            w[p] = w[p - 1];
        w[0] = trace[t];
    }
    free(ways);
    free(fill);
    return misses;
}

/* A random trace over 3000 lines: the histogram's misses at every ways
 * count from 1 to 32 (rd_sets_misses; exact below 17 and at even counts)
 * equal the simulation's. */
static void test_misses_against_lru(void **state)
{
    (void)state;
    const size_t n = 200000;
    const unsigned S = 16;
    uint64_t *trace = malloc(n * sizeof *trace), x = 88172645463325252ull;
    for (size_t t = 0; t < n; t++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        trace[t] = x % 3000 < 2500 ? x % 300 : x % 3000; /* a hot part and a cold one */
    }
    rd_sets *s = rd_sets_new(S, &alloc);
    rd_hist h = {0};
    for (size_t t = 0; t < n; t++)
        rd_hist_add_one(&h, rd_sets_access(s, trace[t]), &alloc);
    rd_binrec bins[RD_MAX_BINS];
    size_t nb = 0;
    for (uint32_t b = 0; b < h.nbins; b++)
        if (h.bins[b].count)
            bins[nb++] = (rd_binrec){b, h.bins[b].count, h.bins[b].sum};
    for (unsigned W = 1; W <= RD_SET_WAYS; W++)
        if (W <= 16 || W % 2 == 0)
            assert_int_equal((uint64_t)rd_sets_misses(h.cold, bins, nb, W), lru_misses(trace, n, S, W));
    rd_hist_free(&h, &alloc);
    rd_sets_free(s, &alloc);
    free(trace);
}

/* The entries, touched in order in new lists, rebuild them: the same
 * distances from then on. */
static void test_entries_rebuild(void **state)
{
    (void)state;
    rd_sets *a = rd_sets_new(8, &alloc), *b = rd_sets_new(8, &alloc);
    for (uint64_t i = 0; i < 500; i++)
        rd_sets_access(a, (i * 7919) % 97);
    uint64_t *lines = malloc(8 * RD_SET_WAYS * sizeof *lines);
    uint64_t n = rd_sets_entries(a, lines);
    assert_int_equal(n, 8 * 12 + 1); /* 97 lines: set 0 has 13, the others 12 */
    for (uint64_t k = 0; k < n; k++)
        rd_sets_access(b, lines[k]);
    for (uint64_t i = 0; i < 300; i++) {
        uint64_t line = (i * 31) % 150;
        assert_int_equal(rd_sets_access(a, line), rd_sets_access(b, line));
    }
    free(lines);
    rd_sets_free(a, &alloc);
    rd_sets_free(b, &alloc);
}

/* rd_sets_touch_nested at set counts 4, 64, 2048 against each set count's
 * lists run alone (rd_sets_touch): the same histograms and the same lists
 * after a trace of interleaved streams (distance 0 at 4 sets, where the
 * larger lists are skipped), strided walks (far at 4 sets, near at 2048)
 * and random lines, with accesses of one line and of several. */
static void test_nested_against_alone(void **state)
{
    (void)state;
    enum { NS = 3 };
    const uint32_t counts[NS] = {4, 64, 2048};
    rd_sets *nested[NS], *alone[NS];
    rd_hist hn[NS] = {{0}}, ha[NS] = {{0}};
    for (unsigned j = 0; j < NS; j++) {
        nested[j] = rd_sets_new(counts[j], &alloc);
        alone[j] = rd_sets_new(counts[j], &alloc);
    }
    uint64_t x = 88172645463325252ull, zero_at_4 = 0;
    for (uint64_t t = 0; t < 300000; t++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t first, phase = (t / 20000) % 3;
        if (phase == 0)
            first = 1000001 * (t % 3) + t / 24; /* three streams, in three sets of 4 */
        else if (phase == 1)
            first = (t * 2048 + (t / 512)) % 400000; /* a column walk */
        else
            first = x % 50000;
        uint64_t last = first + (x >> 60 == 0); /* one access in 16 spans two lines */
        uint64_t before = hn[0].nbins ? hn[0].bins[0].count : 0;
        rd_sets_touch_nested(nested, NS, first, last, hn, &alloc);
        zero_at_4 += (hn[0].nbins ? hn[0].bins[0].count : 0) - before;
        for (unsigned j = 0; j < NS; j++)
            rd_sets_touch(alone[j], first, last, &ha[j], &alloc);
    }
    assert_true(zero_at_4 > 50000); /* the skip was taken */
    uint64_t *ln = malloc(2048 * RD_SET_WAYS * sizeof *ln), *la = malloc(2048 * RD_SET_WAYS * sizeof *la);
    for (unsigned j = 0; j < NS; j++) {
        assert_int_equal(hn[j].cold, ha[j].cold);
        for (uint32_t b = 0; b < hn[j].nbins || b < ha[j].nbins; b++) {
            rd_bin zero = {0, 0}, bn = b < hn[j].nbins ? hn[j].bins[b] : zero, ba = b < ha[j].nbins ? ha[j].bins[b] : zero;
            assert_int_equal(bn.count, ba.count);
            assert_int_equal(bn.sum, ba.sum);
        }
        uint64_t n = rd_sets_entries(nested[j], ln);
        assert_int_equal(n, rd_sets_entries(alone[j], la));
        assert_memory_equal(ln, la, n * sizeof *ln);
    }
    for (unsigned j = 0; j < NS; j++) {
        rd_hist_free(&hn[j], &alloc), rd_hist_free(&ha[j], &alloc);
        rd_sets_free(nested[j], &alloc), rd_sets_free(alone[j], &alloc);
    }
    free(ln);
    free(la);
}

static void test_parse(void **state)
{
    (void)state;
    uint32_t v[RD_MAX_SET_COUNTS];
    unsigned n;
    assert_int_equal(rd_sets_parse("64,1024,2048", v, &n), 0);
    assert_int_equal(n, 3);
    assert_int_equal(v[2], 2048);
    assert_int_equal(rd_sets_parse("1", v, &n), 0);
    const char *bad[] = {"", "0", "48", "64,64", "128,64", "64,", ",64", "1,2,4,8,16", "131072", "64 ", "-64"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(rd_sets_parse(bad[i], v, &n), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cyclic_one_set, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_consecutive_lines, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_misses_against_lru, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_entries_rebuild, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_nested_against_alone, reset_counts, check_no_leaks),
        cmocka_unit_test(test_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

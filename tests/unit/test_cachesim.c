/* test_cachesim.c — unit tests of the set-associative LRU cache simulator
 * (src/cachesim).
 *
 * Every expected count comes from outside the simulator: closed forms of
 * simple access patterns, hand-traced small traces, a naive reference cache
 * written here (per set an unordered list with last-use times, LRU eviction
 * by the smallest time), and, for fully-associative caches, the miss count
 * that src/rd's reuse-distance histogram predicts.  The counting allocator
 * of rd_test_support.h fills new memory with garbage and checks that every
 * test releases everything it allocated.
 */
#include "rd_test_support.h"

#include "cachesim/cachesim.h"

/* A level that must construct; fails the test otherwise. */
static cs_level *level(uint64_t size, uint32_t line, uint32_t ways)
{
    const char *err = NULL;
    cs_level *c = cs_level_new(size, line, ways, &alloc, &err);
    assert_non_null(c);
    return c;
}

/* ---- naive reference ------------------------------------------------------ */

/* The cache as sets of (block, last use time) with linear search, and
 * eviction of the entry with the smallest last-use time. */
typedef struct naive_cache {
    uint64_t sets, ways, line, now;
    uint64_t *block, *time; /* sets * ways entries each */
    uint64_t *n;            /* entries in use per set */
} naive_cache;

static void naive_init(naive_cache *r, uint64_t size, uint64_t line, uint64_t ways)
{
    r->sets = size / line / ways;
    r->ways = ways;
    r->line = line;
    r->now = 0;
    r->block = malloc(size / line * sizeof *r->block);
    r->time = malloc(size / line * sizeof *r->time);
    r->n = calloc(r->sets, sizeof *r->n);
    assert_true(r->block && r->time && r->n);
}

/* 1 on a hit, 0 on a miss, of an access to block. */
static int naive_block(naive_cache *r, uint64_t block)
{
    uint64_t s = block % r->sets, base = s * r->ways;
    r->now++;
    for (uint64_t i = 0; i < r->n[s]; i++)
        if (r->block[base + i] == block) {
            r->time[base + i] = r->now;
            return 1;
        }
    uint64_t slot;
    if (r->n[s] < r->ways) {
        slot = r->n[s]++;
    } else {
        slot = 0;
        for (uint64_t i = 1; i < r->ways; i++)
            if (r->time[base + i] < r->time[base + slot])
                slot = i;
    }
    r->block[base + slot] = block;
    r->time[base + slot] = r->now;
    return 0;
}

/* Misses of an access to [addr, addr + size), size > 0, no wrap-around. */
static uint64_t naive_access(naive_cache *r, uint64_t addr, uint64_t size)
{
    uint64_t m = 0;
    for (uint64_t b = addr / r->line; b <= (addr + size - 1) / r->line; b++)
        m += !naive_block(r, b);
    return m;
}

static void naive_free(naive_cache *r)
{
    free(r->block);
    free(r->time);
    free(r->n);
}

/* ---- random traces against the reference ---------------------------------- */

/* Random accesses of 1..16 bytes over a footprint of 3x the cache size,
 * with half of them in a hot region of half the cache size (so there are
 * plenty of hits as well as misses); compared access by access. */
static void check_random(uint64_t size, uint32_t line, uint32_t ways, uint64_t seed)
{
    rng_state = seed;
    cs_level *c = level(size, line, ways);
    naive_cache r;
    naive_init(&r, size, line, ways);
    uint64_t base = 0x7f0000000000ull, misses = 0, n = 200000;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t span = rng_below(2) ? size / 2 : 3 * size;
        uint64_t addr = base + rng_below(span), len = 1 + rng_below(16);
        uint64_t want = naive_access(&r, addr, len);
        assert_int_equal(cs_level_access(c, addr, len), want);
        misses += want;
    }
    assert_true(misses > n / 20);   /* the trace is not trivial ... */
    assert_true(misses < n);        /* ... either way */
    naive_free(&r);
    cs_level_free(c);
}

static void test_random_direct_mapped(void **state)
{
    (void)state;
    check_random(4096, 64, 1, 1);
    check_random(1024, 8, 1, 2);
}

static void test_random_2way(void **state)
{
    (void)state;
    check_random(8192, 32, 2, 3);
}

static void test_random_8way(void **state)
{
    (void)state;
    check_random(32768, 64, 8, 4);
    check_random(4096, 16, 8, 5);
}

static void test_random_fully_associative(void **state)
{
    (void)state;
    check_random(4096, 64, 64, 6); /* 1 set of 64 lines */
    check_random(2048, 8, 256, 7);
}

/* ---- fully associative == reuse-distance prediction ----------------------- */

/* A fully-associative cache of `cap` lines (a bin boundary) misses exactly
 * cold + (accesses with distance >= cap), as rd_misses computes from the
 * rd_stack histogram of the same block trace. */
static void check_against_rd(uint64_t cap, uint64_t seed)
{
    rng_state = seed;
    cs_level *c = level(cap * 64, 64, (uint32_t)cap);
    assert_int_equal(cs_level_sets(c), 1);
    rd_stack *s = rd_stack_new(&alloc);
    rd_hist h = {0};
    uint64_t misses = 0, n = 100000;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t b = rng_below(2) ? rng_below(cap) : rng_below(3 * cap);
        b = b * 0x9e3779b1ull + 12345; /* spread the block numbers */
        misses += !cs_level_access_block(c, b);
        rd_hist_add_one(&h, rd_stack_access(s, b), &alloc);
    }
    rd_binrec recs[RD_MAX_BINS];
    size_t m = 0;
    for (uint32_t b = 0; b < h.nbins; b++)
        if (h.bins[b].count)
            recs[m++] = (rd_binrec){b, h.bins[b].count, h.bins[b].sum};
    assert_true(misses > h.cold); /* capacity misses occur */
    assert_true(misses < n);
    assert_int_equal((uint64_t)rd_misses(h.cold, recs, m, cap), misses);
    assert_true(rd_misses(h.cold, recs, m, cap) == (double)misses);
    rd_hist_free(&h, &alloc);
    rd_stack_free(s);
    cs_level_free(c);
}

static void test_fully_associative_matches_rd(void **state)
{
    (void)state;
    check_against_rd(64, 11);
    check_against_rd(512, 12);
    check_against_rd(96, 13);
}

/* ---- closed forms ---------------------------------------------------------- */

/* A cyclic sweep of `k` lines, `rounds` times, over a fully-associative
 * cache of `cap` lines; returns the misses. */
static uint64_t sweep(uint64_t cap, uint64_t k, uint64_t rounds)
{
    cs_level *c = level(cap * 64, 64, (uint32_t)cap);
    uint64_t m = 0;
    for (uint64_t r = 0; r < rounds; r++)
        for (uint64_t i = 0; i < k; i++)
            m += cs_level_access(c, 0x1000 + i * 64, 8);
    cs_level_free(c);
    return m;
}

static void test_cyclic_sweep(void **state)
{
    (void)state;
    assert_int_equal(sweep(16, 1, 10), 1);
    assert_int_equal(sweep(16, 15, 10), 15);
    assert_int_equal(sweep(16, 16, 10), 16);      /* fits exactly */
    assert_int_equal(sweep(16, 17, 10), 170);     /* LRU: every access misses */
    assert_int_equal(sweep(16, 32, 10), 320);
    assert_int_equal(sweep(512, 512, 5), 512);
    assert_int_equal(sweep(512, 513, 5), 5 * 513);
}

/* Two addresses one cache size apart map to the same set: they evict each
 * other in a direct-mapped cache, and coexist in a 2-way one. */
static void test_conflict(void **state)
{
    (void)state;
    cs_level *dm = level(4096, 64, 1), *tw = level(4096, 64, 2);
    uint64_t mdm = 0, mtw = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t addr = 0x10000 + (uint64_t)(i & 1) * 4096;
        mdm += cs_level_access(dm, addr, 4);
        mtw += cs_level_access(tw, addr, 4);
    }
    assert_int_equal(mdm, 100);
    assert_int_equal(mtw, 2);
    /* 2-way, 32 sets: a third line of the same set evicts the LRU one. */
    uint64_t A = 0x10000, B = A + 4096, C = A + 2048; /* loop ended B */
    assert_int_equal(cs_level_sets(tw), 32);
    assert_int_equal(cs_level_access(tw, A, 1), 0); /* B A -> A B */
    assert_int_equal(cs_level_access(tw, C, 1), 1); /* evicts B: C, A */
    assert_int_equal(cs_level_access(tw, A, 1), 0);
    assert_int_equal(cs_level_access(tw, B, 1), 1); /* evicts C: B, A */
    assert_int_equal(cs_level_access(tw, A, 1), 0);
    assert_int_equal(cs_level_access(tw, C, 1), 1);
    assert_int_equal(cs_level_access(tw, A + 64, 1), 1); /* another set */
    cs_level_free(dm);
    cs_level_free(tw);
}

/* An access covers every line it touches, each once. */
static void test_line_spans(void **state)
{
    (void)state;
    cs_level *c = level(4096, 64, 4);
    assert_int_equal(cs_level_access(c, 0x1000 + 63, 2), 2); /* straddles */
    assert_int_equal(cs_level_access(c, 0x1000, 128), 0);    /* both in now */
    assert_int_equal(cs_level_access(c, 0x1000 + 64, 1), 0);
    assert_int_equal(cs_level_access(c, 0x2000, 64), 1);     /* one whole line */
    assert_int_equal(cs_level_access(c, 0x3000 + 1, 64), 2);
    assert_int_equal(cs_level_access(c, 0x4000, 0), 0);      /* touches nothing */
    assert_int_equal(cs_level_access(c, 0x4000, 1), 1);      /* so still cold */
    assert_int_equal(cs_level_access(c, 0x5000 + 60, 200), 5); /* 0x503c..0x5103 */
    /* the top of the address space: stops at 2^64 - 1 */
    assert_int_equal(cs_level_access(c, UINT64_MAX - 63, 1000), 1);
    assert_int_equal(cs_level_access(c, UINT64_MAX, 1), 0);
    /* block numbers are arbitrary 64-bit values, 0 included */
    assert_int_equal(cs_level_access_block(c, 0), 0);
    assert_int_equal(cs_level_access_block(c, 0), 1);
    assert_int_equal(cs_level_access_block(c, UINT64_MAX), 0);
    assert_int_equal(cs_level_access_block(c, UINT64_MAX), 1);
    cs_level_free(c);
}

/* ---- geometry --------------------------------------------------------------- */

static void test_bad_geometry(void **state)
{
    (void)state;
    static const struct {
        uint64_t size;
        uint32_t line, ways;
    } bad[] = {
        {4096, 0, 1},     /* line 0 */
        {4096, 48, 1},    /* line not a power of two */
        {4096, 4, 1},     /* line < 8 */
        {4096, 64, 0},    /* no ways */
        {0, 64, 1},       /* empty */
        {4000, 64, 1},    /* size not a multiple of the line */
        {4096, 64, 3},    /* size not a multiple of line * ways */
        {3 * 4096, 64, 1},/* 192 sets */
        {64 * 6, 64, 2},  /* 3 sets */
        {4096, 64, 128},  /* more ways than lines */
        {(uint64_t)1 << 36, 8, 1}, /* 2^33 lines */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *err = NULL;
        assert_null(cs_level_new(bad[i].size, bad[i].line, bad[i].ways, &alloc, &err));
        assert_non_null(err);
        assert_true(strlen(err) > 0);
        assert_null(cs_level_new(bad[i].size, bad[i].line, bad[i].ways, &alloc, NULL));
    }
    assert_int_equal(counts.allocs, 0); /* a rejected geometry allocates nothing */
}

static void test_good_geometry(void **state)
{
    (void)state;
    cs_level *c = level(32768, 64, 8);
    assert_int_equal(cs_level_line(c), 64);
    assert_int_equal(cs_level_ways(c), 8);
    assert_int_equal(cs_level_sets(c), 64);
    cs_level_free(c);
    c = level(64 * 3, 64, 3); /* 3-way, 1 set: fully associative */
    assert_int_equal(cs_level_sets(c), 1);
    cs_level_free(c);
    c = level(8, 8, 1); /* the smallest cache */
    assert_int_equal(cs_level_access(c, 0, 8), 1);
    assert_int_equal(cs_level_access(c, 7, 1), 0);
    assert_int_equal(cs_level_access(c, 8, 1), 1);
    assert_int_equal(cs_level_access(c, 0, 1), 1);
    cs_level_free(c);
}

/* ---- hierarchy -------------------------------------------------------------- */

/* L1: 2 lines fully associative; L2: 3 lines fully associative, both with
 * 64-byte lines.  Trace of lines A B A C D B, traced by hand:
 *   A: L1 miss, L2 miss (L2: A)        B: L1 miss, L2 miss (L2: B A)
 *   A: L1 hit, L2 not accessed         C: L1 miss (L1: C A), L2 miss (C B A)
 *   D: L1 miss (L1: D C), L2 miss evicts A, L2's LRU as it never saw A's
 *      reuse (L2: D C B)               B: L1 miss, L2 HIT.
 * Had L2 seen every access, D would have evicted B and B would miss. */
static void test_hierarchy_filters(void **state)
{
    (void)state;
    cs_level *lv[2] = {level(128, 64, 2), level(192, 64, 3)};
    cs_hierarchy h;
    cs_hierarchy_init(&h, lv, 2);
    static const uint64_t line[] = {0, 1, 0, 2, 3, 1}; /* A B A C D B */
    static const uint64_t acc1[] = {1, 2, 2, 3, 4, 5}, miss1[] = {1, 2, 2, 3, 4, 5};
    static const uint64_t miss0[] = {1, 2, 2, 3, 4, 5};
    for (int i = 0; i < 6; i++) {
        cs_hierarchy_access(&h, 0x40000 + line[i] * 64 + 8, 8);
        assert_int_equal(h.accesses[0], i + 1);
        assert_int_equal(h.misses[0], miss0[i]);
        assert_int_equal(h.accesses[1], acc1[i]);
        assert_int_equal(h.misses[1], i == 5 ? 4 : miss1[i]);
    }
    cs_hierarchy_access(&h, 0x40000, 0); /* nothing */
    assert_int_equal(h.accesses[0], 6);
    cs_level_free(lv[0]);
    cs_level_free(lv[1]);
}

/* Different line sizes: an L1 miss requests its whole line from L2. */
static void test_hierarchy_line_sizes(void **state)
{
    (void)state;
    /* L1 32-byte lines, L2 64-byte lines: two L1 lines share an L2 line. */
    cs_level *a[2] = {level(64, 32, 2), level(256, 64, 4)};
    cs_hierarchy h;
    cs_hierarchy_init(&h, a, 2);
    cs_hierarchy_access(&h, 0x1000, 64);
    assert_int_equal(h.accesses[0], 2);
    assert_int_equal(h.misses[0], 2);
    assert_int_equal(h.accesses[1], 2);
    assert_int_equal(h.misses[1], 1);
    cs_level_free(a[0]);
    cs_level_free(a[1]);
    /* L1 64-byte lines, L2 32-byte lines, L3 64: an L1 miss is two L2 lines. */
    cs_level *b[3] = {level(128, 64, 1), level(1024, 32, 1), level(4096, 64, 4)};
    cs_hierarchy_init(&h, b, 3);
    cs_hierarchy_access(&h, 0x2000 + 10, 1);
    assert_int_equal(h.accesses[0], 1);
    assert_int_equal(h.misses[0], 1);
    assert_int_equal(h.accesses[1], 2);
    assert_int_equal(h.misses[1], 2);
    assert_int_equal(h.accesses[2], 2); /* the same L3 line twice */
    assert_int_equal(h.misses[2], 1);
    cs_hierarchy_access(&h, 0x2000 + 128, 1); /* evicts 0x2000 from L1 only */
    cs_hierarchy_access(&h, 0x2000 + 40, 1);  /* L1 miss, L2 hits both halves */
    assert_int_equal(h.accesses[0], 3);
    assert_int_equal(h.misses[0], 3);
    assert_int_equal(h.accesses[1], 6);
    assert_int_equal(h.misses[1], 4);
    assert_int_equal(h.accesses[2], 4);
    assert_int_equal(h.misses[2], 2);
    for (int k = 0; k < 3; k++)
        cs_level_free(b[k]);
}

/* A one-level hierarchy counts exactly what the level returns. */
static void test_hierarchy_single(void **state)
{
    (void)state;
    rng_state = 21;
    cs_level *c = level(4096, 64, 4), *d = level(4096, 64, 4);
    cs_hierarchy h;
    cs_hierarchy_init(&h, &c, 1);
    uint64_t m = 0, n = 0;
    for (int i = 0; i < 10000; i++) {
        uint64_t addr = rng_below(16384), len = 1 + rng_below(100);
        n += (addr + len - 1) / 64 - addr / 64 + 1;
        m += cs_level_access(d, addr, len);
        cs_hierarchy_access(&h, addr, len);
    }
    assert_int_equal(h.accesses[0], n);
    assert_int_equal(h.misses[0], m);
    cs_level_free(c);
    cs_level_free(d);
}

/* ---- allocation ------------------------------------------------------------- */

static void test_allocation_balance(void **state)
{
    (void)state;
    cs_level_free(NULL);
    assert_int_equal(counts.allocs, 0);
    cs_level *c = level(32768, 64, 8);
    assert_true(counts.allocs > 0);
    assert_int_equal(counts.releases, 0);
    for (uint64_t b = 0; b < 10000; b++)
        cs_level_access_block(c, b * 7);
    long allocs = counts.allocs;
    assert_int_equal(counts.releases, 0); /* accesses neither allocate ... */
    cs_level_free(c);
    assert_int_equal(counts.allocs, allocs); /* ... nor does free */
    assert_int_equal(counts.releases, counts.allocs);
}

/* cs_level_touch and cs_level_remove on one 4-way set, hand-traced:
 * positions in MRU order, the LRU victim, removal leaving a free way that
 * the next miss fills. */
static void test_touch_remove(void **state)
{
    (void)state;
    const char *err = NULL;
    cs_level *c = cs_level_new(256, 64, 4, &alloc, &err); /* 1 set */
    assert_non_null(c);
    assert_null(cs_level_check(256, 64, 4));
    assert_string_equal(cs_level_check(256, 64, 3),
                        "cache size must be a multiple of line size times associativity");
    for (uint32_t b = 1; b <= 4; b++) {
        cs_touch t = cs_level_touch(c, b);
        assert_int_equal(t.pos, 4);
        assert_int_equal(t.evicted, 0);
    }
    assert_int_equal(cs_level_touch(c, 2).pos, 2); /* MRU order 4 3 2 1 */
    cs_touch t = cs_level_touch(c, 5);             /* now 2 4 3 1: 1 drops */
    assert_int_equal(t.evicted, 1);
    assert_int_equal(t.victim, 1);
    assert_int_equal(cs_level_remove(c, 4), 2); /* 5 2 4 3 */
    assert_int_equal(cs_level_remove(c, 4), 4); /* absent: ways */
    t = cs_level_touch(c, 6); /* fills the freed way: 6 5 2 3 */
    assert_int_equal(t.evicted, 0);
    assert_int_equal(cs_level_touch(c, 3).pos, 3);
    t = cs_level_touch(c, 7); /* 3 6 5 2: 2 drops */
    assert_int_equal(t.victim, 2);
    cs_level_free(c);
}

#define T(f) cmocka_unit_test_setup_teardown(f, reset_counts, check_no_leaks)

/* Run every test; cmocka returns the number of failures. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_random_direct_mapped),
        T(test_random_2way),
        T(test_random_8way),
        T(test_random_fully_associative),
        T(test_fully_associative_matches_rd),
        T(test_cyclic_sweep),
        T(test_conflict),
        T(test_line_spans),
        T(test_bad_geometry),
        T(test_good_geometry),
        T(test_hierarchy_filters),
        T(test_hierarchy_line_sizes),
        T(test_hierarchy_single),
        T(test_allocation_balance),
        T(test_touch_remove),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

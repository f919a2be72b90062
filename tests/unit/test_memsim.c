/* test_memsim.c — unit tests of memspy's simulator (src/cachesim/memsim.h).
 *
 * Expected numbers come from outside the simulator: closed forms of access
 * patterns (streams, cyclic sweeps, strides into one set), hand traces of
 * two- and three-thread sharing and of time sampling, and, on random
 * traces, cachesim's own levels (cs_hierarchy, a fully-associative
 * cs_level for the capacity/conflict split, Cachegrind's two-level rule
 * written with two cs_levels).  The counting allocator of
 * rd_test_support.h checks that every test releases all it allocated. */
#include "rd_test_support.h"

#include "cachesim/cachesim.h"
#include "cachesim/memsim.h"
#include "cachesim/memsim_internal.h"
#include "cachesim/ms_shadow.h"
#include "memspy_report/memspy_report.h"

#define LINE 64u
#define BASE 0x10000000ull /* line- and page-aligned start of test data */

/* ---- helpers ---------------------------------------------------------------- */

/* A configuration of n levels, each (size, ways, shared_by), 64-byte lines,
 * every set simulated. */
static ms_config config(unsigned n, const uint64_t (*lv)[3])
{
    ms_config c = {0};
    c.nlevels = n;
    c.set_sample = 1;
    for (unsigned k = 0; k < n; k++)
        c.level[k] = (ms_level_config){lv[k][0], LINE, (uint32_t)lv[k][1], (uint32_t)lv[k][2]};
    return c;
}

/* A simulator that must construct. */
static ms_sim *sim(const ms_config *c)
{
    const char *err = NULL;
    ms_sim *s = ms_new(c, &alloc, &err);
    assert_non_null(s);
    return s;
}

/* One reference; returns its result. */
static ms_result ref(ms_sim *s, unsigned t, uint64_t addr, uint32_t size, int write, uint32_t tag)
{
    ms_result r;
    ms_access(s, t, addr, size, write, tag, &r);
    return r;
}

/* Counts over many references. */
typedef struct tally {
    uint64_t refs, sampled;
    uint64_t misses[CS_MAX_LEVELS];
    uint64_t cause[CS_MAX_LEVELS][MS_NCAUSES];
    uint64_t unknown[CS_MAX_LEVELS];
} tally;

/* Add one result of a simulator with n levels to t. */
static void count(tally *t, const ms_result *r, unsigned n)
{
    t->refs++;
    if (!r->sampled)
        return;
    t->sampled++;
    for (unsigned k = 0; k < n && k < r->hit_level; k++) {
        t->misses[k]++;
        t->cause[k][r->cause[k]]++;
        t->unknown[k] += k >= r->unknown_from;
    }
}

/* Read one 8-byte word of line i (from BASE) and count it. */
static void read_line(ms_sim *s, tally *t, unsigned n, uint64_t i)
{
    ms_result r = ref(s, 0, BASE + i * LINE + 8, 8, 0, 0);
    count(t, &r, n);
}

/* ---- the causes, one at a time ---------------------------------------------- */

/* A stream over 1000 distinct lines: every reference misses both levels,
 * and every miss is cold. */
static void test_cold_only(void **state)
{
    (void)state;
    const uint64_t lv[2][3] = {{4096, 4, 1}, {16384, 8, 2}};
    ms_config c = config(2, lv);
    ms_sim *s = sim(&c);
    tally t = {0};
    for (uint64_t i = 0; i < 1000; i++)
        read_line(s, &t, 2, i);
    assert_int_equal(t.misses[0], 1000);
    assert_int_equal(t.misses[1], 1000);
    assert_int_equal(t.cause[0][MS_COLD], 1000);
    assert_int_equal(t.cause[1][MS_COLD], 1000);
    ms_free(s);
}

/* A cyclic sweep over 128 lines of a 64-line (8 sets x 8 ways) cache, three
 * passes: LRU misses on every reference; the first pass is cold, the other
 * two all capacity (the 64-line shadow misses them too). */
static void test_capacity(void **state)
{
    (void)state;
    const uint64_t lv[1][3] = {{4096, 8, 1}};
    ms_config c = config(1, lv);
    ms_sim *s = sim(&c);
    tally t = {0};
    for (int pass = 0; pass < 3; pass++)
        for (uint64_t i = 0; i < 128; i++)
            read_line(s, &t, 1, i);
    assert_int_equal(t.misses[0], 384);
    assert_int_equal(t.cause[0][MS_COLD], 128);
    assert_int_equal(t.cause[0][MS_CAPACITY], 256);
    assert_int_equal(t.cause[0][MS_CONFLICT], 0);
    ms_free(s);
}

/* A = 4 ways, 16 sets: five lines 16 * 64 bytes apart all map to set 0, so
 * ten passes miss every time; after the cold first pass the 64-line shadow
 * holds all five, so the other 45 are conflict misses. */
static void test_conflict(void **state)
{
    (void)state;
    const uint64_t lv[1][3] = {{4096, 4, 1}};
    ms_config c = config(1, lv);
    ms_sim *s = sim(&c);
    tally t = {0};
    for (int pass = 0; pass < 10; pass++)
        for (uint64_t i = 0; i < 5; i++)
            read_line(s, &t, 1, i * 16);
    assert_int_equal(t.misses[0], 50);
    assert_int_equal(t.cause[0][MS_COLD], 5);
    assert_int_equal(t.cause[0][MS_CONFLICT], 45);
    assert_int_equal(t.cause[0][MS_CAPACITY], 0);
    ms_free(s);
}

/* On a random trace, each miss's cause against references built from
 * cachesim: cold when the test has not seen the line; otherwise conflict
 * exactly when a fully-associative cs_level of the same size hits. */
static void test_causes_random(void **state)
{
    (void)state;
    const uint64_t lv[1][3] = {{4096, 2, 1}};
    ms_config c = config(1, lv);
    ms_sim *s = sim(&c);
    const char *err = NULL;
    cs_level *sa = cs_level_new(4096, LINE, 2, &alloc, &err);
    cs_level *fa = cs_level_new(4096, LINE, 64, &alloc, &err);
    unsigned char seen[512] = {0};
    uint64_t by_cause[MS_NCAUSES] = {0};
    rng_state = 11;
    for (int i = 0; i < 100000; i++) {
        uint64_t line = rng_below(2) ? rng_below(48) : rng_below(512);
        uint64_t addr = BASE + line * LINE + 8 * rng_below(8);
        ms_result r = ref(s, 0, addr, 8, (int)rng_below(2), 0);
        int hit = cs_level_access(sa, addr, 8) == 0, fa_hit = cs_level_access(fa, addr, 8) == 0;
        assert_int_equal(r.hit_level, hit ? 0 : 1);
        if (!hit) {
            int want = !seen[line] ? MS_COLD : fa_hit ? MS_CONFLICT : MS_CAPACITY;
            assert_int_equal(r.cause[0], want);
            by_cause[want]++;
        }
        seen[line] = 1;
    }
    assert_int_equal(by_cause[MS_COLD], 512);
    assert_true(by_cause[MS_CAPACITY] > 1000 && by_cause[MS_CONFLICT] > 1000);
    cs_level_free(sa);
    cs_level_free(fa);
    ms_free(s);
}

/* The shadow against a fully-associative cs_level of the same lines, per
 * access, on random accesses and invalidations: hits (relinks), LRU drops
 * (the tail re-probed and its slot deleted by backward shift) and removals
 * must all keep true LRU order.  Capacities 1, 3 and 64 lines. */
static void test_shadow_is_lru(void **state)
{
    (void)state;
    const uint32_t caps[] = {1, 3, 64};
    rng_state = 5;
    for (unsigned c = 0; c < 3; c++) {
        uint32_t cap = caps[c];
        const char *err = NULL;
        cs_level *fa = cs_level_new((uint64_t)cap * LINE, LINE, cap, &alloc, &err);
        assert_non_null(fa);
        ms_shadow *sh = ms_shadow_new(cap, 0, &alloc);
        uint64_t hits = 0;
        for (int i = 0; i < 200000; i++) {
            uint64_t block = rng_below(4) ? rng_below(cap + 1) : rng_below(3 * cap + 2);
            if (rng_below(10) == 0) {
                cs_level_remove(fa, block);
                ms_shadow_remove(sh, block);
                continue;
            }
            int want = cs_level_touch(fa, block).pos < cap;
            assert_int_equal(ms_shadow_access(sh, block), want);
            hits += (uint64_t)want;
        }
        assert_true(hits > 10000 && hits < 190000); /* both outcomes exercised */
        ms_shadow_free(sh);
        cs_level_free(fa);
    }
}

/* ---- shadow sampling -------------------------------------------------------- */

/* Two threads, private L1 (128 lines) and shared L2 (1024 lines), random
 * references with shared lines written by both: with shadow_sample N the
 * run is the exact run's reference by reference (hit level; cold and
 * sharing causes), and its capacity, conflict and unsplit misses are the
 * exact run's capacity and conflict, split only for lines the hash
 * samples. */
static void test_shadow_sampling_exact_counts(void **state)
{
    (void)state;
    const uint64_t lv[2][3] = {{8192, 2, 1}, {65536, 8, 2}};
    const uint32_t ns[] = {2, 8, 64};
    for (unsigned i = 0; i < 3; i++) {
        ms_config c = config(2, lv), cs = c;
        cs.shadow_sample = ns[i];
        ms_sim *exact = sim(&c), *sampled = sim(&cs);
        tally te = {0}, ts = {0};
        rng_state = 21 + i;
        for (int j = 0; j < 100000; j++) {
            unsigned t = (unsigned)rng_below(2);
            uint64_t line = rng_below(8) ? rng_below(2048) : rng_below(16);
            uint64_t addr = BASE + line * LINE + 8 * rng_below(8);
            int w = (int)rng_below(4) == 0;
            ms_result e = ref(exact, t, addr, 8, w, 0), r = ref(sampled, t, addr, 8, w, 0);
            assert_int_equal(r.hit_level, e.hit_level);
            for (unsigned k = 0; k < e.hit_level; k++) {
                int split = e.cause[k] == MS_CAPACITY || e.cause[k] == MS_CONFLICT;
                int fed = ms_shadow_sampled((addr / LINE), __builtin_ctz(ns[i]));
                if (!split)
                    assert_int_equal(r.cause[k], e.cause[k]);
                else if (fed)
                    assert_true(r.cause[k] == MS_CAPACITY || r.cause[k] == MS_CONFLICT);
                else
                    assert_int_equal(r.cause[k], MS_UNSPLIT);
            }
            count(&te, &e, 2);
            count(&ts, &r, 2);
        }
        for (unsigned k = 0; k < 2; k++) {
            assert_int_equal(ts.misses[k], te.misses[k]);
            assert_int_equal(ts.cause[k][MS_COLD], te.cause[k][MS_COLD]);
            assert_int_equal(ts.cause[k][MS_TRUE_SHARING], te.cause[k][MS_TRUE_SHARING]);
            assert_int_equal(ts.cause[k][MS_FALSE_SHARING], te.cause[k][MS_FALSE_SHARING]);
            assert_int_equal(ts.cause[k][MS_CAPACITY] + ts.cause[k][MS_CONFLICT] + ts.cause[k][MS_UNSPLIT],
                             te.cause[k][MS_CAPACITY] + te.cause[k][MS_CONFLICT]);
        }
        assert_true(te.cause[0][MS_TRUE_SHARING] > 100 && te.cause[0][MS_FALSE_SHARING] > 100);
        assert_true(ts.cause[0][MS_UNSPLIT] > 0 && ts.cause[0][MS_CAPACITY] > 0);
        ms_free(exact);
        ms_free(sampled);
    }
}

/* The capacity share measured on the sampled lines of a run of `passes`
 * reads of the line sequence line(i), i < n, through one level (size,
 * ways) with shadow_sample 8, with its 95% interval. */
static mr_share sampled_share(uint64_t size, uint32_t ways, uint64_t n, uint64_t stride, int passes)
{
    const uint64_t lv[1][3] = {{size, ways, 1}};
    ms_config c = config(1, lv);
    c.shadow_sample = 8;
    ms_sim *s = sim(&c);
    tally t = {0};
    for (int pass = 0; pass < passes; pass++)
        for (uint64_t i = 0; i < n; i++)
            read_line(s, &t, 1, i * stride);
    ms_free(s);
    assert_true(t.cause[0][MS_UNSPLIT] > 0);
    return mr_share_of(t.cause[0][MS_CAPACITY], t.cause[0][MS_CAPACITY] + t.cause[0][MS_CONFLICT]);
}

/* The closed forms of test_capacity and test_conflict, scaled up so that
 * enough lines are sampled: a cyclic sweep over 2048 lines of a 1024-line
 * 8-way cache is all capacity (share 1); 6 lines in each of 64 sets of a
 * 4-way cache of 1024 lines (384 lines: they fit) is all conflict (share
 * 0).  The estimate's interval must hold the exact share. */
static void test_shadow_sampling_split(void **state)
{
    (void)state;
    mr_share cap = sampled_share(65536, 8, 2048, 1, 3);
    assert_true(cap.n > 200);
    assert_true(cap.lo <= 1 && 1 <= cap.hi);
    assert_float_equal(cap.p, 1, 0);
    uint64_t sets = 65536 / LINE / 4;
    const uint64_t lv[1][3] = {{65536, 4, 1}};
    ms_config c = config(1, lv);
    c.shadow_sample = 8;
    ms_sim *s = sim(&c);
    tally t = {0};
    for (int pass = 0; pass < 10; pass++)
        for (uint64_t set = 0; set < 64; set++)
            for (uint64_t w = 0; w < 6; w++)
                read_line(s, &t, 1, set + w * sets);
    ms_free(s);
    assert_int_equal(t.cause[0][MS_COLD], 384);
    mr_share conf = mr_share_of(t.cause[0][MS_CAPACITY], t.cause[0][MS_CAPACITY] + t.cause[0][MS_CONFLICT]);
    assert_true(conf.n > 200 && t.cause[0][MS_UNSPLIT] > 1000);
    assert_true(conf.lo <= 0 && 0 <= conf.hi);
    assert_float_equal(conf.p, 0, 0);
}

/* The mean distance of sh's lines from their home slots: the probe steps a
 * lookup of a held line takes beyond the first. */
static double shadow_displacement(const ms_shadow *sh)
{
    uint64_t steps = 0, held = 0;
    for (uint64_t i = 0; i <= sh->hmask; i++) {
        uint32_t n = sh->slot[i];
        if (n == MS_SHADOW_NIL)
            continue;
        steps += (i - ms_shadow_home(sh, sh->nodes[n].block)) & sh->hmask;
        held++;
    }
    assert_int_equal(held, sh->used);
    return (double)steps / (double)held;
}

/* A sampled shadow's index must spread the lines the hash feeds it over all
 * its slots.  The feeding (ms_shadow_sampled) and the index's home slot
 * both took the top bits of one multiplicative hash, so every fed line had
 * its home in the first 1/N of the slots: the index, at load 1/2 overall,
 * ran at load N/2 there and spilled into one cluster as long as the
 * shadow, whose every probe walked it (memspy on the stencil workload took
 * 8.1 s of CPU at --sample 0.1 and 20.4 s at 0.5 against 2.8 s whole).
 * Linear probing at load 1/2 expects half a step: after two sweeps of 64 Ki
 * lines through a 1 MiB 16-way level (16 Ki lines) sampled 1 in 8, by sets
 * and by shadow sampling, the full shadow's mean displacement stays under 1. */
static void test_sampled_shadow_spread(void **state)
{
    (void)state;
    const uint64_t lv[1][3] = {{1u << 20, 16, 1}};
    for (int by_sets = 0; by_sets < 2; by_sets++) {
        ms_config c = config(1, lv);
        c.set_sample = by_sets ? 8 : 1;
        c.shadow_sample = by_sets ? 1 : 8;
        ms_sim *s = sim(&c);
        tally t = {0};
        for (int pass = 0; pass < 2; pass++)
            for (uint64_t i = 0; i < 65536; i++)
                read_line(s, &t, 1, i);
        const ms_shadow *sh = s->thread[0]->level[0].shadow;
        double d = shadow_displacement(sh);
        printf("    %s 1 in 8: %u lines held, mean displacement %.2f slots\n", by_sets ? "sets" : "shadow",
               sh->used, d);
        assert_int_equal(sh->used, sh->cap);
        assert_int_equal(sh->cap, 16384 / 8);
        assert_true(d < 1);
        ms_free(s);
    }
}

/* ---- sharing -------------------------------------------------------------- */

/* Private L1 per thread, shared L2. */
static ms_config two_level_shared(void)
{
    const uint64_t lv[2][3] = {{4096, 4, 1}, {65536, 8, 2}};
    return config(2, lv);
}

/* t1 holds the line; t0 writes word 0, invalidating t1's copy; t1 reads
 * word 0: an L1 miss of true sharing that the shared L2 serves.  Later
 * writes by t0 accumulate: t1 reading a word t0 wrote after the
 * invalidation is true sharing too; reading one nobody wrote is false. */
static void test_true_sharing(void **state)
{
    (void)state;
    ms_config c = two_level_shared();
    ms_sim *s = sim(&c);
    uint64_t x = BASE;
    ms_result r = ref(s, 1, x, 8, 0, 0);
    assert_int_equal(r.hit_level, 2);
    r = ref(s, 0, x, 8, 1, 0); /* t0's own first touch: cold at L1, L2 has it */
    assert_int_equal(r.hit_level, 1);
    assert_int_equal(r.cause[0], MS_COLD);
    r = ref(s, 1, x, 8, 0, 0);
    assert_int_equal(r.hit_level, 1);
    assert_int_equal(r.cause[0], MS_TRUE_SHARING);
    assert_int_equal(ref(s, 1, x, 8, 0, 0).hit_level, 0);

    assert_int_equal(ref(s, 0, x + 8, 8, 1, 0).hit_level, 0);  /* invalidates t1 */
    assert_int_equal(ref(s, 0, x + 16, 8, 1, 0).hit_level, 0); /* t1 pending */
    r = ref(s, 1, x + 16, 4, 0, 0);
    assert_int_equal(r.hit_level, 1);
    assert_int_equal(r.cause[0], MS_TRUE_SHARING);

    assert_int_equal(ref(s, 0, x + 24, 8, 1, 0).hit_level, 0); /* reads do not invalidate */
    r = ref(s, 1, x + 40, 8, 0, 0);
    assert_int_equal(r.hit_level, 1);
    assert_int_equal(r.cause[0], MS_FALSE_SHARING);
    ms_free(s);
}

/* Two threads write adjacent 8-byte counters of one line in turn, 100
 * times each: after both have read it (cold) and t0's first write (a hit
 * that invalidates t1), each of the 199 other writes misses L1 with false
 * sharing and hits the shared L2. */
static void test_false_sharing(void **state)
{
    (void)state;
    ms_config c = two_level_shared();
    ms_sim *s = sim(&c);
    tally t = {0};
    ms_result r = ref(s, 0, BASE, 8, 0, 0);
    r = ref(s, 1, BASE + 8, 8, 0, 0);
    for (int i = 0; i < 100; i++) {
        r = ref(s, 0, BASE, 8, 1, 0);
        count(&t, &r, 2);
        r = ref(s, 1, BASE + 8, 8, 1, 0);
        count(&t, &r, 2);
    }
    assert_int_equal(t.misses[0], 199);
    assert_int_equal(t.cause[0][MS_FALSE_SHARING], 199);
    assert_int_equal(t.misses[1], 0);
    ms_free(s);
}

/* With two private levels and a shared L3, a coherence miss is one at both
 * private levels, with the same cause at each. */
static void test_sharing_three_levels(void **state)
{
    (void)state;
    const uint64_t lv[3][3] = {{4096, 4, 1}, {16384, 4, 1}, {262144, 16, 4}};
    ms_config c = config(3, lv);
    ms_sim *s = sim(&c);
    ref(s, 0, BASE, 8, 0, 0);
    ref(s, 1, BASE, 8, 0, 0);
    assert_int_equal(ref(s, 0, BASE + 32, 8, 1, 0).hit_level, 0);
    ms_result r = ref(s, 1, BASE + 32, 8, 0, 0);
    assert_int_equal(r.hit_level, 2);
    assert_int_equal(r.cause[0], MS_TRUE_SHARING);
    assert_int_equal(r.cause[1], MS_TRUE_SHARING);
    r = ref(s, 0, BASE + 48, 8, 1, 0); /* invalidates t1 again */
    r = ref(s, 1, BASE, 8, 0, 0);
    assert_int_equal(r.hit_level, 2);
    assert_int_equal(r.cause[0], MS_FALSE_SHARING);
    assert_int_equal(r.cause[1], MS_FALSE_SHARING);
    ms_free(s);
}

/* First event wins: t1's line is replaced (conflict) before t0's write;
 * t1's next miss is the conflict it was, not sharing.  A thread's private
 * levels are its own: t2's first read of a line others hold is cold. */
static void test_first_event_wins(void **state)
{
    (void)state;
    const uint64_t lv[2][3] = {{4096, 1, 1}, {65536, 8, 2}};
    ms_config c = config(2, lv);
    ms_sim *s = sim(&c);
    ref(s, 0, BASE + 128, 8, 0, 0);  /* two threads from here on */
    ref(s, 1, BASE, 8, 0, 0);
    ref(s, 1, BASE + 4096, 8, 0, 0); /* same set of the direct-mapped L1 */
    ref(s, 0, BASE, 8, 1, 0);
    ms_result r = ref(s, 1, BASE, 8, 0, 0);
    assert_int_equal(r.hit_level, 1);
    assert_int_equal(r.cause[0], MS_CONFLICT);
    r = ref(s, 2, BASE, 8, 0, 0);
    assert_int_equal(r.hit_level, 1);
    assert_int_equal(r.cause[0], MS_COLD);
    ms_free(s);
}

/* Byte masks for lines other than 64 bytes: 32-byte lines have a bit per
 * byte (bytes 0-3 and 4-7 are distinct: false); 128-byte lines a bit per
 * two bytes (bytes 0 and 1 share one: true). */
static void test_mask_granularity(void **state)
{
    (void)state;
    for (uint32_t line = 32; line <= 128; line *= 4) {
        ms_config c = {0};
        c.nlevels = 1;
        c.set_sample = 1;
        c.level[0] = (ms_level_config){4096, line, 2, 1};
        ms_sim *s = sim(&c);
        ref(s, 1, BASE, 1, 0, 0);
        ref(s, 0, BASE, 1, 1, 0);
        ms_result r = ref(s, 1, BASE + (line == 32 ? 4 : 1), 1, 0, 0);
        assert_int_equal(r.cause[0], line == 32 ? MS_FALSE_SHARING : MS_TRUE_SHARING);
        ms_free(s);
    }
}

/* ---- evictions ------------------------------------------------------------ */

/* Direct-mapped L1 of 16 lines, L2 of 32 lines shared.  Object 1 reads
 * lines 0..31: L1's second half evicts its first half (victim 1), L2 fills
 * empty ways.  Object 2 reads lines 32..63: in L1 lines 32..47 evict 16..31
 * (object 1) and 48..63 evict 32..47 (object 2 itself); in L2 every line
 * evicts one of object 1's. */
static void test_eviction_tags(void **state)
{
    (void)state;
    const uint64_t lv[2][3] = {{1024, 1, 1}, {2048, 1, 2}};
    ms_config c = config(2, lv);
    ms_sim *s = sim(&c);
    for (uint64_t i = 0; i < 64; i++) {
        uint32_t tag = i < 32 ? 1 : 2;
        ms_result r = ref(s, 0, BASE + i * LINE, 8, 0, tag);
        assert_int_equal(r.hit_level, 2);
        uint32_t want0 = i < 16 ? MS_NO_TAG : i < 48 ? 1 : 2;
        uint32_t want1 = i < 32 ? MS_NO_TAG : 1;
        assert_int_equal(r.evicted[0], want0);
        assert_int_equal(r.evicted[1], want1);
    }
    ms_free(s);
}

/* ---- sampling ------------------------------------------------------------- */

/* A pattern every set sees alike: three passes of a sweep over 192 lines
 * (3x L1, 3/4 of L2), then ten passes of 5 lines 16 lines apart starting
 * at each of L1's 16 sets (conflicts).  Returns the tally; the sweep alone
 * is 192 cold + 384 capacity misses at L1 and 192 cold at L2. */
static tally uniform_pattern(uint32_t set_sample)
{
    const uint64_t lv[2][3] = {{4096, 4, 1}, {16384, 4, 2}};
    ms_config c = config(2, lv);
    c.set_sample = set_sample;
    ms_sim *s = sim(&c);
    tally t = {0};
    for (int pass = 0; pass < 3; pass++)
        for (uint64_t i = 0; i < 192; i++)
            read_line(s, &t, 2, i);
    for (uint64_t set = 0; set < 16; set++)
        for (int pass = 0; pass < 10; pass++)
            for (uint64_t i = 0; i < 5; i++)
                read_line(s, &t, 2, 1024 + set + 16 * i);
    ms_free(s);
    return t;
}

/* One set in 2 (and in 4) simulated: the simulated references are 1/N of
 * all, and every miss count and cold count times N is the full
 * simulation's.  Capacity and conflict are told on the lines the shadows
 * sample (1 in N of every set's); the misses of the others are unsplit,
 * and the split of the told ones holds the full one within its 95%
 * interval. */
static void test_set_sampling(void **state)
{
    (void)state;
    tally full = uniform_pattern(1);
    assert_int_equal(full.refs, 576 + 800);
    assert_int_equal(full.cause[0][MS_COLD], 192 + 80);
    assert_int_equal(full.cause[0][MS_CAPACITY], 384);
    assert_int_equal(full.cause[0][MS_CONFLICT], 720);
    assert_int_equal(full.cause[1][MS_COLD], 192 + 80);
    double want = 384.0 / (384 + 720);
    for (uint32_t n = 2; n <= 4; n *= 2) {
        tally part = uniform_pattern(n);
        assert_int_equal(part.refs, full.refs);
        assert_int_equal(part.sampled * n, full.refs);
        for (unsigned k = 0; k < 2; k++) {
            assert_int_equal(part.misses[k] * n, full.misses[k]);
            assert_int_equal(part.cause[k][MS_COLD] * n, full.cause[k][MS_COLD]);
        }
        const uint64_t *c = part.cause[0];
        assert_int_equal((c[MS_CAPACITY] + c[MS_CONFLICT] + c[MS_UNSPLIT]) * n, 384 + 720);
        mr_share got = mr_share_of(c[MS_CAPACITY], c[MS_CAPACITY] + c[MS_CONFLICT]);
        printf("    1 in %u: capacity %llu conflict %llu unsplit %llu: share %.3f [%.3f, %.3f], full %.3f\n", n,
               (unsigned long long)c[MS_CAPACITY], (unsigned long long)c[MS_CONFLICT],
               (unsigned long long)c[MS_UNSPLIT], got.p, got.lo, got.hi, want);
        assert_true(got.lo <= want && want <= got.hi);
    }
}

/* Uniform random references: the sampled miss count times N is within 3%
 * of the full one. */
static void test_set_sampling_random(void **state)
{
    (void)state;
    uint64_t misses[2] = {0};
    for (int v = 0; v < 2; v++) {
        const uint64_t lv[1][3] = {{32768, 8, 1}};
        ms_config c = config(1, lv);
        c.set_sample = v ? 8 : 1;
        ms_sim *s = sim(&c);
        tally t = {0};
        rng_state = 5;
        for (int i = 0; i < 400000; i++)
            read_line(s, &t, 1, rng_below(2048));
        misses[v] = t.misses[0] * c.set_sample;
        ms_free(s);
    }
    assert_true(misses[0] > 250000);
    assert_true(misses[1] > misses[0] * 97 / 100 && misses[1] < misses[0] * 103 / 100);
}

/* The loads of a product c = a b of 128 x 128 doubles, rows i < 4, in the
 * i-j-k order: a's row (16 lines) and b's column, whose 128 lines lie 16
 * lines apart, in 4 of a 32 KiB 8-way L1's 64 sets (issue 22: memspy on
 * a 128 x 128 product).  Returns the L1 tally at set sampling 1 in n. */
static tally column_walk(uint32_t n)
{
    const uint64_t lv[1][3] = {{32768, 8, 1}};
    ms_config c = config(1, lv);
    c.set_sample = n;
    ms_sim *s = sim(&c);
    tally t = {0};
    const uint64_t a = 0, b = 1u << 16; /* line numbers */
    for (uint64_t i = 0; i < 4; i++)
        for (uint64_t j = 0; j < 128; j++)
            for (uint64_t k = 0; k < 128; k++) {
                read_line(s, &t, 1, a + i * 16 + k / 8);
                read_line(s, &t, 1, b + k * 16 + j / 8);
            }
    ms_free(s);
    return t;
}

/* Set sampling must not change the diagnosis of lines that crowd into few
 * sets.  Fully simulated, b's column (128 lines, 4 sets of 8 ways) misses
 * by conflict: the 144 lines between its reuses fit the 512-line cache.
 * Sampling 1 set in 4 keeps all 4 of those sets, and the shadow, scaled
 * to 128 lines and fed only with the sampled sets' lines, held b's column
 * and nothing else: every such miss was called capacity (memspy gave b
 * 99.9% capacity against 12.5% fully simulated).  The shadow must see a
 * sample of all lines, and the split of the misses it can tell must hold
 * the full simulation's within its 95% interval. */
static void test_set_sampling_crowded_sets(void **state)
{
    (void)state;
    tally full = column_walk(1);
    uint64_t fcap = full.cause[0][MS_CAPACITY], fconf = full.cause[0][MS_CONFLICT];
    double want = (double)fcap / (double)(fcap + fconf);
    printf("    full: cold %llu capacity %llu conflict %llu (capacity share %.3f)\n",
           (unsigned long long)full.cause[0][MS_COLD], (unsigned long long)fcap, (unsigned long long)fconf, want);
    assert_true(want < 0.5);
    tally part = column_walk(4);
    mr_share got = mr_share_of(part.cause[0][MS_CAPACITY], part.cause[0][MS_CAPACITY] + part.cause[0][MS_CONFLICT]);
    printf("    1 in 4: capacity %llu conflict %llu unsplit %llu: share %.3f [%.3f, %.3f]\n",
           (unsigned long long)part.cause[0][MS_CAPACITY], (unsigned long long)part.cause[0][MS_CONFLICT],
           (unsigned long long)part.cause[0][MS_UNSPLIT], got.p, got.lo, got.hi);
    assert_true(got.n > 100);
    assert_true(got.lo <= want && want <= got.hi);
    /* cold misses stay exact: 1 in 4 of a's 64 lines and b's 2048 */
    assert_int_equal(full.cause[0][MS_COLD], 2048 + 64);
    assert_int_equal(part.cause[0][MS_COLD], (2048 + 64) / 4);
}

/* Two sets of two ways (blocks even: set 0, odd: set 1).  After a sample
 * starts, the first touch of a line in a set that has not yet seen two
 * distinct lines in the sample is unknown, a hit (a line from before the
 * sample, which the skipped references may have thrown out) as much as a
 * miss; later touches, and everything in a primed set, are known. */
static void test_time_sampling_unknown(void **state)
{
    (void)state;
    const uint64_t lv[1][3] = {{256, 2, 1}};
    ms_config c = config(1, lv);
    ms_sim *s = sim(&c);
    ms_result r = ref(s, 0, BASE, 8, 0, 0);
    assert_int_equal(r.unknown_from, MS_ALL_KNOWN); /* before any sample: all known */
    ref(s, 0, BASE + 2 * LINE, 8, 0, 0);
    ms_sample_start(s);
    r = ref(s, 0, BASE + 4 * LINE, 8, 0, 0); /* set 0 {2,0}: miss, 1 fresh */
    assert_int_equal(r.hit_level, 1);
    assert_int_equal(r.unknown_from, 0);
    r = ref(s, 0, BASE + 2 * LINE, 8, 0, 0); /* a line from before: hit, unknown; 2 fresh */
    assert_int_equal(r.hit_level, 0);
    assert_int_equal(r.unknown_from, 0);
    r = ref(s, 0, BASE + 2 * LINE, 8, 0, 0); /* touched in this sample: known */
    assert_int_equal(r.unknown_from, MS_ALL_KNOWN);
    r = ref(s, 0, BASE + 6 * LINE, 8, 0, 0); /* set 0 primed: a known miss */
    assert_int_equal(r.hit_level, 1);
    assert_int_equal(r.unknown_from, MS_ALL_KNOWN);
    r = ref(s, 0, BASE + 1 * LINE, 8, 0, 0); /* set 1, empty but not vouched for */
    assert_int_equal(r.unknown_from, 0);
    assert_int_equal(r.cause[0], MS_COLD);
    r = ref(s, 0, BASE + 1 * LINE, 8, 0, 0); /* still 1 fresh, but this line is */
    assert_int_equal(r.hit_level, 0);
    assert_int_equal(r.unknown_from, MS_ALL_KNOWN);
    assert_int_equal(ref(s, 0, BASE + 3 * LINE, 8, 0, 0).unknown_from, 0);
    assert_int_equal(ref(s, 0, BASE + 5 * LINE, 8, 0, 0).unknown_from, MS_ALL_KNOWN);
    ms_sample_start(s);
    r = ref(s, 0, BASE + 5 * LINE, 8, 0, 0); /* set 1 {5,3}: a hit from before */
    assert_int_equal(r.hit_level, 0);
    assert_int_equal(r.unknown_from, 0);
    r = ref(s, 0, BASE + 7 * LINE, 8, 0, 0);
    assert_int_equal(r.hit_level, 1);
    assert_int_equal(r.unknown_from, 0);
    ms_free(s);
}

/* Two levels: the first unknown level is reported, and a known first
 * level in front of an unprimed second one leaves the second unknown. */
static void test_time_sampling_unknown_levels(void **state)
{
    (void)state;
    const uint64_t lv[2][3] = {{128, 2, 1}, {1024, 2, 1}}; /* 1 set; 8 sets of 2 ways */
    ms_config c = config(2, lv);
    ms_sim *s = sim(&c);
    ref(s, 0, BASE, 8, 0, 0);               /* block 0: L1 {0}, L2 set 0 {0} */
    ms_sample_start(s);
    ms_result r = ref(s, 0, BASE, 8, 0, 0); /* hit from before at L1: unknown from L1 */
    assert_int_equal(r.hit_level, 0);
    assert_int_equal(r.unknown_from, 0);
    ref(s, 0, BASE + 1 * LINE, 8, 0, 0);    /* L1 primed: {1,0} */
    r = ref(s, 0, BASE + 8 * LINE, 8, 0, 0); /* known L1 miss; L2 set 0 {0} unprimed: miss, unknown */
    assert_int_equal(r.hit_level, 2);
    assert_int_equal(r.unknown_from, 1);
    r = ref(s, 0, BASE + 16 * LINE, 8, 0, 0); /* L2 set 0 {8,0}: one fresh line, still unknown */
    assert_int_equal(r.hit_level, 2);
    assert_int_equal(r.unknown_from, 1);
    r = ref(s, 0, BASE + 24 * LINE, 8, 0, 0); /* L2 set 0 {16,8} primed: all known */
    assert_int_equal(r.hit_level, 2);
    assert_int_equal(r.unknown_from, MS_ALL_KNOWN);
    ms_free(s);
}

/* ---- references spanning lines, and agreement with cachesim ------------- */

/* An 8-byte access across a line boundary is one reference: it misses when
 * either line misses, and hits once both are present. */
static void test_straddle_once(void **state)
{
    (void)state;
    const uint64_t lv[1][3] = {{1024, 1, 1}};
    ms_config c = config(1, lv);
    ms_sim *s = sim(&c);
    uint64_t a = BASE + LINE - 4;
    ms_result r = ref(s, 0, a, 8, 0, 3);
    assert_int_equal(r.hit_level, 1);
    assert_int_equal(r.cause[0], MS_COLD);
    assert_int_equal(ref(s, 0, a, 8, 0, 3).hit_level, 0);
    ref(s, 0, BASE + LINE + 1024, 8, 0, 4); /* evicts the second line only */
    r = ref(s, 0, a, 8, 0, 3);
    assert_int_equal(r.hit_level, 1);
    assert_int_equal(r.cause[0], MS_CONFLICT);
    assert_int_equal(r.evicted[0], 4);
    ms_free(s);
}

/* One thread, two levels, references within a line: per reference, memsim
 * misses at level k exactly when cs_hierarchy counts a level-k miss. */
static void test_matches_cs_hierarchy(void **state)
{
    (void)state;
    const uint64_t lv[2][3] = {{4096, 2, 1}, {16384, 4, 1}};
    ms_config c = config(2, lv);
    ms_sim *s = sim(&c);
    const char *err = NULL;
    cs_level *l[2] = {cs_level_new(4096, LINE, 2, &alloc, &err),
                      cs_level_new(16384, LINE, 4, &alloc, &err)};
    cs_hierarchy h;
    cs_hierarchy_init(&h, l, 2);
    uint64_t m[2] = {0};
    rng_state = 21;
    for (int i = 0; i < 200000; i++) {
        uint64_t line = rng_below(2) ? rng_below(96) : rng_below(1024);
        uint32_t size = 1u << rng_below(4);
        uint64_t addr = BASE + line * LINE + size * rng_below(LINE / size);
        ms_result r = ref(s, 0, addr, size, (int)rng_below(2), 0);
        uint64_t before0 = h.misses[0], before1 = h.misses[1];
        cs_hierarchy_access(&h, addr, size);
        assert_int_equal(r.hit_level > 0, h.misses[0] - before0);
        assert_int_equal(r.hit_level > 1, h.misses[1] - before1);
        m[0] += r.hit_level > 0;
        m[1] += r.hit_level > 1;
    }
    assert_int_equal(m[0], h.misses[0]);
    assert_true(m[1] > 1000 && m[1] < m[0]);
    cs_level_free(l[0]);
    cs_level_free(l[1]);
    ms_free(s);
}

/* Any references, straddling ones included: memsim's two-level counts are
 * Cachegrind's (cg_sim.c): a reference misses D1 when any of its lines
 * does, and then all its lines go to LL, which it misses when any misses. */
static void test_matches_cachegrind_rule(void **state)
{
    (void)state;
    const uint64_t lv[2][3] = {{2048, 2, 1}, {8192, 4, 1}};
    ms_config c = config(2, lv);
    ms_sim *s = sim(&c);
    const char *err = NULL;
    cs_level *d1 = cs_level_new(2048, LINE, 2, &alloc, &err);
    cs_level *ll = cs_level_new(8192, LINE, 4, &alloc, &err);
    uint64_t m1 = 0, ml = 0, sm1 = 0, sml = 0, straddles = 0;
    rng_state = 31;
    for (int i = 0; i < 200000; i++) {
        uint64_t addr = BASE + rng_below(rng_below(2) ? 48 * LINE : 512 * LINE);
        uint32_t size = 1 + (uint32_t)rng_below(16);
        straddles += (addr % LINE) + size > LINE;
        ms_result r = ref(s, 0, addr, size, 0, 0);
        if (cs_level_access(d1, addr, size)) {
            m1++;
            ml += cs_level_access(ll, addr, size) != 0;
        }
        sm1 += r.hit_level > 0;
        sml += r.hit_level > 1;
        assert_int_equal(sm1, m1);
        assert_int_equal(sml, ml);
    }
    assert_true(straddles > 10000 && ml > 1000);
    cs_level_free(d1);
    cs_level_free(ll);
    ms_free(s);
}

/* ---- configurations ------------------------------------------------------- */

/* ms_new refuses c with exactly message `want`, allocating nothing. */
static void refused(const ms_config *c, const char *want)
{
    const char *err = NULL;
    long before = counts.allocs;
    assert_null(ms_new(c, &alloc, &err));
    assert_non_null(err);
    assert_string_equal(err, want);
    assert_int_equal(counts.allocs, before);
}

static void test_bad_configs(void **state)
{
    (void)state;
    const uint64_t lv[2][3] = {{4096, 4, 1}, {65536, 8, 2}};
    ms_config good = config(2, lv), c;
    c = good, c.nlevels = 0;
    refused(&c, "the number of cache levels must be 1 to 4");
    c = good, c.nlevels = 5;
    refused(&c, "the number of cache levels must be 1 to 4");
    c = good, c.set_sample = 0;
    refused(&c, "set_sample must be a power of two (1 simulates every set)");
    c = good, c.set_sample = 6;
    refused(&c, "set_sample must be a power of two (1 simulates every set)");
    c = good, c.set_sample = 32; /* L1 has 16 sets */
    refused(&c, "set_sample must not exceed the number of sets of any level");
    c = good, c.level[1].line = 128;
    refused(&c, "cache line size must be the same at every level");
    c = good, c.level[1].shared_by = 0;
    refused(&c, "shared_by must be 1 (a private level per thread) or the number of threads "
                "sharing the level");
    c = good, c.level[0].size = 4000;
    refused(&c, "cache size must be a multiple of line size times associativity");
    c = good, c.level[0].line = c.level[1].line = 4;
    refused(&c, "cache line size must be at least 8 bytes");
    c = good, c.level[1].ways = 0;
    refused(&c, "associativity must be at least 1");
    c = good, c.level[1].size = (uint64_t)1 << 38, c.level[1].ways = 1;
    refused(&c, "cache has too many lines for the fully-associative shadow (at most 2^31 "
                "simulated lines per level)");
    c = good, c.level[1].size = (uint64_t)1 << 38, c.level[1].ways = 1, c.set_sample = 16;
    c.level[1].shared_by = 1; /* private: created by a thread's first access, never here */
    ms_sim *s = sim(&c);      /* 2^28 simulated lines: accepted */
    ms_free(s);
    ms_free(NULL);
}

/* A shadow sampling that is no power of two, or larger than a level's lines
 * (here L1's 64, or 16 once set sampling takes one set in 4), is refused
 * with its message, allocating nothing. */
static void test_bad_shadow_sample(void **state)
{
    (void)state;
    const uint64_t lv[2][3] = {{4096, 4, 1}, {65536, 8, 2}};
    ms_config good = config(2, lv), c;
    c = good, c.shadow_sample = 6;
    refused(&c, "shadow_sample must be a power of two (1 gives every line to the shadows: exact causes)");
    c = good, c.shadow_sample = 128;
    refused(&c, "shadow_sample must not exceed the number of lines of any level (divided by set_sample)");
    c = good, c.shadow_sample = 32, c.set_sample = 4;
    refused(&c, "shadow_sample must not exceed the number of lines of any level (divided by set_sample)");
    c = good, c.shadow_sample = 64; /* L1's 64 lines: a one-line shadow, accepted */
    ms_sim *s = sim(&c);
    ms_free(s);
}

static void test_cause_names(void **state)
{
    (void)state;
    assert_string_equal(ms_cause_name(MS_COLD), "cold");
    assert_string_equal(ms_cause_name(MS_CAPACITY), "capacity");
    assert_string_equal(ms_cause_name(MS_CONFLICT), "conflict");
    assert_string_equal(ms_cause_name(MS_TRUE_SHARING), "true_sharing");
    assert_string_equal(ms_cause_name(MS_FALSE_SHARING), "false_sharing");
}

static void test_unsplit_name(void **state)
{
    (void)state;
    assert_string_equal(ms_cause_name(MS_UNSPLIT), "unsplit");
    assert_string_equal(ms_cause_name(MS_NCAUSES), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cold_only, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_capacity, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_conflict, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_causes_random, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_shadow_is_lru, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_shadow_sampling_exact_counts, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_shadow_sampling_split, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_sampled_shadow_spread, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_true_sharing, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_false_sharing, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_sharing_three_levels, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_first_event_wins, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_mask_granularity, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_eviction_tags, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_set_sampling, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_set_sampling_random, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_set_sampling_crowded_sets, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_time_sampling_unknown, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_time_sampling_unknown_levels, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_straddle_once, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_matches_cs_hierarchy, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_matches_cachegrind_rule, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_bad_configs, reset_counts, check_no_leaks),
        cmocka_unit_test_setup_teardown(test_bad_shadow_sample, reset_counts, check_no_leaks),
        cmocka_unit_test(test_cause_names),
        cmocka_unit_test(test_unsplit_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

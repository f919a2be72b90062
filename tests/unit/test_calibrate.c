/* test_calibrate.c — unit tests of the rules by which `augur machine
 * calibrate` turns rounds of measurements into figures (calibrate_rules.h),
 * on synthetic series whose answers are worked out by hand here: the
 * median of a round's pieces ignores a preempted piece; a time is the least
 * of its rounds and a rate the most; a written figure whose rounds disagree
 * (fewer than half within the tolerance of it) is refused by name with its
 * rounds, one that a single disturbed round contradicts is not; figures
 * are printed with three significant digits; the last level's reach and
 * latency from a sweep, for a full level, a shared one and one that holds
 * nothing, on Zen 3's and a sliced L3's geometry; the TLB chases' shapes
 * on Golden Cove's and Zen 4's TLBs, and what a miss costs over its base. */
#include "host_fixtures.h"

#include <math.h>

#include "machine/calibrate_rules.h"

/* A series of n rounds from the variadic doubles (n <= CAL_MAX_ROUNDS). */
static cal_series series(const char *what, const char *unit, int rate, int written, int n, ...)
{
    cal_series s;
    memset(&s, 0, sizeof s);
    snprintf(s.what, sizeof s.what, "%s", what);
    s.unit = unit;
    s.rate = rate;
    s.written = written;
    s.n = n;
    va_list ap;
    va_start(ap, n);
    for (int r = 0; r < n; r++)
        s.round[r] = va_arg(ap, double);
    va_end(ap);
    return s;
}

static void median_of_pieces_ignores_a_preempted_one(void **state)
{
    (void)state;
    /* Pieces of an L2 chase as measured under load: one piece held a
     * preemption (1484.9 ns per load), the next a refill. */
    double pieces[] = {3.8, 3.8, 1484.9, 5.9, 3.8, 3.9, 3.8};
    assert_true(fabs(cal_median(pieces, 7) - 3.8) < 1e-12);
    double even[] = {4, 1, 3, 2};
    assert_true(fabs(cal_median(even, 4) - 2.5) < 1e-12);
}

static void least_time_most_rate(void **state)
{
    (void)state;
    cal_series lat = series("L2 latency", "ns", 0, 1, 5, 4.39, 9.85, 12.5, 4.45, 4.38);
    assert_true(cal_value(&lat) == 4.38);
    assert_true(fabs(cal_spread(&lat) - 12.5 / 4.38) < 1e-12);
    assert_true(fabs(cal_agreement(&lat) - 4.45 / 4.38) < 1e-12); /* the median round over the least */
    cal_series bw = series("triad", "GB/s", 1, 1, 3, 10.0, 12.0, 11.0);
    assert_true(cal_value(&bw) == 12.0);
    assert_true(fabs(cal_agreement(&bw) - 12.0 / 11.0) < 1e-12); /* the most over the median */
    cal_series none = series("nothing", "ns", 0, 1, 0);
    assert_true(isnan(cal_value(&none)) && isnan(cal_agreement(&none)));
    cal_series zero = series("clock", "GHz", 1, 0, 2, 0.0, 0.0); /* not x86-64: the probe gives 0 */
    assert_true(isinf(cal_spread(&zero)) && isinf(cal_agreement(&zero)));
}

static void one_disturbed_round_is_not_a_disagreement(void **state)
{
    (void)state;
    /* 4 of 5 rounds within 1.5x of the least: reproduced, whatever the fifth */
    cal_series s[] = {series("L2 latency (chase over 256 KiB)", "ns", 0, 1, 5, 4.39, 9.85, 12.5, 4.45, 4.38)};
    char msg[512];
    assert_int_equal(cal_disagreements(s, 1, 1.5, msg, sizeof msg), 0);
    assert_string_equal(msg, "");
}

static void disagreeing_rounds_are_named_with_their_values(void **state)
{
    (void)state;
    cal_series s[] = {
        series("L2 latency (chase over 256 KiB)", "ns", 0, 1, 3, 3.84, 9.61, 9.02), /* 9.02 / 3.84 = 2.35 */
        series("L3 sweep (chase over 8 MiB)", "ns", 0, 0, 3, 20.0, 140.0, 150.0),  /* not written: not held */
        series("triad bandwidth", "GB/s", 1, 1, 3, 30.0, 12.0, 13.0),               /* 30 / 13 = 2.31 */
        series("clock", "GHz", 1, 1, 3, 3.1, 3.2, 3.15),                            /* 3.2 / 3.15: agrees */
    };
    char msg[1024];
    assert_int_equal(cal_disagreements(s, 4, 1.5, msg, sizeof msg), 2);
    assert_string_equal(msg, "L2 latency (chase over 256 KiB) 3.84, 9.61, 9.02 ns (median/least 2.35); "
                             "triad bandwidth 30.0, 12.0, 13.0 GB/s (most/median 2.31)");
    /* the same rounds pass a tolerance that allows them */
    assert_int_equal(cal_disagreements(s, 4, 2.4, msg, sizeof msg), 0);
}

static void tolerance_is_inclusive(void **state)
{
    (void)state;
    cal_series at = series("page fault", "ns", 0, 1, 3, 2000.0, 3000.0, 3000.0); /* exactly 1.5 */
    cal_series above = series("page fault", "ns", 0, 1, 3, 2000.0, 3010.0, 3010.0);
    cal_series zero = series("memory latency", "ns", 0, 1, 3, 0.0, 100.0, 100.0);
    char msg[512];
    assert_int_equal(cal_disagreements(&at, 1, 1.5, msg, sizeof msg), 0);
    assert_int_equal(cal_disagreements(&above, 1, 1.5, msg, sizeof msg), 1);
    assert_int_equal(cal_disagreements(&zero, 1, 1.5, msg, sizeof msg), 1);
    /* tolerance 1 refuses any difference at all */
    cal_series close = series("L1 latency", "ns", 0, 1, 3, 1.26, 1.27, 1.27);
    assert_int_equal(cal_disagreements(&close, 1, 1.0, msg, sizeof msg), 1);
}

static void figures_have_three_significant_digits(void **state)
{
    (void)state;
    char b[32];
    cal_figure(4.0034, b, sizeof b);
    assert_string_equal(b, "4.00");
    cal_figure(223.4, b, sizeof b);
    assert_string_equal(b, "223");
    cal_figure(1234.0, b, sizeof b);
    assert_string_equal(b, "1230");
    cal_figure(27.66, b, sizeof b);
    assert_string_equal(b, "27.7");
    cal_figure(0.012345, b, sizeof b);
    assert_string_equal(b, "0.0123");
    cal_series s = series("clock", "GHz", 1, 1, 3, 3.111, 3.2449, 3.0);
    cal_rounds_text(&s, b, sizeof b);
    assert_string_equal(b, "3.11, 3.24, 3.00 GHz");
    cal_spread_text(&s, b, sizeof b);
    assert_string_equal(b, "most/median 1.04, max/min 1.08");
}

/* The reach of Zen 3's L3 as hwloc reports it on this host (512 KiB 8-way
 * L2, 32 MiB 16-way L3) for a sweep over 1, 2, 4, 8, 16 MiB taking ns[]. */
static cal_reach zen3_reach(const double ns[5], double mem_ns)
{
    const machine_cache l2 = {.name = "L2", .size = 512 << 10, .line = 64, .ways = 8, .slices = 1};
    const machine_cache l3 = {.name = "L3", .size = 32 << 20, .line = 64, .ways = 16, .slices = 1};
    const uint64_t sweep[] = {1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20};
    cal_reach r;
    cal_last_level_reach(&l3, &l2, sweep, ns, 5, mem_ns, &r);
    return r;
}

static void last_level_that_holds_keeps_its_size(void **state)
{
    (void)state;
    cal_reach r = zen3_reach((const double[]){14.0, 14.5, 15.0, 16.0, 18.0}, 110.0);
    assert_true(fabs(r.mid_ns - 62.0) < 1e-9); /* (14 + 110) / 2: the level's own latency and memory's */
    assert_int_equal(r.fit, 4);
    assert_int_equal(r.holds, 1);
    assert_int_equal(r.latency, 4); /* half the level, as every other level */
    assert_int_equal(r.size, 32 << 20);
}

static void shared_last_level_reach(void **state)
{
    (void)state;
    /* a sweep as measured here at load 10 (calibrate --quick):
     * midpoint (14.4 + 214) / 2 = 114.2; 1, 2 and 4 MiB below it */
    cal_reach r = zen3_reach((const double[]){14.4, 25.7, 102.0, 153.0, 133.0}, 214.0);
    assert_int_equal(r.fit, 2);
    assert_int_equal(r.holds, 0);
    assert_int_equal(r.latency, 0); /* twice L2: the most hits, not the 4 MiB chase half of memory */
    assert_int_equal(r.size, 4 << 20); /* below the 8 MiB that did not fit: 64 x 16 x 2^12 */
    /* a buffer below the midpoint after one above it is not in the leading run */
    r = zen3_reach((const double[]){14.4, 120.0, 50.0, 153.0, 133.0}, 214.0);
    assert_int_equal(r.fit, 0);
    assert_int_equal(r.size, 1 << 20);
}

static void last_level_that_holds_nothing(void **state)
{
    (void)state;
    /* the chase over twice L2 is as slow as memory's: nothing is faster than memory */
    cal_reach r = zen3_reach((const double[]){200.0, 205.0, 210.0, 220.0, 230.0}, 200.0);
    assert_int_equal(r.fit, -1);
    assert_int_equal(r.latency, -1);   /* no hit latency measured: the described one stays */
    assert_int_equal(r.size, 1 << 20); /* the smallest valid size above L2 */
    /* a level three quarters as slow as memory still steps to it: its reach
     * ends at the step's half-way point, (150 + 200) / 2 = 175 */
    r = zen3_reach((const double[]){150.0, 160.0, 170.0, 180.0, 190.0}, 200.0);
    assert_int_equal(r.fit, 2);
    assert_int_equal(r.latency, 0);
    assert_int_equal(r.size, 4 << 20);
}

/* The reach of the L3 of Emerald Rapids under KVM as hwloc reports it
 * (2 MiB 16-way L2; 300 MiB 20-way L3, 15 slices of 2^14 sets) for a
 * sweep over 4, 8, ..., 128 MiB taking ns[]. */
static cal_reach emerald_reach(const double ns[6], double mem_ns)
{
    const machine_cache l2 = {.name = "L2", .size = 2 << 20, .line = 64, .ways = 16, .slices = 1};
    const machine_cache l3 = {.name = "L3", .size = 300ull << 20, .line = 64, .ways = 20, .slices = 15};
    const uint64_t bytes[] = {4 << 20, 8 << 20, 16 << 20, 32 << 20, 64 << 20, 128 << 20};
    cal_reach r;
    cal_last_level_reach(&l3, &l2, bytes, ns, 6, mem_ns, &r);
    return r;
}

static void sliced_last_level_reach(void **state)
{
    (void)state;
    /* the chase reached memory latency from 16 MiB */
    cal_reach r = emerald_reach((const double[]){33.0, 34.3, 111.1, 140.0, 148.0, 150.0}, 150.0);
    assert_int_equal(r.fit, 1); /* below (33 + 150) / 2 = 91.5 */
    /* the largest 15 x 64 x 20 x 2^k below the 16 MiB that did not fit:
     * 19200 x 2^9 = 9600 KiB, above the 8 MiB that did */
    assert_int_equal(r.size, 9600 << 10);
}

static void slow_last_level_holds_its_size(void **state)
{
    (void)state;
    /* the same Emerald Rapids guest on 2026-11-28 (calibrate --quick
     * --measured-capacity, load 8.5): every chase from 4 to 128 MiB at
     * 128-151 ns, memory (512 MiB) 252 ns.  Against the midpoint of L2's
     * 8.25 ns and memory's, 130 ns, the 4 MiB chase's 132 ns did not fit
     * and the reach was 2400 KiB; two calibrations before it, 19200 KiB
     * and 75 MiB.  The step to memory is from 132 ns, half-way at 192. */
    cal_reach r = emerald_reach((const double[]){132.0, 128.0, 136.0, 136.0, 151.0, 142.0}, 252.0);
    assert_true(fabs(r.mid_ns - 192.0) < 1e-9);
    assert_int_equal(r.fit, 5);
    assert_int_equal(r.holds, 1);
    assert_int_equal(r.latency, 5);
    assert_int_equal(r.size, 300ull << 20); /* as hwloc reports it */
}

/* A core whose int_alu class is (latency 1, rthroughput rthr) on `ports`
 * ports, issue width 6. */
static machine alu_core(double rthr, uint32_t ports)
{
    machine m = {.issue_width = 6};
    m.cls[ST_CLASS_INT_ALU] = (machine_class){.nports = ports, .latency = 1, .rthroughput = rthr, .uops = 1};
    return m;
}

static void throughput_probe_reach(void **state)
{
    (void)state;
    /* four ALUs (zen3): the ports take 33 uops in 8.25 cycles, longer than
     * the chains' 8: 32 / 8.25 adds a cycle */
    machine m = alu_core(0.25, 4);
    assert_true(fabs(cal_probe_adds_per_cycle(&m) - 32.0 / 8.25) < 1e-12);
    /* five (Golden Cove): the ports would take them in 6.6 cycles, but each
     * chain needs 8 for its 8 adds: 4 adds a cycle, so that a thread with
     * its core to itself reads a share of 1, not 4 / 4.85 = 0.82 */
    m = alu_core(0.2, 5);
    assert_true(fabs(cal_probe_adds_per_cycle(&m) - 4.0) < 1e-12);
    /* no throughput described: nothing to compare with */
    m = alu_core(0, 5);
    assert_true(cal_probe_adds_per_cycle(&m) == 0);
}

static void chase_buffers_a_shared_level_holds(void **state)
{
    (void)state;
    assert_int_equal(cal_chase_bytes(48 << 10, 0), 24 << 10);         /* L1: half */
    assert_int_equal(cal_chase_bytes(2 << 20, 48 << 10), 192 << 10);  /* Golden Cove's L2: 4x L1, not 1 MiB */
    assert_int_equal(cal_chase_bytes(512 << 10, 32 << 10), 128 << 10); /* Zen 3's L2 */
    assert_int_equal(cal_chase_bytes(256 << 10, 48 << 10), 128 << 10); /* a small level: half stays */
}

/* A core with an L1 of l1_kib KiB (64-byte lines), a first-level 4 KiB
 * TLB of e1 entries, a 2 MiB one, and a second-level 4 KiB TLB of e2
 * entries (none when e2 is 0). */
static machine tlb_core(uint64_t l1_kib, uint32_t e1, uint32_t e2)
{
    machine m = {.ncaches = 1};
    m.cache[0] = (machine_cache){.name = "L1", .size = l1_kib << 10, .line = 64, .ways = 8, .slices = 1};
    m.tlb[m.ntlbs++] = (machine_tlb){.name = "L1 DTLB 2M", .level = 1, .page_size = 2u << 20, .entries = 32};
    m.tlb[m.ntlbs++] = (machine_tlb){.name = "L1 DTLB 4K", .level = 1, .page_size = 4096, .entries = e1};
    if (e2)
        m.tlb[m.ntlbs++] = (machine_tlb){.name = "STLB 4K", .level = 2, .page_size = 4096, .entries = e2};
    return m;
}

/* p's six chases are want[k] = {pages, lines a page}, and every chase and
 * its base touch as many lines. */
static void assert_tlb_chases(const cal_tlb_plan *p, const uint32_t want[CAL_TLB_CHASES][2])
{
    for (int k = 0; k < CAL_TLB_CHASES; k++) {
        assert_int_equal(p->ch[k].pages, want[k][0]);
        assert_int_equal(p->ch[k].per_page, want[k][1]);
    }
    for (int k = 0; k < CAL_TLB_CHASES; k += 2)
        assert_int_equal(p->ch[k].pages * p->ch[k].per_page, p->ch[k + 1].pages * p->ch[k + 1].per_page);
}

static void walk_tlb_chases_golden_cove(void **state)
{
    (void)state;
    machine m = tlb_core(48, 96, 2048);
    cal_tlb_plan p;
    cal_tlb_plan_for(&m, &p);
    assert_int_equal(p.first_tlb, 1); /* the 4 KiB ones, not the 2 MiB TLB listed first */
    assert_int_equal(p.walk_tlb, 2);
    /* 4 x 96 = 384 pages a line each (24 KiB: half the L1's 768 lines is
     * 384) against 384 lines in 6 whole pages; 2 x 2048 pages (16 MiB) a
     * line each against 4096 lines in 1024 pages; 32 x 2048 (256 MiB)
     * against 65536 lines in 1024 pages */
    static const uint32_t want[CAL_TLB_CHASES][2] = {{384, 1}, {6, 64}, {4096, 1}, {1024, 4}, {65536, 1}, {1024, 64}};
    assert_tlb_chases(&p, want);
}

static void walk_tlb_chases_zen4_and_without_stlb(void **state)
{
    (void)state;
    /* Zen 4: 4 x 72 = 288 pages would be more than half the 32 KiB L1's
     * 512 lines: 256 pages, 4 whole pages for the base; the 3072-entry L2
     * DTLB: 6144 and 98304 pages against 1536 */
    machine m = tlb_core(32, 72, 3072);
    cal_tlb_plan p;
    cal_tlb_plan_for(&m, &p);
    static const uint32_t want[CAL_TLB_CHASES][2] = {{256, 1}, {4, 64}, {6144, 1}, {1536, 4}, {98304, 1}, {1536, 64}};
    assert_tlb_chases(&p, want);
    /* an L1 too small for twice the first level's entries in lines: no
     * first-level chase; no second level: no walk */
    m = tlb_core(8, 96, 0);
    cal_tlb_plan_for(&m, &p);
    assert_int_equal(p.first_tlb, -1);
    assert_int_equal(p.walk_tlb, -1);
    for (int k = 0; k < CAL_TLB_CHASES; k++)
        assert_int_equal(p.ch[k].pages, 0);
}

static void walk_tlb_cost_over_its_base(void **state)
{
    (void)state;
    /* the Emerald Rapids guest: 28.6 ns a load over 4096 pages against 8.43
     * in 1024: a walk adds 20.17 ns */
    assert_true(fabs(cal_tlb_cost(28.6, 8.43) - 20.17) < 1e-9);
    /* not slower than its base: nothing measurable */
    assert_true(isnan(cal_tlb_cost(4.0, 4.0)));
    assert_true(isnan(cal_tlb_cost(3.9, 4.0)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(median_of_pieces_ignores_a_preempted_one),
        cmocka_unit_test(least_time_most_rate),
        cmocka_unit_test(one_disturbed_round_is_not_a_disagreement),
        cmocka_unit_test(disagreeing_rounds_are_named_with_their_values),
        cmocka_unit_test(tolerance_is_inclusive),
        cmocka_unit_test(figures_have_three_significant_digits),
        cmocka_unit_test(last_level_that_holds_keeps_its_size),
        cmocka_unit_test(shared_last_level_reach),
        cmocka_unit_test(last_level_that_holds_nothing),
        cmocka_unit_test(sliced_last_level_reach),
        cmocka_unit_test(slow_last_level_holds_its_size),
        cmocka_unit_test(throughput_probe_reach),
        cmocka_unit_test(chase_buffers_a_shared_level_holds),
        cmocka_unit_test(walk_tlb_chases_golden_cove),
        cmocka_unit_test(walk_tlb_chases_zen4_and_without_stlb),
        cmocka_unit_test(walk_tlb_cost_over_its_base),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

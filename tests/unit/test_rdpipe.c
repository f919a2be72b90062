/* test_rdpipe.c — unit tests of collect's reuse-distance consumer
 * (src/rdpipe/rdpipe_consumer.c) and memspy's simulator consumer
 * (src/rdpipe/spy_consumer.c), run in a thread of the test and fed
 * through the ring and doorbell as the Valgrind tools feed them
 * (rdpipe_proto.h, spy_proto.h): histograms of sweeps against their closed
 * forms, per guest thread, at two block sizes, with the engines on the
 * reader's thread and on two threads of their own; a stack export in LRU
 * order; memspy's counts of two threads' sweeps and of a sweep twice the
 * first level (misses, causes, evictions, threads) against their closed
 * forms; the end of the doorbell ending the consumer.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rd/rd.h"
#include "rdpipe/rdpipe_consumer.h"
#include "rdpipe/spy_consumer.h"
#include "rdpipe/spy_proto.h"

enum { K = 256, R = 4, LINE = 64, PAGE = 4096 };

/* The tool's side of a channel, and the consumer's thread. */
typedef struct channel {
    RdpRing *ring;
    rdp_rec *recs;
    uint64_t head;
    int bell[2], ans[2];
    rdpipe_config cfg;
    unsigned threads;
    int spy; /* memspy's consumer, not collect's */
    pthread_t th;
} channel;

static void *consumer_main(void *arg)
{
    channel *c = arg;
    int rc = c->spy ? spy_consume(c->bell[0], c->ans[1], c->ring, &c->threads)
                    : rdpipe_consume(c->bell[0], c->ans[1], c->ring, &c->cfg, c->threads);
    assert_int_equal(rc, 0);
    return NULL;
}

/* A channel to collect's consumer (spy 0, its engines on `threads`
 * threads) or memspy's (spy 1, its levels on `threads` threads). */
static void channel_start(channel *c, unsigned threads, int spy)
{
    memset(c, 0, sizeof *c);
    c->ring = aligned_alloc(4096, RDP_RING_BYTES);
    assert_non_null(c->ring);
    memset(c->ring, 0, sizeof *c->ring);
    c->recs = (rdp_rec *)((char *)c->ring + RDP_RING_OFFSET);
    assert_int_equal(pipe(c->bell), 0);
    assert_int_equal(pipe(c->ans), 0);
    c->cfg = (rdpipe_config){2, {LINE, PAGE}, 0, 0, {0}};
    c->threads = threads;
    c->spy = spy;
    assert_int_equal(pthread_create(&c->th, NULL, consumer_main, c), 0);
}

static void channel_open(channel *c, unsigned threads)
{
    channel_start(c, threads, 0);
}

/* Publish what was put, ringing the doorbell if the consumer sleeps. */
static void publish(channel *c)
{
    __atomic_store_n(&c->ring->head, c->head, __ATOMIC_RELEASE);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_load_n(&c->ring->sleeping, __ATOMIC_RELAXED))
        assert_int_equal(write(c->bell[1], "", 1), 1);
}

/* One record, published in batches of RDP_BATCH, waiting for room. */
static void put(channel *c, uint64_t addr, uint32_t instr, uint32_t size)
{
    while (c->head - __atomic_load_n(&c->ring->tail, __ATOMIC_ACQUIRE) >= RDP_RING_RECS)
        usleep(100);
    c->recs[c->head++ % RDP_RING_RECS] = (rdp_rec){addr, instr, size};
    if (c->head % RDP_BATCH == 0)
        publish(c);
}

static void request(channel *c, uint32_t op)
{
    put(c, 0, RDP_CONTROL, op);
    publish(c);
}

static void read_all(channel *c, void *buf, size_t n)
{
    for (char *p = buf; n;) {
        ssize_t k = read(c->ans[0], p, n);
        assert_true(k > 0);
        p += k;
        n -= (size_t)k;
    }
}

/* The end of the records: the consumer returns. */
static void channel_close(channel *c)
{
    publish(c);
    close(c->bell[1]);
    assert_int_equal(pthread_join(c->th, NULL), 0);
    close(c->bell[0]);
    close(c->ans[0]);
    close(c->ans[1]);
    free(c->ring);
}

/* R counted sweeps over K lines at base, one 8-byte load per line, by
 * instruction `instr` of guest thread `thread`. */
static void sweeps(channel *c, uint32_t thread, uint32_t instr, uint64_t base)
{
    put(c, thread, RDP_CONTROL, RDP_THREAD);
    for (int r = 0; r < R; r++)
        for (uint64_t i = 0; i < K; i++)
            put(c, base + i * LINE, instr, 8 | RDP_COUNTING);
}

/* One histogram of an answer to RDP_FLUSH. */
typedef struct hist {
    uint32_t instr, size_index;
    uint64_t cold;
    uint32_t nbins;
    rd_bin bins[RD_MAX_BINS];
} hist;

/* Read a flush's answer into h (at most max of them); how many. */
static int read_flush(channel *c, hist *h, int max)
{
    int n = 0;
    for (;;) {
        rdp_hist_head head;
        read_all(c, &head, sizeof head);
        if (head.instr == RDP_CONTROL)
            return n;
        assert_true(n < max && head.nbins <= RD_MAX_BINS);
        h[n] = (hist){head.instr, head.size_index, head.cold, head.nbins, {{0, 0}}};
        read_all(c, h[n].bins, head.nbins * sizeof(rd_bin));
        n++;
    }
}

static const hist *find(const hist *h, int n, uint32_t instr, uint32_t size_index)
{
    for (int i = 0; i < n; i++)
        if (h[i].instr == instr && h[i].size_index == size_index)
            return &h[i];
    fail_msg("no histogram of instruction %u at block size %u", instr, size_index);
    return NULL;
}

/* bin's count and sum, and every other bin empty but `also`. */
static void check_bin(const hist *h, uint64_t distance, uint64_t count, unsigned also)
{
    unsigned b = rd_bin_index(distance);
    assert_true(b < h->nbins);
    assert_int_equal(h->bins[b].count, count);
    assert_int_equal(h->bins[b].sum, count * distance);
    for (unsigned i = 0; i < h->nbins; i++)
        if (i != b && i != also)
            assert_int_equal(h->bins[i].count, 0);
}

/* A sweep's closed forms: at 64 B, K cold and K (R - 1) at distance K - 1;
 * at 4 KiB (K / 64 pages), each page's first touch of a sweep cold or at
 * distance K / 64 - 1, the other 63 at 0. */
static void check_sweeps(const hist *h, int n, uint32_t instr)
{
    const hist *line = find(h, n, instr, 0), *page = find(h, n, instr, 1);
    assert_int_equal(line->cold, K);
    check_bin(line, K - 1, (uint64_t)K * (R - 1), ~0u);
    const uint64_t pages = K * LINE / PAGE;
    assert_int_equal(page->cold, pages);
    check_bin(page, pages - 1, pages * (R - 1), 0);
    assert_int_equal(page->bins[0].count, (K - pages) * R);
}

/* Two guest threads sweep arrays of their own, the second's after the
 * first's in the same instructions' place: each thread's stacks are its
 * own, so both have a sweep's closed forms.  A second flush has nothing. */
static void run_two_threads(unsigned threads)
{
    channel c;
    channel_open(&c, threads);
    sweeps(&c, 1, 7, 0x10000000);
    sweeps(&c, 2, 8, 0x20000000);
    put(&c, 0x30000000, 9, 8); /* not counted: no histogram */
    request(&c, RDP_FLUSH);
    static hist h[8];
    int n = read_flush(&c, h, 8);
    assert_int_equal(n, 4);
    check_sweeps(h, n, 7);
    check_sweeps(h, n, 8);
    request(&c, RDP_FLUSH);
    assert_int_equal(read_flush(&c, h, 8), 0);
    channel_close(&c);
}

static void test_engines_on_the_reader(void **state)
{
    (void)state;
    run_two_threads(1);
}

static void test_engines_on_threads(void **state)
{
    (void)state;
    run_two_threads(2);
}

/* An export lists each thread's stack at each block size, least recently
 * used first; an exited thread's stacks are gone. */
static void test_export(void **state)
{
    (void)state;
    channel c;
    channel_open(&c, 1);
    sweeps(&c, 3, 1, 0x10000000);
    sweeps(&c, 4, 2, 0x20000000);
    put(&c, 4, RDP_CONTROL, RDP_THREAD_EXIT);
    request(&c, RDP_EXPORT);
    int stacks = 0;
    for (;;) {
        rdp_stack_head head;
        read_all(&c, &head, sizeof head);
        if (head.thread == RDP_CONTROL)
            break;
        assert_int_equal(head.thread, 3);
        uint64_t want = head.size_index == 0 ? K : K * LINE / PAGE;
        assert_int_equal(head.nblocks, want);
        uint64_t *blocks = malloc(want * sizeof *blocks);
        read_all(&c, blocks, want * sizeof *blocks);
        unsigned shift = head.size_index == 0 ? 6 : 12;
        for (uint64_t i = 0; i < want; i++) /* the sweep's order */
            assert_int_equal(blocks[i], (0x10000000 >> shift) + i);
        free(blocks);
        stacks++;
    }
    assert_int_equal(stacks, 2);
    request(&c, RDP_FLUSH); /* the histograms are still there */
    static hist h[8];
    assert_int_equal(read_flush(&c, h, 8), 4);
    channel_close(&c);
}

/* ---- memspy's consumer ------------------------------------------------- */

enum { L1_LINES = 512 }; /* 32 KiB, 8 ways, 64 sets; L2 1 MiB, 8 ways */

/* The configuration record cfg and its payload, as memspy_pipe.c sends it. */
static void spy_config_put(channel *c, const spy_config *cfg)
{
    put(c, sizeof *cfg, RDP_CONTROL, SPY_CONFIG);
    for (size_t at = 0; at < sizeof *cfg; at += sizeof(rdp_rec)) {
        rdp_rec r = {0, 0, 0};
        memcpy(&r, (const char *)cfg + at, sizeof *cfg - at < sizeof r ? sizeof *cfg - at : sizeof r);
        put(c, r.addr, r.instr, r.size);
    }
}

/* Two private levels: L1 32 KiB 8-way, L2 1 MiB 8-way. */
static void spy_config_send(channel *c)
{
    spy_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.sim.nlevels = 2;
    cfg.sim.level[0] = (ms_level_config){32768, LINE, 8, 1};
    cfg.sim.level[1] = (ms_level_config){1 << 20, LINE, 8, 1};
    cfg.sim.set_sample = 1;
    cfg.sim.shadow_sample = 1;
    spy_config_put(c, &cfg);
}

/* `sweeps` sweeps over `lines` lines at base, an 8-byte read of each, by
 * instruction `code` of simulator thread `thread`, charged to object obj. */
static void spy_sweeps(channel *c, uint32_t thread, uint32_t code, uint32_t obj, uint64_t base, uint64_t lines,
                       int sweeps)
{
    put(c, thread, RDP_CONTROL, SPY_THREAD);
    for (int r = 0; r < sweeps; r++)
        for (uint64_t i = 0; i < lines; i++)
            put(c, (base + i * LINE) << SPY_ADDR_SHIFT | 8 * 2, code, obj);
}

enum { MAX_PAIRS = 64, MAX_EVICTS = 512 };

/* A pair of an answer with its groups (zero when it has none). */
typedef struct pair_groups {
    spy_pair p;
    uint64_t groups[CS_MAX_LEVELS][MS_SET_GROUPS];
} pair_groups;

/* A flush's whole answer (spy_proto.h), pairs and evictions sorted. */
typedef struct full_answer {
    pair_groups pair[MAX_PAIRS];
    int npairs;
    spy_evict evict[MAX_EVICTS];
    int nevicts;
    ms_totals thread[MS_MAX_THREADS];
    uint64_t skipped;
} full_answer;

static int by_pair(const void *a, const void *b)
{
    const spy_pair *x = &((const pair_groups *)a)->p, *y = &((const pair_groups *)b)->p;
    return x->code != y->code ? (x->code > y->code) - (x->code < y->code) : (x->obj > y->obj) - (x->obj < y->obj);
}

static int by_key(const void *a, const void *b)
{
    const spy_evict *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static void full_flush(channel *c, full_answer *a)
{
    memset(a, 0, sizeof *a);
    request(c, SPY_FLUSH);
    for (;;) {
        spy_pair p;
        read_all(c, &p, sizeof p);
        if (p.code == RDP_CONTROL)
            break;
        assert_true(a->npairs < MAX_PAIRS);
        if (p.groups)
            read_all(c, a->pair[a->npairs].groups, sizeof a->pair[0].groups);
        a->pair[a->npairs++].p = p;
    }
    for (;;) {
        spy_evict e;
        read_all(c, &e, sizeof e);
        if (e.key == UINT64_MAX)
            break;
        assert_true(a->nevicts < MAX_EVICTS);
        a->evict[a->nevicts++] = e;
    }
    read_all(c, a->thread, sizeof a->thread);
    read_all(c, &a->skipped, sizeof a->skipped);
    qsort(a->pair, (size_t)a->npairs, sizeof a->pair[0], by_pair);
    qsort(a->evict, (size_t)a->nevicts, sizeof a->evict[0], by_key);
}

static const spy_pair *spy_find(const full_answer *a, uint32_t code, uint32_t obj)
{
    for (int i = 0; i < a->npairs; i++)
        if (a->pair[i].p.code == code && a->pair[i].p.obj == obj)
            return &a->pair[i].p;
    fail_msg("no pair (%u, %u) in the answer", code, obj);
    return NULL;
}

/* Two threads sweep K lines each R times, within their private L1: cold
 * misses only, once per line at each level, and every count where it
 * belongs; a sweep of twice L1's lines, R times: L1 misses every time,
 * the first sweep's cold and the rest capacity, each after the first
 * L1_LINES evicting the object's own line; L2 holds it (cold only). */
static void test_spy_counts(void **state)
{
    (void)state;
    channel c;
    channel_start(&c, 1, 1);
    spy_config_send(&c);
    spy_sweeps(&c, 0, 7, 3, 1 << 20, K, R);
    spy_sweeps(&c, 1, 9, 4, 1 << 24, K, R);
    static full_answer a;
    full_flush(&c, &a);
    assert_int_equal(a.npairs, 2);
    assert_int_equal(a.nevicts, 0);
    for (uint32_t t = 0; t < 2; t++) {
        const spy_pair *p = spy_find(&a, t ? 9 : 7, t ? 4 : 3);
        assert_int_equal(p->n.refs, K * R);
        assert_int_equal(p->n.reads, K * R);
        assert_int_equal(p->n.writes, 0);
        for (int k = 0; k < 2; k++) {
            assert_int_equal(p->n.miss[k], K);
            assert_int_equal(p->n.cause[k][MS_COLD], K);
            assert_int_equal(p->n.unknown[k], 0);
        }
        assert_int_equal(a.thread[t].refs, K * R);
        assert_int_equal(a.thread[t].miss[0], K);
        assert_int_equal(a.thread[t].miss[1], K);
    }
    assert_int_equal(a.skipped, 0);

    spy_sweeps(&c, 0, 7, 5, 1 << 26, 2 * L1_LINES, R);
    full_flush(&c, &a);
    assert_int_equal(a.npairs, 1); /* the first flush's pairs were zeroed */
    const spy_pair *p = spy_find(&a, 7, 5);
    assert_int_equal(p->n.refs, 2 * L1_LINES * R);
    assert_int_equal(p->n.miss[0], 2 * L1_LINES * R);
    assert_int_equal(p->n.cause[0][MS_COLD], 2 * L1_LINES);
    assert_int_equal(p->n.cause[0][MS_CAPACITY], 2 * L1_LINES * (R - 1));
    assert_int_equal(p->n.miss[1], 2 * L1_LINES);
    assert_int_equal(a.nevicts, 2); /* thread 0's first sweep's lines, then its own */
    uint64_t own = 0, earlier = 0;
    for (int i = 0; i < a.nevicts; i++) {
        if (a.evict[i].key == ms_evict_key(0, 5, 5))
            own = a.evict[i].count;
        if (a.evict[i].key == ms_evict_key(0, 3, 5))
            earlier = a.evict[i].count;
    }
    assert_int_equal(earlier, K);
    assert_int_equal(own, 2 * L1_LINES * R - (L1_LINES - K) - K);
    assert_int_equal(a.thread[0].refs, 2 * L1_LINES * R);
    assert_int_equal(a.thread[1].refs, 0);
    channel_close(&c);
}


/* ---- memspy's levels on threads of their own (spy_stages.c) ------------ */

enum { TRACE_REFS = 150000 };

/* splitmix64 */
static uint64_t next_random(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A fixed-seed trace of TRACE_REFS references of 8 instructions to 4
 * objects: sweeps of 1.5 MiB, random lines of 48 KiB and 6 MiB, reads and
 * writes of 1-16 bytes (some across lines), now and then 200 bytes (4
 * lines) or 8 KiB (128 lines: more than an ms_pass carries); a new time
 * sample every 5,000 when `samples`; a second simulator thread from the
 * middle when `second` (coherence, which the stages hand back to one
 * thread). */
static void spy_trace(channel *c, int samples, int second)
{
    uint64_t x = 27, sweep = 0;
    put(c, 0, RDP_CONTROL, SPY_THREAD);
    for (uint64_t i = 0; i < TRACE_REFS; i++) {
        if (second && i == TRACE_REFS / 2)
            put(c, 1, RDP_CONTROL, SPY_THREAD);
        if (samples && i % 5000 == 4999)
            put(c, 0, RDP_CONTROL, SPY_SAMPLE);
        uint64_t r = next_random(&x), addr;
        uint32_t obj = (uint32_t)(r & 3), code = (uint32_t)(r >> 2 & 7), size = 1 + (uint32_t)(r >> 5 & 15);
        switch (obj) {
        case 0: addr = (1ull << 30) + (sweep++ * 24) % (3 << 19); break;
        case 1: addr = (2ull << 30) + (r >> 12) % (48 << 10); break;
        case 2: addr = (3ull << 30) + (r >> 12) % (6 << 20); break;
        default: addr = (4ull << 30) + (r >> 12) % (1 << 20); break;
        }
        if ((r >> 40) % 997 == 0)
            size = (r >> 50) & 1 ? 8192 : 200;
        put(c, addr << SPY_ADDR_SHIFT | size * 2 | (r >> 9 & 1), code, obj);
    }
}

/* zen4-like three levels (L1 32 KiB 8-way, L2 1 MiB 8-way, L3 8 MiB
 * 16-way shared), with set sampling `sets`, shadow sampling `shadows` and
 * groups when set sampling. */
static spy_config three_levels(uint32_t sets, uint32_t shadows)
{
    spy_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.sim.nlevels = 3;
    cfg.sim.level[0] = (ms_level_config){32768, LINE, 8, 1};
    cfg.sim.level[1] = (ms_level_config){1 << 20, LINE, 8, 1};
    cfg.sim.level[2] = (ms_level_config){8 << 20, LINE, 16, 8};
    cfg.sim.set_sample = sets;
    cfg.sim.shadow_sample = shadows;
    cfg.groups = sets > 1;
    cfg.group_shift = 6 + (uint32_t)__builtin_ctz(sets);
    return cfg;
}

/* The answer to the trace (two flushes: its halves) with the levels on
 * `threads` threads. */
static void stages_answer(unsigned threads, const spy_config *cfg, int samples, int second, full_answer *a)
{
    channel c;
    channel_start(&c, threads, 1);
    spy_config_put(&c, cfg);
    spy_trace(&c, samples, second);
    full_flush(&c, &a[0]);
    spy_trace(&c, samples, 0);
    full_flush(&c, &a[1]);
    channel_close(&c);
}

/* Levels on 2 and 3 threads count what one thread counts, to the
 * reference: full simulation, set sampling (its shadows apart) with
 * groups, shadow sampling, time sampling, and a second thread from the
 * middle; and the trace misses at every level (the comparison is not
 * of zeros). */
static void test_spy_stages_same_counts(void **state)
{
    (void)state;
    static const struct {
        uint32_t sets, shadows;
        int samples, second;
    } cases[] = {{1, 1, 0, 0}, {8, 1, 0, 0}, {1, 4, 0, 0}, {1, 1, 1, 0}, {1, 1, 0, 1}, {8, 2, 0, 1}};
    static full_answer one[2], many[2];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        spy_config cfg = three_levels(cases[i].sets, cases[i].shadows);
        stages_answer(1, &cfg, cases[i].samples, cases[i].second, one);
        for (int k = 0; k < 3; k++)
            assert_true(one[0].thread[0].miss[k] > 100);
        for (unsigned threads = 2; threads <= 3; threads++) {
            stages_answer(threads, &cfg, cases[i].samples, cases[i].second, many);
            for (int f = 0; f < 2; f++) {
                if (memcmp(&one[f], &many[f], sizeof one[f]) != 0)
                    fail_msg("case %zu, %u threads, flush %d: counts differ from one thread's", i, threads, f);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engines_on_the_reader),
        cmocka_unit_test(test_engines_on_threads),
        cmocka_unit_test(test_export),
        cmocka_unit_test(test_spy_counts),
        cmocka_unit_test(test_spy_stages_same_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_rd_stack.c — unit tests of the exact reuse-distance engine (rd_stack).
 *
 * Every expected distance comes from outside the engine: closed forms of
 * access patterns whose LRU stack is easy to reason about, and, for random
 * traces, a naive move-to-front list written here.  The random traces are
 * long enough to force many timestamp compactions and hash-table growths.
 * An allocator wrapper checks that every allocation is released.
 */
#include "rd_test_support.h"

/* ---- naive reference: move-to-front array -------------------------------- */

/* The LRU stack as an array with the most recent block LAST, so a move to
 * the top is one shift of the blocks above it: O(distance) per access.
 * A plain hash set of seen blocks spares cold accesses a scan of the whole
 * list (which made the large traces quadratic); it decides nothing else. */
typedef struct naive_lru {
    uint64_t *v;
    size_t n, cap;
    uint64_t *seen;   /* open addressing, linear probing */
    uint8_t *used;
    size_t seen_cap;  /* power of two, kept >= 2n */
} naive_lru;

/* The seen-set slot holding block, or the free slot where it belongs. */
static size_t seen_slot(const naive_lru *l, uint64_t block)
{
    size_t i = (size_t)((block * 0xd6e8feb86659fd93ull) >> 40) & (l->seen_cap - 1);
    while (l->used[i] && l->seen[i] != block)
        i = (i + 1) & (l->seen_cap - 1);
    return i;
}

/* Insert block into the seen set; returns 1 if it was new. */
static int seen_insert(naive_lru *l, uint64_t block)
{
    if (2 * (l->n + 1) > l->seen_cap) {
        naive_lru old = *l;
        l->seen_cap = l->seen_cap ? 2 * l->seen_cap : 1024;
        l->seen = malloc(l->seen_cap * sizeof *l->seen);
        l->used = calloc(l->seen_cap, 1);
        assert_true(l->seen && l->used);
        for (size_t i = 0; i < old.seen_cap; i++)
            if (old.used[i]) {
                size_t j = seen_slot(l, old.seen[i]);
                l->used[j] = 1;
                l->seen[j] = old.seen[i];
            }
        free(old.seen);
        free(old.used);
    }
    size_t i = seen_slot(l, block);
    if (l->used[i])
        return 0;
    l->used[i] = 1;
    l->seen[i] = block;
    return 1;
}

/* Reference distance of an access to block (RD_COLD the first time), and
 * move block to the top of the list. */
static uint64_t naive_access(naive_lru *l, uint64_t block)
{
    if (seen_insert(l, block)) { /* cold: push on top */
        if (l->n == l->cap) {
            l->cap = l->cap ? 2 * l->cap : 1024;
            l->v = realloc(l->v, l->cap * sizeof *l->v);
            assert_non_null(l->v);
        }
        l->v[l->n++] = block;
        return RD_COLD;
    }
    size_t i = l->n;
    while (i > 0 && l->v[i - 1] != block)
        i--;
    assert_true(i > 0); /* seen, so it is in the list */
    size_t pos = i - 1;
    uint64_t d = l->n - 1 - pos; /* blocks above it */
    shift_down(&l->v[pos], d);
    l->v[l->n - 1] = block;
    return d;
}

/* Release the reference list and its seen set. */
static void naive_free(naive_lru *l)
{
    free(l->v);
    free(l->seen);
    free(l->used);
}

/* ---- closed-form patterns ------------------------------------------------ */

static void test_empty_and_free_null(void **state)
{
    (void)state;
    rd_stack *s = rd_stack_new(&alloc);
    assert_int_equal(rd_stack_blocks(s), 0);
    rd_stack_free(s);
    rd_stack_free(NULL);
}

/* The same block over and over: cold once, then distance 0.  Block 0 first,
 * so that the "repeat of the most recent block" shortcut cannot mistake the
 * first access for a repeat. */
static void test_same_block(void **state)
{
    (void)state;
    uint64_t blocks[] = {0, 42, UINT64_MAX, UINT64_MAX - 1};
    for (size_t k = 0; k < sizeof blocks / sizeof *blocks; k++) {
        rd_stack *s = rd_stack_new(&alloc);
        assert_true(rd_stack_access(s, blocks[k]) == RD_COLD);
        for (int i = 0; i < 10000; i++)
            assert_int_equal(rd_stack_access(s, blocks[k]), 0);
        assert_int_equal(rd_stack_blocks(s), 1);
        rd_stack_free(s);
    }
}

/* Two blocks alternating: after the two cold accesses, every distance is 1
 * (exactly one other block since the last access). */
static void test_ping_pong(void **state)
{
    (void)state;
    rd_stack *s = rd_stack_new(&alloc);
    assert_true(rd_stack_access(s, 7) == RD_COLD);
    assert_true(rd_stack_access(s, 9) == RD_COLD);
    for (int i = 0; i < 100000; i++)
        assert_int_equal(rd_stack_access(s, (i & 1) ? 9 : 7), 1);
    rd_stack_free(s);
}

/* Cyclic sweep over K blocks, R times: K cold accesses, then every access has
 * the other K-1 blocks above it.  The larger K force hash growth, and the
 * many accesses force compactions. */
static void test_cyclic_sweep(void **state)
{
    (void)state;
    const uint64_t ks[] = {1, 2, 3, 63, 64, 65, 1000, 4097, 100000};
    for (size_t k = 0; k < sizeof ks / sizeof *ks; k++) {
        uint64_t K = ks[k];
        int R = K > 10000 ? 6 : 40;
        uint64_t base = 0x1000 * k; /* different start blocks */
        rd_stack *s = rd_stack_new(&alloc);
        uint64_t cold = 0, wrong = 0;
        for (int r = 0; r < R; r++)
            for (uint64_t b = 0; b < K; b++) {
                uint64_t d = rd_stack_access(s, base + b);
                if (d == RD_COLD)
                    cold++;
                else if (d != (K == 1 ? 0 : K - 1))
                    wrong++;
            }
        assert_int_equal(cold, K);
        assert_int_equal(wrong, 0);
        assert_int_equal(rd_stack_blocks(s), K);
        rd_stack_free(s);
    }
}

/* Zig-zag: 0..K-1, K-1..0, 0..K-1, ... (the turning block is repeated).
 * After the first forward pass (all cold), on a backward pass block i was
 * last touched in the previous forward pass, after which i+1..K-1 were
 * touched (forward, then again backward): distance K-1-i, although 2(K-1-i)
 * accesses separate the two touches.  Symmetrically, on a forward pass
 * block i has distance i. */
static void test_zigzag(void **state)
{
    (void)state;
    const uint64_t ks[] = {1, 2, 5, 100, 3000, 20000};
    for (size_t k = 0; k < sizeof ks / sizeof *ks; k++) {
        uint64_t K = ks[k];
        rd_stack *s = rd_stack_new(&alloc);
        for (uint64_t i = 0; i < K; i++)
            assert_true(rd_stack_access(s, 1000 + i) == RD_COLD);
        for (int pass = 0; pass < 10; pass++) {
            for (uint64_t j = 0; j < K; j++) {
                uint64_t i = K - 1 - j; /* backward */
                assert_int_equal(rd_stack_access(s, 1000 + i), K - 1 - i);
            }
            for (uint64_t i = 0; i < K; i++) /* forward */
                assert_int_equal(rd_stack_access(s, 1000 + i), i);
        }
        rd_stack_free(s);
    }
}

/* Byte addresses i*stride, i = 0..n-1, at block size B, swept twice.
 * With stride < B dividing B, each block gets B/stride consecutive accesses:
 * the first is cold (first sweep) or has distance nblocks-1 (second sweep:
 * all other blocks came in between), the others distance 0.  With stride >=
 * B every access is its own block. */
static void stride_case(uint64_t stride, uint64_t B, uint64_t n)
{
    uint64_t per_block = stride < B ? B / stride : 1;
    uint64_t nblocks = n / per_block; /* n is a multiple of per_block */
    rd_stack *s = rd_stack_new(&alloc);
    uint64_t base = 0x7f0000000000ull; /* a typical heap/stack address */
    for (int sweep = 0; sweep < 2; sweep++) {
        uint64_t first = 0, zero = 0, other = 0;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t d = rd_stack_access(s, (base + i * stride) / B);
            if (d == (sweep == 0 ? RD_COLD : nblocks - 1))
                first++;
            else if (d == 0)
                zero++;
            else
                other++;
        }
        if (nblocks == 1 && sweep == 1) {  /* first and zero coincide */
            assert_int_equal(first, n);
        } else {
            assert_int_equal(first, nblocks);
            assert_int_equal(zero, n - nblocks);
        }
        assert_int_equal(other, 0);
    }
    assert_int_equal(rd_stack_blocks(s), nblocks);
    rd_stack_free(s);
}

/* stride_case() over the common element sizes, block sizes and strides. */
static void test_strides(void **state)
{
    (void)state;
    stride_case(8, 64, 8000);        /* 8 doubles per line: 1000 lines */
    stride_case(4, 64, 64000);       /* floats: 4000 lines */
    stride_case(64, 64, 5000);       /* one access per line */
    stride_case(4096, 64, 5000);     /* page stride, 64 B lines */
    stride_case(8, 4096, 512 * 300); /* doubles, 4 KiB pages: 300 pages */
    stride_case(64, 4096, 64);       /* one page */
    stride_case(4096, 4096, 70000);  /* one access per page, many pages */
}

/* A stride that does not divide the block size (24-byte structs in 64-byte
 * lines): the blocks are floor(24 i / 64), so there are floor(24(n-1)/64)+1
 * of them; an access is a block's first in the sweep iff its block differs
 * from the previous access's block. */
static void test_stride_uneven(void **state)
{
    (void)state;
    const uint64_t n = 10000, stride = 24, B = 64;
    uint64_t nblocks = stride * (n - 1) / B + 1;
    rd_stack *s = rd_stack_new(&alloc);
    for (int sweep = 0; sweep < 3; sweep++) {
        for (uint64_t i = 0; i < n; i++) {
            uint64_t blk = i * stride / B;
            int first = i == 0 || (i - 1) * stride / B != blk;
            uint64_t want = !first ? 0 : sweep == 0 ? RD_COLD : nblocks - 1;
            assert_int_equal(rd_stack_access(s, blk), want);
        }
    }
    assert_int_equal(rd_stack_blocks(s), nblocks);
    rd_stack_free(s);
}

/* A matrix of R rows of 2 KiB (32 lines of 64 B) read column by column,
 * C = 32 columns: each pass visits all R*32 blocks once, in a fixed order,
 * so the first pass is cold and every later access has distance R*32-1.
 * One block per hash run at a time, the pattern that defeats a hash keyed
 * on runs of consecutive blocks if it does not spread offsets. */
static void test_column_walk(void **state)
{
    (void)state;
    const uint64_t rows[] = {1, 7, 3000};
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++) {
        uint64_t R = rows[k], K = R * 32, base = 0x55550000000ull / 64;
        rd_stack *s = rd_stack_new(&alloc);
        for (int pass = 0; pass < 4; pass++)
            for (uint64_t c = 0; c < 32; c++)
                for (uint64_t r = 0; r < R; r++) {
                    uint64_t want = pass == 0 ? RD_COLD : K - 1;
                    assert_int_equal(rd_stack_access(s, base + r * 32 + c), want);
                }
        assert_int_equal(rd_stack_blocks(s), K);
        rd_stack_free(s);
    }
}

/* Two arrays of K one-block elements, accessed a[0], b[0], a[1], b[1], ...
 * and swept repeatedly: 2K cold accesses, then every access has the other
 * 2K-1 blocks above it. */
static void test_interleaved_arrays(void **state)
{
    (void)state;
    const uint64_t ks[] = {1, 10, 777, 50000};
    for (size_t k = 0; k < sizeof ks / sizeof *ks; k++) {
        uint64_t K = ks[k];
        uint64_t a = 0x10000, b = 0x7ffff000000ull; /* far apart */
        rd_stack *s = rd_stack_new(&alloc);
        for (int r = 0; r < 5; r++)
            for (uint64_t i = 0; i < K; i++) {
                uint64_t want = r == 0 ? RD_COLD : 2 * K - 1;
                assert_int_equal(rd_stack_access(s, a + i), want);
                assert_int_equal(rd_stack_access(s, b + i), want);
            }
        assert_int_equal(rd_stack_blocks(s), 2 * K);
        rd_stack_free(s);
    }
}

/* A fixed random permutation of K random 64-bit block numbers, repeated:
 * every non-cold access has distance K-1. */
static void test_random_permutation(void **state)
{
    (void)state;
    const uint64_t ks[] = {2, 100, 5000, 60000};
    rng_state = 12345;
    for (size_t k = 0; k < sizeof ks / sizeof *ks; k++) {
        uint64_t K = ks[k];
        uint64_t *perm = malloc(K * sizeof *perm);
        assert_non_null(perm);
        for (uint64_t i = 0; i < K; i++) /* low 24 bits distinct */
            perm[i] = (i + 1) * 0x9e3779b97f4a7c15ull ^ (rng_next() & ~0xffffffull);
        for (uint64_t i = K - 1; i > 0; i--) { /* Fisher-Yates shuffle */
            uint64_t j = rng_below(i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        rd_stack *s = rd_stack_new(&alloc);
        for (uint64_t i = 0; i < K; i++)
            assert_true(rd_stack_access(s, perm[i]) == RD_COLD);
        for (int r = 0; r < 8; r++)
            for (uint64_t i = 0; i < K; i++)
                assert_int_equal(rd_stack_access(s, perm[i]), K - 1);
        assert_int_equal(rd_stack_blocks(s), K);
        rd_stack_free(s);
        free(perm);
    }
}

/* ---- random traces against the naive list -------------------------------- */

/* How a random trace picks its blocks. */
typedef enum { UNIFORM, HOT_COLD, DRIFT } trace_kind;

/* The i-th block of a trace over `footprint` blocks, mapped through `spread`
 * so that block numbers are neither small nor consecutive (except DRIFT,
 * which keeps runs of consecutive blocks like array code does). */
static uint64_t trace_block(trace_kind kind, uint64_t footprint, uint64_t i,
                            uint64_t spread)
{
    uint64_t b;
    switch (kind) {
    case UNIFORM:
        b = rng_below(footprint);
        break;
    case HOT_COLD: /* 90% to a hot set of 64 blocks, the rest anywhere */
        b = rng_below(10) ? rng_below(64) : rng_below(footprint);
        break;
    default: /* DRIFT: a window of 256 blocks sliding through the footprint */
        b = (i / 8 + rng_below(256)) % footprint;
        return b + spread;
    }
    return b * spread;
}

/* Run n accesses of a random trace through the engine and the naive list,
 * failing on the first mismatches (up to 5 are printed); also check the
 * block count and that large distances really occurred. */
static void random_trace(trace_kind kind, uint64_t footprint, uint64_t n,
                         uint64_t spread, uint64_t seed)
{
    rng_state = seed;
    naive_lru ref = {0};
    rd_stack *s = rd_stack_new(&alloc);
    uint64_t mismatches = 0, cold = 0, far = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t b = trace_block(kind, footprint, i, spread);
        uint64_t want = naive_access(&ref, b);
        uint64_t got = rd_stack_access(s, b);
        if (got != want && mismatches++ < 5)
            print_error("kind %d footprint %llu access %llu block %llx: got %llu want %llu\n",
                        (int)kind, (unsigned long long)footprint, (unsigned long long)i,
                        (unsigned long long)b, (unsigned long long)got,
                        (unsigned long long)want);
        cold += want == RD_COLD;
        far += want != RD_COLD && want >= 64;
    }
    assert_int_equal(mismatches, 0);
    assert_int_equal(rd_stack_blocks(s), ref.n);
    assert_int_equal(cold, ref.n);
    if (footprint > 200) /* the trace really exercised the tree walks */
        assert_true(far > n / 100);
    rd_stack_free(s);
    naive_free(&ref);
}

/* Small footprints, long traces: hundreds of compactions. */
static void test_random_small(void **state)
{
    (void)state;
    random_trace(UNIFORM, 10, 1000000, 1, 1);   /* ~250 compactions */
    random_trace(UNIFORM, 100, 1000000, 64, 2);
    random_trace(UNIFORM, 1000, 500000, 0x10001, 3);
}

/* Footprints up to 10^5 blocks: table growth, large gaps, drifting sets. */
static void test_random_large(void **state)
{
    (void)state;
    random_trace(UNIFORM, 20000, 200000, 3, 4);
    random_trace(HOT_COLD, 100000, 600000, 0x9e3779b97f4a7c15ull, 5);
    random_trace(DRIFT, 100000, 1000000, 1ull << 40, 6);
}

static int by_recency(const void *x, const void *y)
{
    const rd_stack_entry *a = x, *b = y;
    return (a->recency > b->recency) - (a->recency < b->recency);
}

/* A stack rebuilt from rd_stack_entries (its blocks accessed in increasing
 * recency, as a forked process's stacks are moved: collect_pipe.c) gives
 * the distances the naive list gives from then on, as the original does:
 * after a short trace (the front only), and after long ones (compactions,
 * table growth). */
static void test_entries_rebuild(void **state)
{
    (void)state;
    const uint64_t before[] = {5, 3000, 400000};
    for (size_t k = 0; k < sizeof before / sizeof *before; k++) {
        rng_state = 11 + k;
        naive_lru ref = {0};
        rd_stack *s = rd_stack_new(&alloc);
        for (uint64_t i = 0; i < before[k]; i++) {
            uint64_t b = trace_block(HOT_COLD, 20000, i, 7);
            naive_access(&ref, b);
            rd_stack_access(s, b);
        }
        uint64_t n = rd_stack_blocks(s);
        rd_stack_entry *e = malloc((n ? n : 1) * sizeof *e);
        rd_stack_entries(s, e);
        qsort(e, n, sizeof *e, by_recency);
        rd_stack *copy = rd_stack_new(&alloc);
        for (uint64_t i = 0; i < n; i++) {
            assert_true(i == 0 || e[i].recency > e[i - 1].recency);
            assert_int_equal(rd_stack_access(copy, e[i].block), RD_COLD);
        }
        free(e);
        assert_int_equal(rd_stack_blocks(copy), ref.n);
        for (uint64_t i = 0; i < 200000; i++) {
            uint64_t b = trace_block(HOT_COLD, 20000, before[k] + i, 7), want = naive_access(&ref, b);
            assert_int_equal(rd_stack_access(s, b), want);
            assert_int_equal(rd_stack_access(copy, b), want);
        }
        rd_stack_free(s);
        rd_stack_free(copy);
        naive_free(&ref);
    }
}

/* Block numbers that a weak hash would pile up: all multiples of 2^k for
 * large k, and numbers differing only in their top bits. */
static void test_adversarial_blocks(void **state)
{
    (void)state;
    rng_state = 7;
    naive_lru ref = {0};
    rd_stack *s = rd_stack_new(&alloc);
    for (uint64_t i = 0; i < 300000; i++) {
        uint64_t r = rng_below(3000), b;
        if (r < 1000)
            b = r << 32;
        else if (r < 2000)
            b = (r - 1000) << 54 | 5;
        else
            b = (r - 2000) * 4096;
        uint64_t want = naive_access(&ref, b);
        assert_int_equal(rd_stack_access(s, b), want);
    }
    assert_int_equal(rd_stack_blocks(s), ref.n);
    rd_stack_free(s);
    naive_free(&ref);
}
/* rd_stack_access_front (the front's search inline, as rd_touch_blocks and
 * the collector run it) and rd_stack_access, taken at random on one stack,
 * against the naive list: footprints where most accesses end in the
 * searched positions (4, 5 blocks), some (9, 12), and few (3000). */
static void test_front_inline(void **state)
{
    (void)state;
    const uint64_t footprints[] = {4, 5, 9, 12, 3000};
    for (unsigned k = 0; k < sizeof footprints / sizeof *footprints; k++) {
        rng_state = 100 + k;
        naive_lru ref = {0};
        rd_stack *s = rd_stack_new(&alloc);
        uint64_t *f = rd_stack_front(s);
        assert_true(f[0] == RD_NO_BLOCK && f[1] == RD_NO_BLOCK); /* an empty stack shows no block */
        uint64_t mismatches = 0, in_front = 0;
        for (uint64_t i = 0; i < 200000; i++) {
            uint64_t b = trace_block(UNIFORM, footprints[k], i, 0x10001) + 1;
            uint64_t want = naive_access(&ref, b);
            uint64_t got = rng_below(2) ? rd_stack_access_front(s, b) : rd_stack_access(s, b);
            mismatches += got != want;
            in_front += want < RD_FRONT_SEARCH;
            assert_true(f[0] == b); /* the front's top is the block just accessed */
        }
        assert_int_equal(mismatches, 0);
        if (footprints[k] <= 5) /* the inline search answered most */
            assert_true(in_front > 150000);
        rd_stack_free(s);
        naive_free(&ref);
    }
}

#define T(f) cmocka_unit_test_setup_teardown(f, reset_counts, check_no_leaks)

/* Run every test; cmocka returns the number of failures. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_empty_and_free_null),
        T(test_same_block),
        T(test_ping_pong),
        T(test_cyclic_sweep),
        T(test_zigzag),
        T(test_strides),
        T(test_stride_uneven),
        T(test_column_walk),
        T(test_entries_rebuild),
        T(test_interleaved_arrays),
        T(test_random_permutation),
        T(test_random_small),
        T(test_random_large),
        T(test_adversarial_blocks),
        T(test_front_inline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

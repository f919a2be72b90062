/* rd_stack.c — the exact LRU stack (reuse) distance engine behind rd_stack_*.
 *
 * The top of the stack, the FRONT_K most recently used distinct blocks, is
 * kept exactly as a small array, most recent first: a block found there at
 * position p has distance p, found with a few compares and no table work.
 * Most accesses of regular loops end there (the streams of a stencil or a
 * matrix product interleave a handful of blocks).  Every front block is more
 * recent than every block below the front, so when a block enters the front
 * and pushes its oldest block out, that block simply becomes the newest of
 * the rest and takes the next timestamp `now`.
 *
 * For the rest, three structures answer "how many distinct blocks were
 * touched since block b's previous access at time t?" (to which the FRONT_K
 * front blocks add):
 *
 *   - an open-addressing hash map block -> timestamp of its LAST access;
 *   - a bitmap over the timestamp space in which a bit is set iff that
 *     timestamp is the last access of some block (so exactly N bits are set
 *     for N distinct blocks);
 *   - a Fenwick (binary indexed) tree over the bitmap's 64-bit WORDS holding
 *     each word's population count, so range counts need O(log(T/64)) steps.
 *
 *   distance = number of set bits in (t, now)
 *            = popcount(rest of t's word) + sum of the word counts after it.
 *
 * Small distances are the common case, and they usually have t close to now,
 * so the count stays inside one word or walks the Fenwick tree only from the
 * two ends up to where their paths meet (cost ~ log of the gap, not of T).
 * The bitmap and the tree are small (T/8 + T/16 bytes), so they stay in
 * cache; the hash map is the only large structure.
 *
 * When `now` reaches the end of the timestamp space T, the live timestamps
 * are renumbered 0..N-1 in order (compaction, O(T/64 + hash size)), and T is
 * chosen >= TS_FACTOR * N so that compactions cost O(1) amortised per access.
 * See docs/algorithms-rd.md for the derivation and measurements.
 */
#include "rd.h"

/* ---- tunables (measured; see docs/algorithms-rd.md) ----------------------
 * Overridable with -D only to re-run those measurements and the tests'
 * coverage of every code path; the defaults are the product. */

#ifndef RUN_BITS
#define RUN_BITS 5u         /* 32 consecutive blocks share a home: slot_home() */
#endif
#ifndef HASH_MIN_BITS
#define HASH_MIN_BITS 7u    /* smallest table: 128 slots (> one run) */
#endif
#ifndef HASH_LOAD_NUM
#define HASH_LOAD_NUM 3u    /* grow when blocks > capacity * 3/4 */
#define HASH_LOAD_DEN 4u
#endif
#ifndef TS_MIN_WORDS
#define TS_MIN_WORDS 64u    /* smallest timestamp space: 64 words = 4096 */
#endif
#ifndef TS_FACTOR
#define TS_FACTOR 4u        /* after a compaction, T >= TS_FACTOR * N */
#endif
_Static_assert(TS_FACTOR >= 2, "a compaction must leave free timestamps");
_Static_assert(HASH_MIN_BITS > RUN_BITS, "the table must hold several runs");

#ifndef FRONT_K
#define FRONT_K 8u          /* exact top of the stack kept as an array */
#endif

_Static_assert(FRONT_K >= RD_FRONT_SEARCH, "rd_stack_access_front searches that many");

#define TS_EMPTY UINT64_MAX       /* timestamp of an unused hash slot */
#define TS_FRONT (UINT64_MAX - 1) /* the block is in the front array, unmarked */

/* One hash slot: a block number and the timestamp of its last access.
 * 16 bytes, so four slots share a cache line and a lookup usually touches
 * one line. */
typedef struct rd_slot {
    uint64_t block;
    uint64_t ts; /* TS_EMPTY: slot unused; TS_FRONT: block in the front */
} rd_slot;

struct rd_stack {
    uint64_t front[FRONT_K]; /* the most recent distinct blocks, newest first: first (rd_stack_front) */
    const rd_allocator *a;

    /* hash map block -> last timestamp (linear probing, never deletes) */
    rd_slot *slots;
    size_t mask;        /* capacity - 1 (capacity a power of two) */
    unsigned shift;     /* 64 - log2(capacity): slot_home() */
    uint64_t nblocks;   /* distinct blocks == occupied slots == set bits + nfront */
    uint64_t grow_at;   /* grow the table when nblocks exceeds this */

    /* timestamp space [0, 64 * nwords) */
    uint64_t *bits;     /* bit t set: t is some block's last access */
    uint32_t *fen;      /* Fenwick tree over word counts, 1-based, [1..nwords] */
    size_t nwords;      /* a power of two, so every update path ends at nwords */
    uint64_t now;       /* next timestamp to hand out */

    unsigned nfront;
};
_Static_assert(offsetof(struct rd_stack, front) == 0, "rd_stack_front: a stack begins with its front");

/* ---- small helpers ------------------------------------------------------- */

/* Number of set bits of x.  Uses the POPCNT instruction when the target has
 * it; otherwise a branch-free SWAR count, because __builtin_popcountll would
 * become a call into libgcc, which is slower (and, in the Valgrind tool, one
 * more dependency). */
static inline unsigned popcount64(uint64_t x)
{
#if defined(__POPCNT__) || defined(__aarch64__)
    return (unsigned)__builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
#endif
}

/* Lowest set bit of the Fenwick index i (i > 0). */
static inline size_t lowbit(size_t i)
{
    return i & (~i + 1);
}

/* Smallest power of two >= x (x >= 1, x <= 2^63). */
static inline uint64_t pow2_at_least(uint64_t x)
{
    return x <= 1 ? 1 : (uint64_t)1 << (64 - __builtin_clzll(x - 1));
}

/* ---- hash map ------------------------------------------------------------ */

/* Home slot of `block`.  Blocks are grouped in runs of 2^RUN_BITS = 32
 * consecutive block numbers.  A multiplicative (Fibonacci) hash of the run
 * number picks a table index h; the run's home is the aligned region of 32
 * slots (512 bytes) that holds h, and block i of the run goes to slot
 * (r + i) mod 32 of the region, r being h's offset rounded down to a cache
 * line (4 slots).
 *  - Sweeps, the most common large-distance pattern, thus walk the table
 *    sequentially within a page instead of missing the cache and TLB on every
 *    block: measured 1.8x faster than runs of 8 and ~5x faster than
 *    hashing each block (sweep over 32 MiB), at no cost on random traces.
 *  - The rotation by r keeps strided access with one block per run (e.g. a
 *    matrix column) from piling every key on offset 0 of its region: that
 *    took 12.5 probes per lookup at full load, and ~2 with the rotation.
 *    Rotating by whole lines rather than slots keeps sweeps starting on a
 *    line boundary (slot rotation cost sweeps ~8 ns, line rotation ~3 ns).
 * Fibonacci hashing spreads consecutive run numbers almost perfectly.  The
 * fold x ^= x >> 32 lets high-only differences reach the product's top
 * bits. */
static inline size_t slot_home(uint64_t block, unsigned shift)
{
    const size_t in_run = ((size_t)1 << RUN_BITS) - 1, in_line = 3;
    uint64_t run = block >> RUN_BITS;
    run ^= run >> 32;
    size_t h = (size_t)((run * 0x9e3779b97f4a7c15ull) >> shift);
    return (h & ~in_run) | (((h & ~in_line) + (size_t)block) & in_run);
}

/* The slot holding `block`, or the empty slot where it belongs.  The table is
 * never full (load <= 3/4), so the probe terminates. */
static inline rd_slot *slot_find(rd_slot *slots, size_t mask, unsigned shift,
                                 uint64_t block)
{
    size_t i = slot_home(block, shift);
    for (;;) {
        rd_slot *sl = &slots[i];
        if (sl->ts == TS_EMPTY || sl->block == block)
            return sl;
        i = (i + 1) & mask;
    }
}

/* Allocate a table of 2^bits empty slots and make it s's table (the caller
 * moves any old contents). */
static void table_alloc(rd_stack *s, unsigned bits)
{
    size_t cap = (size_t)1 << bits;
    s->slots = s->a->alloc(s->a->ctx, cap * sizeof *s->slots);
    for (size_t i = 0; i < cap; i++)
        s->slots[i].ts = TS_EMPTY;
    s->mask = cap - 1;
    s->shift = 64u - bits;
    s->grow_at = (uint64_t)cap * HASH_LOAD_NUM / HASH_LOAD_DEN;
}

/* Double the table and re-insert every block with its timestamp.  O(size). */
static void table_grow(rd_stack *s)
{
    rd_slot *old = s->slots;
    size_t oldcap = s->mask + 1;
    unsigned bits = 64u - s->shift;
    table_alloc(s, bits + 1u);
    for (size_t i = 0; i < oldcap; i++) {
        if (old[i].ts == TS_EMPTY)
            continue;
        rd_slot *sl = slot_find(s->slots, s->mask, s->shift, old[i].block);
        sl->block = old[i].block;
        sl->ts = old[i].ts;
    }
    s->a->release(s->a->ctx, old);
}

/* ---- Fenwick tree over word counts --------------------------------------- */

/* Sum of the counts of words [lo, hi) (0-based), i.e. Fenwick prefix(hi) -
 * prefix(lo) for lo < hi.  Both prefix walks (clear the lowest set bit, ...)
 * reach the common prefix of lo and hi above their highest differing bit,
 * after which they would read the same nodes; so each walks only down to
 * `stop`, about log2(hi - lo) steps rather than log2(T/64).  (An alternating
 * loop stopping when the walks meet measured the same; a branch-free loop
 * over all bit levels was faster on random traces but slower on sweeps.) */
static inline uint32_t fen_range(const uint32_t *fen, size_t lo, size_t hi)
{
    size_t above = ~(size_t)0 << (63 - __builtin_clzll(lo ^ hi)) << 1;
    size_t stop = hi & above;
    uint32_t sum = 0; /* modular: the true result is >= 0 and < 2^32 */
    for (; hi != stop; hi &= hi - 1)
        sum += fen[hi];
    for (; lo != stop; lo &= lo - 1)
        sum -= fen[lo];
    return sum;
}

/* Move one mark from word `from` to word `to` (0-based, from != to): -1 on
 * the update path of from (1-based node from+1, then i += lowbit(i)), +1 on
 * to's.  Both paths reach the node `meet` covering the aligned block of size
 * 2^k that holds both words (k = 1 + highest differing bit), and coincide
 * from there, where -1 + 1 would cancel; so each stops at meet.  The tree
 * size is a power of two, so meet is a valid node. */
static inline void fen_move(uint32_t *fen, size_t from, size_t to)
{
    size_t low = ~(~(size_t)0 << (63 - __builtin_clzll(from ^ to)) << 1);
    size_t meet = (to | low) + 1;
    for (size_t i = from + 1; i != meet; i += lowbit(i))
        fen[i]--;
    for (size_t i = to + 1; i != meet; i += lowbit(i))
        fen[i]++;
}

/* Add one mark at 1-based word index i of a tree of n words. */
static inline void fen_inc(uint32_t *fen, size_t i, size_t n)
{
    for (; i <= n; i += lowbit(i))
        fen[i]++;
}

/* ---- timestamp marks ----------------------------------------------------- */

/* Allocate a timestamp space of n words (a power of two); contents are set
 * by marks_reset(). */
static void marks_alloc(rd_stack *s, size_t nwords)
{
    s->bits = s->a->alloc(s->a->ctx, nwords * sizeof *s->bits);
    s->fen = s->a->alloc(s->a->ctx, (nwords + 1) * sizeof *s->fen);
    s->nwords = nwords;
}

/* Set the marks to exactly timestamps 0..n-1 and build the tree in O(words):
 * node i covers words [i - lowbit(i), i), i.e. timestamps [64(i-lowbit(i)),
 * 64i), of which the first n are marked. */
static void marks_reset(rd_stack *s, uint64_t n)
{
    for (size_t w = 0; w < s->nwords; w++) {
        uint64_t first = (uint64_t)w * 64;
        s->bits[w] = n >= first + 64 ? ~(uint64_t)0
                     : n > first     ? ((uint64_t)1 << (n - first)) - 1
                                     : 0;
    }
    s->fen[0] = 0;
    for (size_t i = 1; i <= s->nwords; i++) {
        uint64_t lo = (uint64_t)(i - lowbit(i)) * 64, hi = (uint64_t)i * 64;
        uint64_t top = n < hi ? n : hi;
        s->fen[i] = top > lo ? (uint32_t)(top - lo) : 0;
    }
}

/* Renumber the live timestamps 0..N-1 in order and make the timestamp space
 * at least TS_FACTOR * N (a power of two).  The rank of a marked t is the
 * number of marks before it: an exclusive prefix sum of word counts (built
 * in the Fenwick array, which is rebuilt afterwards anyway) plus a popcount.
 * Cost O(T/64 + hash capacity); it runs after >= (TS_FACTOR-1) * N accesses
 * (or >= 4096 - N when N is small), hence O(1) amortised. */
static void compact(rd_stack *s)
{
    uint32_t below = 0;
    for (size_t w = 0; w < s->nwords; w++) {
        uint32_t c = popcount64(s->bits[w]);
        s->fen[w] = below; /* fen has nwords + 1 entries */
        below += c;
    }
    for (size_t i = 0; i <= s->mask; i++) {
        uint64_t t = s->slots[i].ts;
        if (t == TS_EMPTY || t == TS_FRONT)
            continue;
        size_t w = (size_t)(t >> 6);
        uint64_t earlier = s->bits[w] & (((uint64_t)1 << (t & 63)) - 1);
        s->slots[i].ts = s->fen[w] + popcount64(earlier);
    }

    uint64_t marked = s->nblocks - s->nfront;
    uint64_t want = pow2_at_least((TS_FACTOR * marked + 63) / 64);
    if (want > s->nwords) {
        s->a->release(s->a->ctx, s->bits);
        s->a->release(s->a->ctx, s->fen);
        marks_alloc(s, (size_t)want);
    }
    marks_reset(s, marked);
    s->now = marked;
}

/* ---- public API ---------------------------------------------------------- */

/* A new empty stack: a 128-slot table and a 4096-timestamp space. */
rd_stack *rd_stack_new(const rd_allocator *a)
{
    rd_stack *s = a->alloc(a->ctx, sizeof *s);
    s->a = a;
    table_alloc(s, HASH_MIN_BITS);
    s->nblocks = 0;
    marks_alloc(s, TS_MIN_WORDS);
    marks_reset(s, 0);
    s->now = 0;
    s->nfront = 0;
    for (unsigned p = 0; p < FRONT_K; p++) /* what rd_stack_front shows of an empty stack */
        s->front[p] = RD_NO_BLOCK;
    return s;
}

/* Distance of this access to `block` (RD_COLD on its first access), then make
 * block the top of the stack.  An access to the current top changes nothing
 * and returns 0 without touching the tables (the common case of several
 * accesses to one cache line in a row). */
/* Block at front position p (p > 0) is used again: it moves to the top. */
static inline void front_raise(uint64_t *f, unsigned p)
{
    uint64_t block = f[p];
    for (; p > 0; p--)
        f[p] = f[p - 1];
    f[0] = block;
}

/* Put `block` on top of the front.  Returns 1 and the block pushed out in
 * *out when the front was full, 0 when it had room. */
static inline int front_push(rd_stack *s, uint64_t block, uint64_t *out)
{
    unsigned n = s->nfront;
    int full = n == FRONT_K;
    if (full)
        *out = s->front[FRONT_K - 1];
    else
        s->nfront = ++n;
    for (unsigned q = n - 1; q > 0; q--)
        s->front[q] = s->front[q - 1];
    s->front[0] = block;
    return full;
}

/* Block `block`, whose slot is `sl`, leaves the marked part for the front.
 * Returns its distance (or RD_COLD) and the timestamp it freed in *freed
 * (TS_EMPTY if none).  The Fenwick tree is left to the caller, which moves
 * the freed mark to the evicted block's new timestamp in one walk. */
static inline uint64_t leave_marked(rd_stack *s, rd_slot *sl, uint64_t block, uint64_t *freed)
{
    uint64_t t = sl->ts;
    if (t == TS_EMPTY) {
        sl->block = block;
        sl->ts = TS_FRONT;
        *freed = TS_EMPTY;
        if (++s->nblocks > s->grow_at)
            table_grow(s); /* invalidates sl, no longer needed */
        return RD_COLD;
    }
    sl->ts = TS_FRONT;
    *freed = t;
    size_t wt = (size_t)(t >> 6), wn = (size_t)(s->now >> 6);
    s->bits[wt] &= ~((uint64_t)1 << (t & 63));
    uint64_t d = s->nfront + popcount64(s->bits[wt] >> (t & 63)); /* marks above t in its word */
    if (wt != wn)
        d += fen_range(s->fen, wt + 1, wn + 1); /* the words after t's, up to now's */
    return d;
}

/* The block pushed out of the front becomes the newest marked block, taking
 * timestamp `now`; the freed timestamp's count moves with it in the tree. */
static inline void enter_marked(rd_stack *s, uint64_t evicted, uint64_t freed)
{
    uint64_t now = s->now;
    size_t wn = (size_t)(now >> 6);
    slot_find(s->slots, s->mask, s->shift, evicted)->ts = now;
    s->bits[wn] |= (uint64_t)1 << (now & 63);
    if (freed == TS_EMPTY)
        fen_inc(s->fen, wn + 1, s->nwords);
    else if ((size_t)(freed >> 6) != wn)
        fen_move(s->fen, (size_t)(freed >> 6), wn);
    if (++s->now == (uint64_t)s->nwords * 64)
        compact(s);
}

/* An access that missed the front: the tables' path, kept out of line so
 * that front hits, the common case, run without its register saves. */
static __attribute__((noinline)) uint64_t access_below_front(rd_stack *s, uint64_t block)
{
    uint64_t freed, evicted;
    rd_slot *sl = slot_find(s->slots, s->mask, s->shift, block);
    uint64_t d = leave_marked(s, sl, block, &freed);
    /* A front with room means no block was ever marked, so none was freed. */
    if (front_push(s, block, &evicted))
        enter_marked(s, evicted, freed);
    return d;
}

uint64_t rd_stack_access(rd_stack *s, uint64_t block)
{
    uint64_t *f = s->front;
    for (unsigned p = 0; p < s->nfront; p++) {
        if (f[p] == block) {
            if (p)
                front_raise(f, p);
            return p;
        }
    }
    return access_below_front(s, block);
}

uint64_t rd_stack_blocks(const rd_stack *s)
{
    return s->nblocks;
}

void rd_stack_entries(const rd_stack *s, rd_stack_entry *out)
{
    size_t n = 0;
    for (size_t i = 0; i <= s->mask; i++) /* the marked blocks: their timestamps order them */
        if (s->slots[i].ts != TS_EMPTY && s->slots[i].ts != TS_FRONT)
            out[n++] = (rd_stack_entry){s->slots[i].block, s->slots[i].ts};
    for (unsigned p = 0; p < s->nfront; p++) /* newer than every marked block, front[0] newest */
        out[n++] = (rd_stack_entry){s->front[p], s->now + FRONT_K - p};
}

/* Release the stack and everything it holds (s may be NULL). */
void rd_stack_free(rd_stack *s)
{
    if (!s)
        return;
    const rd_allocator *a = s->a;
    a->release(a->ctx, s->slots);
    a->release(a->ctx, s->bits);
    a->release(a->ctx, s->fen);
    a->release(a->ctx, s);
}

/* rd.h — exact LRU stack (reuse) distances and log-linear distance histograms.
 *
 * Freestanding C: this header and the src/rd .c files include only <stdint.h> and
 * <stddef.h> and call no libc function, because they are compiled twice:
 * into the Valgrind tool (where only VG_(...) functions exist) and natively
 * for the host tools, unit tests and benchmarks.  Memory comes from an
 * rd_allocator supplied by the caller.
 *
 * Reuse distance of an access to block b = the number of DISTINCT other
 * blocks accessed since the previous access to b (0 when b was the most
 * recently accessed block).  A first access has no distance: it is "cold".
 * A fully-associative LRU cache of C blocks hits exactly the accesses with
 * distance < C.
 */
#ifndef AUGUR_RD_H
#define AUGUR_RD_H

#include <stddef.h>
#include <stdint.h>

/* Memory provider.  alloc() returns uninitialised memory and never returns
 * NULL (the provider aborts on exhaustion, as VG_(malloc) does). */
typedef struct rd_allocator {
    void *(*alloc)(void *ctx, size_t bytes);
    void (*release)(void *ctx, void *p);
    void *ctx;
} rd_allocator;

/* Block sizes, in bytes: powers of two from one 64-bit word to the largest
 * page of x86-64 and Arm (1 GiB).  The collector, `augur collect
 * --block-sizes`, the profile reader and machine descriptions' page sizes
 * all keep to these. */
#define RD_MIN_BLOCK_SIZE 8u
#define RD_MAX_BLOCK_SIZE (1u << 30)

/* ---- LRU stack of blocks ------------------------------------------------ */

#define RD_COLD UINT64_MAX /* "distance" of a first access */

typedef struct rd_stack rd_stack;

/* A new, empty stack.  The allocator must outlive the stack. */
rd_stack *rd_stack_new(const rd_allocator *a);

/* Record an access to `block` (any 64-bit block number) and return its
 * reuse distance, or RD_COLD on the first access to it.  O(log N) amortised
 * for N distinct blocks. */
uint64_t rd_stack_access(rd_stack *s, uint64_t block);

/* A block number no stack holds: what rd_stack_front() shows where the
 * stack has fewer blocks (the collector's blocks, addresses shifted right
 * by 3 or more, never reach it). */
#define RD_NO_BLOCK UINT64_MAX

/* The top of s, the RD_FRONT_SEARCH most recently used distinct blocks at
 * least, most recent first (RD_NO_BLOCK where s has fewer blocks): the
 * front that rd_stack_access searches before its tables.  A caller may
 * resolve an access to one of them itself, as rd_stack_access would: the
 * block at position p has distance p and moves to the top, the blocks
 * above it one place down (rd_touch_blocks, the collector's take_near).
 * Nothing else may be written there.  The stack begins with it, so that
 * finding it costs no call; it stays valid until rd_stack_free. */
#define RD_FRONT_SEARCH 4u
static inline uint64_t *rd_stack_front(rd_stack *s)
{
    return (uint64_t *)(void *)s;
}

/* rd_stack_access(s, block), its first RD_FRONT_SEARCH front positions
 * searched here, inline: most accesses of regular loops end there, without
 * a call. */
static inline uint64_t rd_stack_access_front(rd_stack *s, uint64_t block)
{
    uint64_t *f = rd_stack_front(s);
    for (unsigned p = 0; p < RD_FRONT_SEARCH; p++) {
        if (f[p] == block) {
            for (unsigned q = p; q > 0; q--)
                f[q] = f[q - 1];
            f[0] = block;
            return p;
        }
    }
    return rd_stack_access(s, block);
}

/* Number of distinct blocks seen so far. */
uint64_t rd_stack_blocks(const rd_stack *s);

void rd_stack_free(rd_stack *s);

/* A block of a stack and its recency: a larger recency is more recent. */
typedef struct rd_stack_entry {
    uint64_t block;
    uint64_t recency;
} rd_stack_entry;

/* Write the rd_stack_blocks(s) blocks of s to out, in no order, with their
 * recencies.  Accessing them in increasing recency in a new stack rebuilds
 * s: the same blocks in the same LRU order, so the same distances from then
 * on (how a forked process's stacks move between processes). */
void rd_stack_entries(const rd_stack *s, rd_stack_entry *out);

/* ---- Histogram bins ------------------------------------------------------
 * Distances 0..15 have a bin each (exact).  Above, every power of two
 * [2^p, 2^(p+1)) with p >= 4 is split into RD_SUBBINS equal sub-bins:
 *   bin(d) = 16 + (p-4)*8 + ((d >> (p-3)) & 7)          for d >= 16.
 * So a bin boundary falls on every capacity with at most four significant
 * bits (all powers of two, 3*2^k, 5*2^k, 7*2^k, ...). */

#define RD_EXACT_BINS 16u
#define RD_SUBBINS 8u
#define RD_MAX_BINS (RD_EXACT_BINS + 60u * RD_SUBBINS) /* covers d < 2^64 */

static inline unsigned rd_bin_index(uint64_t distance)
{
    if (distance < RD_EXACT_BINS)
        return (unsigned)distance;
    unsigned p = 63u - (unsigned)__builtin_clzll(distance);
    return RD_EXACT_BINS + (p - 4u) * RD_SUBBINS + (unsigned)((distance >> (p - 3u)) & 7u);
}
uint64_t rd_bin_low(unsigned bin);  /* smallest distance in the bin */
uint64_t rd_bin_high(unsigned bin); /* one past the largest distance */

/* One bin: how many accesses fell in it and the sum of their distances
 * (so count/sum is the bin's mean distance; exact while sum < 2^64). */
typedef struct rd_bin {
    uint64_t count;
    uint64_t sum;
} rd_bin;

/* A growable dense histogram, as the collector keeps it per instruction and
 * block size.  Zero-initialise (all fields 0 / NULL) before first use. */
typedef struct rd_hist {
    uint64_t cold;  /* first-touch accesses */
    uint32_t nbins; /* bins[0..nbins) are allocated; higher bins are empty */
    rd_bin *bins;
} rd_hist;

/* Add `n` accesses of one distance (RD_COLD counts as cold). */
void rd_hist_add(rd_hist *h, uint64_t distance, uint64_t n, const rd_allocator *a);

/* rd_hist_add(h, distance, 1, a), inline: the collector's hot path. */
static inline void rd_hist_add_one(rd_hist *h, uint64_t distance, const rd_allocator *a)
{
    if (distance == RD_COLD) {
        h->cold++;
        return;
    }
    unsigned bin = rd_bin_index(distance);
    if (bin >= h->nbins) {
        rd_hist_add(h, distance, 1, a); /* grows the bins */
        return;
    }
    h->bins[bin].count++;
    h->bins[bin].sum += distance;
}

void rd_hist_clear(rd_hist *h); /* counts to zero, keeps the memory */

/* Add every count of src to dst, bin by bin (counts and sums add): the
 * histogram of both stretches of accesses. */
void rd_hist_merge(rd_hist *dst, const rd_hist *src, const rd_allocator *a);
void rd_hist_free(rd_hist *h, const rd_allocator *a);

/* ---- Spatially hashed sampling (SHARDS) ----------------------------------
 * Waldspurger et al., FAST'15: a block is tracked iff hash(block) mod P < T,
 * so a sampled run keeps the LRU stack of about RATE = T/P of the blocks.
 * A distance d measured in that stack estimates d / RATE in the full one,
 * and each sampled touch stands for 1 / RATE touches.  P is 2^24, so RATE
 * takes steps of 2^-24 (T from 1 to P; T == P samples every block).  See
 * docs/algorithms-rd.md, "Sampling". */

#define RD_SAMPLE_MODULUS (1u << 24)

/* Whether `block` is one of the blocks a run sampling at T / RD_SAMPLE_MODULUS
 * tracks.  The hash is MurmurHash3's 64-bit finaliser, which spreads
 * consecutive block numbers (sweeps) as evenly as random ones. */
static inline int rd_sampled(uint64_t block, uint32_t threshold)
{
    uint64_t h = block;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return (uint32_t)(h & (RD_SAMPLE_MODULUS - 1u)) < threshold;
}

/* round(x * RD_SAMPLE_MODULUS / threshold), 1 <= threshold <= the modulus:
 * a sampled distance or count scaled to the whole run.  Exact (no
 * intermediate overflow) while the result is below 2^64. */
static inline uint64_t rd_sample_scale(uint64_t x, uint32_t threshold)
{
    return x / threshold * RD_SAMPLE_MODULUS + ((x % threshold) * RD_SAMPLE_MODULUS + threshold / 2) / threshold;
}

/* One access at one block size: blocks first..last enter s, and h (unless
 * NULL: the access is not counted) takes each one's distance.  Sampling
 * (threshold not 0), only the sampled blocks, their distances scaled to the
 * whole run.  The collector's touch() and collect's consumer both run it;
 * called with a constant 0, the exact path compiles without the test. */
static inline void rd_touch_blocks(rd_stack *s, uint64_t first, uint64_t last, uint32_t threshold, rd_hist *h,
                                   const rd_allocator *a)
{
    for (uint64_t block = first; block <= last; block++) {
        if (threshold && !rd_sampled(block, threshold))
            continue;
        uint64_t d = rd_stack_access_front(s, block);
        if (h)
            rd_hist_add_one(h, threshold && d != RD_COLD ? rd_sample_scale(d, threshold) : d, a);
    }
}

/* Bin `bin` of a sampled run's histogram, whose `count` sampled touches have
 * (already scaled) distances summing to `sum`, scaled to the whole run:
 * count and sum times RD_SAMPLE_MODULUS / threshold, rounded, and the sum
 * then clamped to what `count` distances of the bin can add up to, which the
 * two roundings apart could leave (an exact bin's sum is count * bin). */
rd_bin rd_bin_sample_scale(unsigned bin, rd_bin b, uint32_t threshold);

/* ---- Misses from a histogram ----------------------------------------------
 * A sparse bin as it is stored in profiles and in the database. */
typedef struct rd_binrec {
    uint32_t bin;
    uint64_t count;
    uint64_t sum;
} rd_binrec;

/* Misses of a fully-associative LRU cache of `capacity` blocks over the
 * accesses the histogram describes: cold + accesses with distance >=
 * capacity.  Exact when `capacity` is a bin boundary; otherwise the bin that
 * holds `capacity` contributes the fraction of its accesses estimated by
 * assuming they are spread uniformly over its range.  Bins may come in any
 * order. */
double rd_misses(uint64_t cold, const rd_binrec *bins, size_t nbins, uint64_t capacity);

#endif

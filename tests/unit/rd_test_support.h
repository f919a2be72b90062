/* rd_test_support.h — what the rd unit tests share: an allocator that
 * counts (so every test can check that nothing leaks) and fills memory with
 * garbage (so nothing relies on zeros), a deterministic PRNG, and the
 * move to the front of the reference LRU lists.
 * Included by one test program each; everything here is static. */
#ifndef AUGUR_RD_TEST_SUPPORT_H
#define AUGUR_RD_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rd/rd.h"

/* ---- reference models ----------------------------------------------------- */

/* Move v[1..n] down one place, to v[0..n): a move to the front in the
 * tests' LRU reference lists.  A loop, not memmove: AddressSanitizer's
 * memmove (gcc 12) copies byte by byte, 25 times slower than this loop,
 * and was most of the sanitized build's time in these tests. */
static inline void shift_down(uint64_t *v, size_t n)
{
    for (size_t k = 0; k < n; k++)
        v[k] = v[k + 1];
}

/* ---- counting allocator -------------------------------------------------- */

typedef struct alloc_count {
    long allocs, releases;
} alloc_count;

/* rd_allocator.alloc: malloc, counted, filled with garbage; never NULL. */
static void *count_alloc(void *ctx, size_t bytes)
{
    ((alloc_count *)ctx)->allocs++;
    void *p = malloc(bytes);
    assert_non_null(p);
    memset(p, 0xa5, bytes); /* "uninitialised": nothing may rely on zeros */
    return p;
}

/* rd_allocator.release: free, counted; p must not be NULL. */
static void count_release(void *ctx, void *p)
{
    assert_non_null(p);
    ((alloc_count *)ctx)->releases++;
    free(p);
}

static alloc_count counts;
static const rd_allocator alloc = {count_alloc, count_release, &counts};

/* Test setup: start every test with zero allocations counted. */
static int reset_counts(void **state)
{
    (void)state;
    counts.allocs = counts.releases = 0;
    return 0;
}

/* Every test ends here: everything allocated was released. */
static int check_no_leaks(void **state)
{
    (void)state;
    assert_int_equal(counts.allocs, counts.releases);
    return 0;
}

/* ---- deterministic PRNG (splitmix64) ------------------------------------- */

static uint64_t rng_state;

/* Next 64-bit value of a splitmix64 sequence seeded through rng_state. */
static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A value in [0, n), n > 0 (modulo bias is irrelevant here). */
static uint64_t rng_below(uint64_t n)
{
    return rng_next() % n;
}

/* Random sparse histogram bins into bins[0..max): ascending bins below
 * 200, gaps of 1 to 12, 1 to 1000 touches each, every touch at the bin's
 * lowest distance; returns how many.  (inline: not every test uses it.) */
static inline size_t rng_bins(rd_binrec *bins, size_t max)
{
    size_t n = 0;
    for (unsigned b = (unsigned)rng_below(4); b < 200 && n < max; b += 1 + (unsigned)rng_below(12)) {
        uint64_t c = 1 + rng_below(1000);
        bins[n++] = (rd_binrec){b, c, c * rd_bin_low(b)};
    }
    return n;
}

#endif

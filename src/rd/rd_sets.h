/* rd_sets.h — set-local LRU stack distances: for a cache of S sets of
 * 64-byte lines, the distance of an access to line b is the number of
 * distinct lines of b's set (b mod S) touched since b's last touch.  An LRU
 * cache of S sets x W ways (W <= RD_SET_WAYS) misses exactly the touches at
 * set-local distance >= W and the first touches, whatever the addresses:
 * what fully-associative distances cannot show where arrays lie alike in the
 * sets (docs/algorithms-rd.md, "Set-local distances").
 *
 * Freestanding, as rd.h: compiled into the collector and the host.  Each
 * set keeps its RD_SET_WAYS most recent lines, most recent first; a line
 * not among them is "far" (or touched for the first time): the two are not
 * told apart here, the fully-associative histogram at 64 bytes has the
 * first touches.
 */
#ifndef AUGUR_RD_SETS_H
#define AUGUR_RD_SETS_H

#include "rd/rd.h"

#define RD_SET_LINE_SHIFT 6u /* 64-byte lines */
#define RD_SET_WAYS 32u      /* distances 0..31 counted; beyond, "far" */
#define RD_MAX_SET_COUNTS 4u
#define RD_MAX_SETS (1u << 16)
#define RD_SET_FAR RD_COLD   /* rd_sets_access's "far or first" */

/* The recency lists of one thread at one set count. */
typedef struct rd_sets {
    uint64_t mask;   /* sets - 1 */
    uint64_t *lines; /* sets x RD_SET_WAYS, most recent first; RD_NO_BLOCK: empty */
} rd_sets;

/* New, empty lists for `sets` sets (a power of two up to RD_MAX_SETS). */
rd_sets *rd_sets_new(uint32_t sets, const rd_allocator *a);
void rd_sets_free(rd_sets *s, const rd_allocator *a);

/* Touch `line` (an address >> RD_SET_LINE_SHIFT): its set-local distance,
 * or RD_SET_FAR when it is not among its set's RD_SET_WAYS most recent
 * lines; it becomes its set's most recent.  One pass that shifts as it
 * searches, stopping at the line or at the first empty place. */
static inline uint64_t rd_sets_access(rd_sets *s, uint64_t line)
{
    uint64_t *w = s->lines + (line & s->mask) * RD_SET_WAYS;
    uint64_t prev = w[0];
    if (prev == line)
        return 0;
    w[0] = line;
    for (unsigned p = 1; p < RD_SET_WAYS; p++) {
        uint64_t cur = w[p];
        w[p] = prev;
        if (cur == line)
            return p;
        if (cur == RD_NO_BLOCK)
            return RD_SET_FAR;
        prev = cur;
    }
    return RD_SET_FAR;
}

/* One access at n nested set counts, s[0..n) ascending (each divides the
 * next, as rd_sets_parse's powers of two do): lines first..last touched,
 * their distances into h[0..n) (NULL: not counted).  A line at distance 0
 * at a set count is at distance 0 at every larger one too (its set there
 * holds a subset of the lines of its set here, none touched since it was),
 * where its lists then need no search and no change: the common case of a
 * few interleaved streams skips the large lists. */
static inline void rd_sets_touch_nested(rd_sets *const *s, unsigned n, uint64_t first, uint64_t last, rd_hist *h,
                                        const rd_allocator *a)
{
    for (uint64_t line = first; line <= last; line++) {
        uint64_t d = RD_SET_FAR;
        for (unsigned j = 0; j < n; j++) {
            if (d != 0)
                d = rd_sets_access(s[j], line);
            if (h)
                rd_hist_add_one(&h[j], d, a);
        }
    }
}

/* One access at one set count: lines first..last touched, their distances
 * into h (NULL: the access is not counted), far ones as h's cold count
 * (rd_sets_touch_nested of that one set count). */
static inline void rd_sets_touch(rd_sets *s, uint64_t first, uint64_t last, rd_hist *h, const rd_allocator *a)
{
    rd_sets_touch_nested(&s, 1, first, last, h, a);
}

/* The lines s holds, each set's least recent first, into out (room for
 * sets x RD_SET_WAYS); their number.  Touching them in that order in new
 * lists rebuilds s (how a forked process's lists move between processes). */
uint64_t rd_sets_entries(const rd_sets *s, uint64_t *out);

/* The sets of s. */
static inline uint64_t rd_sets_count(const rd_sets *s)
{
    return s->mask + 1;
}

/* Misses of an LRU cache of `ways` ways (1 to RD_SET_WAYS) at the set count
 * of a set-local histogram: its far touches and those at distances >= ways
 * (rd_misses, exact where ways is a bin boundary: every way count up to 16,
 * the even ones up to 32). */
double rd_sets_misses(uint64_t far, const rd_binrec *bins, size_t nbins, uint32_t ways);

/* Whether text is a list of set counts "64,1024,2048": ascending powers of
 * two from 1 to RD_MAX_SETS, at most RD_MAX_SET_COUNTS of them, into
 * out[0..*n).  0, or -1 when malformed. */
int rd_sets_parse(const char *text, uint32_t *out, unsigned *n);

#endif

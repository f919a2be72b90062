/* ms_counts.h — what memspy counts of one simulated reference (ms_result,
 * memsim.h) for its (instruction, data object) pair and its thread, and
 * the keys of its evictions and sampling groups: the rules both memspy's
 * Valgrind tool (src/memspy/memspy_pairs.c) and augur's simulator
 * consumer (src/rdpipe/spy_consumer.c, `augur memspy --analysis pipe`)
 * count by, so that both give the same file.  Freestanding (stdint). */
#ifndef AUGUR_MS_COUNTS_H
#define AUGUR_MS_COUNTS_H

#include <stdint.h>

#include "cachesim/memsim.h"

/* The counters of one (instruction, object) pair: all uint64_t, so that
 * ms_counts_add can add them as an array. */
typedef struct ms_counts {
    uint64_t refs, reads, writes;
    uint64_t miss[CS_MAX_LEVELS];
    /* Time sampling's unknown references at each level: misses (also in
     * miss) and hits (references that hit here or above) whose outcome the
     * sample cannot vouch for (ms_result.unknown_from). */
    uint64_t unknown[CS_MAX_LEVELS], unknown_hits[CS_MAX_LEVELS];
    uint64_t cause[CS_MAX_LEVELS][MS_NCAUSES];
} ms_counts;

/* A thread's references and misses per level. */
typedef struct ms_totals {
    uint64_t refs;
    uint64_t miss[CS_MAX_LEVELS];
} ms_totals;

/* One reference, read or written, of the pair p by the thread t: all that
 * is counted of a first-level hit whose outcome is certain. */
static inline void ms_count_ref(ms_counts *p, ms_totals *t, int is_write)
{
    p->refs++;
    t->refs++;
    if (is_write)
        p->writes++;
    else
        p->reads++;
}

/* The part of levels [from, to) of the rest of a reference whose outcome
 * over them is r (r->hit_level == to: it missed them all and goes on), in
 * a hierarchy of nlevels: at each level that missed, the miss, its cause
 * and whether it is unknown; and the unknown hits, where the reference
 * stopped (their eviction and group are the caller's).  Counting each of
 * a reference's runs of levels (spy_stages.c) adds up to counting all. */
static inline void ms_count_levels(ms_counts *p, ms_totals *t, unsigned nlevels, const ms_result *r,
                                   unsigned from, unsigned to)
{
    if (r->hit_level < to || to == nlevels)
        for (unsigned k = r->hit_level > r->unknown_from ? r->hit_level : r->unknown_from; k < nlevels; k++)
            p->unknown_hits[k]++;
    for (unsigned k = from; k < r->hit_level && k < to; k++) {
        p->miss[k]++;
        p->cause[k][r->cause[k]]++;
        p->unknown[k] += k >= r->unknown_from;
        t->miss[k]++;
    }
}

/* The rest of a reference whose outcome is r, in a hierarchy of nlevels:
 * unknown hits, and at each level that missed the miss, its cause and
 * whether it is unknown (its eviction and group are the caller's). */
static inline void ms_count_result(ms_counts *p, ms_totals *t, unsigned nlevels, const ms_result *r)
{
    ms_count_levels(p, t, nlevels, r, 0, nlevels);
}

/* The key of "a miss at level by object evictor replaced a line of object
 * victim" (ids below 2^30): the raw file's `evict` lines in key order. */
static inline uint64_t ms_evict_key(unsigned level, uint32_t victim, uint32_t evictor)
{
    return (uint64_t)level << 60 | (uint64_t)victim << 30 | evictor;
}

/* Set sampling's group (of MS_SET_GROUPS) of the line at addr. */
static inline unsigned ms_group_of(uint64_t addr, unsigned group_shift)
{
    return (unsigned)((addr >> group_shift) % MS_SET_GROUPS);
}

/* to += from, every counter. */
static inline void ms_counts_add(ms_counts *to, const ms_counts *from)
{
    uint64_t *a = (uint64_t *)to;
    const uint64_t *b = (const uint64_t *)from;
    for (unsigned i = 0; i < sizeof *to / sizeof *a; i++)
        a[i] += b[i];
}

static inline void ms_totals_add(ms_totals *to, const ms_totals *from)
{
    to->refs += from->refs;
    for (unsigned k = 0; k < CS_MAX_LEVELS; k++)
        to->miss[k] += from->miss[k];
}

#endif

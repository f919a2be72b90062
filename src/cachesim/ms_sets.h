/* ms_sets.h — memsim's set-associative true-LRU array: per set the ways'
 * block numbers, most recent first, then beside them the 32-bit tags they
 * were filled with, in one contiguous stretch of memory, so that an access
 * reads one place and a hit on the most recent way is one compare (the
 * layout of Cachegrind's cg_sim.c, with memsim's tags).  Same model as
 * cachesim.h's cs_level (which stays the plain reference for cs_hierarchy
 * and the tests); the access is inline because it is memsim's hottest code.
 *
 * Freestanding (stdint/stddef and rd/rd.h only). */
#ifndef AUGUR_MS_SETS_H
#define AUGUR_MS_SETS_H

#include <stddef.h>
#include <stdint.h>

#include "rd/rd.h"

#define MS_SETS_EMPTY UINT64_MAX /* an empty way: never a block (addr >> 3 or more) */

typedef struct ms_sets {
    const rd_allocator *a;
    unsigned char *mem; /* sets * stride bytes */
    size_t stride;      /* bytes per set: ways blocks, then ways tags */
    uint32_t ways;
    uint64_t set_mask;  /* sets - 1 */
} ms_sets;

/* What one access did, as cachesim.h's cs_touch. */
typedef struct ms_touch {
    uint32_t pos;        /* MRU position before the access; ways on a miss */
    int evicted;         /* a miss that dropped a valid block */
    uint64_t victim;     /* that block */
    uint32_t victim_tag; /* and its tag */
} ms_touch;

/* Set up s as `sets` (a power of two) empty sets of `ways` ways. */
void ms_sets_init(ms_sets *s, uint64_t sets, uint32_t ways, const rd_allocator *a);

/* Release s's memory. */
void ms_sets_free(ms_sets *s);

/* Remove `block` if present (the ways behind it move up one, an empty
 * way is left at the LRU end); its MRU position, or ways if absent. */
uint32_t ms_sets_remove(ms_sets *s, uint64_t block);

/* Call fn(ctx, block) for every valid block, in no particular order. */
void ms_sets_for_each(const ms_sets *s, void (*fn)(void *ctx, uint64_t block), void *ctx);

/* The blocks of set number `set` (0..set_mask). */
static inline uint64_t *ms_sets_at(const ms_sets *s, uint64_t set)
{
    return (uint64_t *)(void *)(s->mem + set * s->stride);
}

/* The blocks of `block`'s set. */
static inline uint64_t *ms_sets_blocks(const ms_sets *s, uint64_t block)
{
    return ms_sets_at(s, block & s->set_mask);
}

/* The way of set v (ms_sets_blocks) holding `block`, or ways if none
 * does. */
static inline uint32_t ms_sets_find(const ms_sets *s, const uint64_t *v, uint64_t block)
{
    uint32_t i = 0, w = s->ways;
    while (i < w && v[i] != block)
        i++;
    return i;
}

/* Make way i of set v hold (block, tag) as its most recent way, moving
 * ways 0..i-1 one place toward the LRU end (way i's old content is gone). */
static inline void ms_sets_promote(const ms_sets *s, uint64_t *v, uint32_t i, uint64_t block,
                                   uint32_t tag)
{
    uint32_t *tv = (uint32_t *)(void *)(v + s->ways);
    for (; i > 0; i--) {
        v[i] = v[i - 1];
        tv[i] = tv[i - 1];
    }
    v[0] = block;
    tv[0] = tag;
}

/* Access `block`: it becomes its set's most recent way; a miss drops the
 * LRU way and fills with `tag` (a hit keeps the tag it had). */
static inline ms_touch ms_sets_touch(ms_sets *s, uint64_t block, uint32_t tag)
{
    uint64_t *v = ms_sets_blocks(s, block);
    uint32_t *tv = (uint32_t *)(void *)(v + s->ways);
    ms_touch t = {0, 0, 0, 0};
    if (v[0] == block)
        return t;
    uint32_t i = ms_sets_find(s, v, block), w = s->ways;
    t.pos = i;
    if (i == w) { /* miss: the LRU way goes */
        i = w - 1;
        t.victim = v[i];
        t.victim_tag = tv[i];
        t.evicted = t.victim != MS_SETS_EMPTY;
    } else {
        tag = tv[i]; /* a hit keeps its fill tag */
    }
    ms_sets_promote(s, v, i, block, tag);
    return t;
}

/* If `block` is in its set, make it the most recent way (keeping its tag)
 * and return 1; else change nothing and return 0: the hit half of
 * ms_sets_touch, for memsim's fast path. */
static inline int ms_sets_hit(ms_sets *s, uint64_t block)
{
    uint64_t *v = ms_sets_blocks(s, block);
    if (v[0] == block)
        return 1;
    uint32_t i = ms_sets_find(s, v, block);
    if (i == s->ways)
        return 0;
    ms_sets_promote(s, v, i, block, ((uint32_t *)(void *)(v + s->ways))[i]);
    return 1;
}

#endif

/* ms_cache.h — one cache instance of memsim (a private level of one thread,
 * or a shared level): the set-associative LRU sets of ms_sets.h, its
 * fully-associative shadow of as many lines as the simulated sets hold, and
 * per set how much of its content the current time sample has refreshed.
 *
 * Freestanding (stdint/stddef and rd/rd.h only). */
#ifndef AUGUR_MS_CACHE_H
#define AUGUR_MS_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "cachesim/cachesim.h"
#include "cachesim/ms_sets.h"
#include "cachesim/ms_shadow.h"
#include "cachesim/ms_table.h"
#include "rd/rd.h"

typedef struct ms_cache {
    const rd_allocator *a;
    ms_shadow *shadow; /* FA LRU of size/line/set_sample lines; NULL: instance
                          not created (a thread's shared level) */
    ms_sets sets;
    uint32_t ways;
    uint64_t set_mask;
    /* Time sampling: fresh[s] is how many of set s's most recent ways were
     * touched in sample epoch[s]; the set's misses are known to be real
     * once fresh[s] reaches ways. */
    uint32_t *fresh, *epoch;
    /* The block of the last access and its sample: it is the most recent
     * line of its set and of the shadow, so accessing it again changes
     * nothing (UINT64_MAX: none). */
    uint64_t last;
    uint32_t last_epoch;
    ms_table seen; /* memsim's seen-set of the instance (ms_seen_chunk) */
} ms_cache;

/* What one access did at one instance. */
typedef struct ms_outcome {
    int hit;        /* the set-associative cache held the block */
    int shadow_fed; /* the block feeds the shadow (shadow sampling) */
    int shadow_hit; /* the shadow held it (when fed) */
    int unknown;    /* a first touch, hit or miss, in a set not yet
                       refreshed this sample */
    int evicted;    /* a miss that dropped a valid block: victim */
    uint64_t victim;
    uint32_t victim_tag; /* the tag the victim was filled with */
} ms_outcome;

/* Create c's cache of (size, line, ways), a geometry cs_level_check
 * accepted, with a tag per line and a shadow of size / line / shrink lines
 * (shrink: set sampling times shadow sampling, a power of two at most
 * size / line; the shadow is fed the blocks ms_shadow_sampled keeps at it).
 * (c->shadow is NULL until then: the instance does not exist.) */
void ms_cache_init(ms_cache *c, uint64_t size, uint32_t line, uint32_t ways, uint64_t shrink,
                   const rd_allocator *a);

/* Access `block` in sample `epoch` (0: time sampling never started, no
 * bookkeeping) in the cache, and in its shadow when `fed` (the block is
 * one shadow sampling keeps); a miss fills the line with `tag`. */
ms_outcome ms_cache_access(ms_cache *c, uint64_t block, uint32_t tag, uint32_t epoch, int fed);

/* 1 if accessing `block` in sample `epoch` repeats c's last access: it is
 * the most recent line of its set and of the shadow, so nothing changes. */
static inline int ms_cache_repeats(const ms_cache *c, uint64_t block, uint32_t epoch)
{
    return block == c->last && epoch == c->last_epoch;
}

/* The hit path of ms_cache_access, inline for memsim's fast path: if the
 * access of `block` in sample `epoch` is a hit whose outcome is certain
 * (a repeat of the last block, or any hit before time sampling starts),
 * do it (set and, when `fed`, shadow) and return 1; otherwise change
 * nothing and return 0. */
static inline int ms_cache_hit(ms_cache *c, uint64_t block, uint32_t epoch, int fed)
{
    if (ms_cache_repeats(c, block, epoch))
        return 1;
    if (epoch != 0 || !ms_sets_hit(&c->sets, block))
        return 0;
    c->last = block;
    c->last_epoch = 0;
    if (fed)
        ms_shadow_access(c->shadow, block);
    return 1;
}

/* Invalidate `block`: if the cache holds it, remove it there and from the
 * shadow and return 1; else change nothing and return 0. */
int ms_cache_remove(ms_cache *c, uint64_t block, uint32_t epoch);

/* Release c's memory; an instance never created does nothing. */
void ms_cache_free(ms_cache *c);

#endif

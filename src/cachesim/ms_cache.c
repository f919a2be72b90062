/* ms_cache.c — one memsim cache instance (ms_cache.h): ms_sets plus shadow
 * plus the time-sampling freshness of each set.
 *
 * Freshness: true LRU keeps the lines touched since a sample began ahead of
 * all older ones, so they form an MRU prefix of the set; its length grows by
 * one on a miss or on a hit beyond it.  Once it reaches `ways`, nothing of
 * the set's content predates the sample and its outcomes are certain;
 * before, each access that grows the prefix (the first touch of a line)
 * is unknown: its hit may be a line the skipped references threw out, its
 * miss a line they brought in.  A set
 * whose epoch differs from the current sample has a prefix of 0; epochs
 * start at 0 and samples at 1, so ms_sample_start costs O(1).
 * Freestanding. */
#include <stddef.h>
#include <stdint.h>

#include "cachesim/cachesim.h"
#include "cachesim/ms_cache.h"
#include "cachesim/ms_sets.h"
#include "cachesim/ms_shadow.h"
#include "cachesim/ms_table.h"
#include "rd/rd.h"

void ms_cache_init(ms_cache *c, uint64_t size, uint32_t line, uint32_t ways, uint64_t shrink,
                   const rd_allocator *a)
{
    c->a = a;
    uint64_t nsets = size / ((uint64_t)line * ways);
    ms_sets_init(&c->sets, nsets, ways, a);
    c->shadow = ms_shadow_new(size / line / shrink, (unsigned)__builtin_ctzll(shrink), a);
    c->ways = ways;
    c->set_mask = nsets - 1;
    c->fresh = a->alloc(a->ctx, (size_t)nsets * sizeof *c->fresh);
    c->epoch = a->alloc(a->ctx, (size_t)nsets * sizeof *c->epoch);
    for (uint64_t s = 0; s < nsets; s++)
        c->epoch[s] = 0;
    c->last = UINT64_MAX;
    c->last_epoch = 0;
    ms_table_init(&c->seen, 2 * sizeof(uint64_t), a);
}

/* Set s's fresh count for sample epoch (reset when the sample changed). */
static uint32_t *fresh_of(ms_cache *c, uint64_t s, uint32_t epoch)
{
    if (c->epoch[s] != epoch) {
        c->epoch[s] = epoch;
        c->fresh[s] = 0;
    }
    return &c->fresh[s];
}

ms_outcome ms_cache_access(ms_cache *c, uint64_t block, uint32_t tag, uint32_t epoch, int fed)
{
    ms_outcome o;
    o.shadow_fed = fed;
    if (ms_cache_repeats(c, block, epoch)) {
        o.hit = o.shadow_hit = 1;
        o.unknown = o.evicted = 0;
        return o;
    }
    c->last = block;
    c->last_epoch = epoch;
    ms_touch t = ms_sets_touch(&c->sets, block, tag);
    o.hit = t.pos < c->ways;
    o.evicted = t.evicted;
    o.victim = t.victim;
    o.victim_tag = t.victim_tag;
    o.unknown = 0;
    if (epoch != 0) {
        uint32_t *f = fresh_of(c, block & c->set_mask, epoch);
        if (*f < c->ways && (!o.hit || t.pos >= *f)) {
            o.unknown = 1; /* a first touch in an unprimed set: hit or miss */
            (*f)++;
        }
    }
    o.shadow_hit = fed && ms_shadow_access(c->shadow, block);
    return o;
}

int ms_cache_remove(ms_cache *c, uint64_t block, uint32_t epoch)
{
    uint32_t pos = ms_sets_remove(&c->sets, block);
    if (block == c->last)
        c->last = UINT64_MAX;
    if (pos == c->ways)
        return 0; /* replaced before: the shadow keeps it, so the next miss is
                     still told capacity from conflict (the first event wins) */
    ms_shadow_remove(c->shadow, block);
    if (epoch != 0) {
        uint32_t *f = fresh_of(c, block & c->set_mask, epoch);
        if (pos < *f && *f < c->ways)
            (*f)--; /* a fresh line left the prefix */
    }
    return 1;
}

void ms_cache_free(ms_cache *c)
{
    if (!c->shadow)
        return;
    c->a->release(c->a->ctx, c->epoch);
    c->a->release(c->a->ctx, c->fresh);
    ms_sets_free(&c->sets);
    ms_table_free(&c->seen);
    ms_shadow_free(c->shadow);
    c->shadow = NULL;
}

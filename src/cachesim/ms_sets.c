/* ms_sets.c — memsim's set array (ms_sets.h): creation, removal on
 * invalidation, and the walk over valid blocks; the access is inline in
 * the header.  Freestanding. */
#include <stddef.h>
#include <stdint.h>

#include "cachesim/ms_sets.h"
#include "rd/rd.h"

void ms_sets_init(ms_sets *s, uint64_t sets, uint32_t ways, const rd_allocator *a)
{
    s->a = a;
    s->ways = ways;
    s->set_mask = sets - 1;
    s->stride = (size_t)ways * (sizeof(uint64_t) + sizeof(uint32_t));
    s->stride = (s->stride + 7) & ~(size_t)7; /* keep every set's blocks 8-byte aligned */
    s->mem = a->alloc(a->ctx, (size_t)sets * s->stride);
    for (uint64_t i = 0; i < sets; i++) {
        uint64_t *v = ms_sets_at(s, i);
        for (uint32_t w = 0; w < ways; w++)
            v[w] = MS_SETS_EMPTY;
    }
}

void ms_sets_free(ms_sets *s)
{
    s->a->release(s->a->ctx, s->mem);
    s->mem = NULL;
}

uint32_t ms_sets_remove(ms_sets *s, uint64_t block)
{
    uint64_t *v = ms_sets_blocks(s, block);
    uint32_t *tv = (uint32_t *)(void *)(v + s->ways);
    uint32_t w = s->ways, i = 0;
    while (i < w && v[i] != block)
        i++;
    if (i == w)
        return w;
    for (uint32_t j = i; j + 1 < w; j++) {
        v[j] = v[j + 1];
        tv[j] = tv[j + 1];
    }
    v[w - 1] = MS_SETS_EMPTY;
    return i;
}

void ms_sets_for_each(const ms_sets *s, void (*fn)(void *ctx, uint64_t block), void *ctx)
{
    for (uint64_t i = 0; i <= s->set_mask; i++) {
        const uint64_t *v = ms_sets_at(s, i);
        for (uint32_t w = 0; w < s->ways; w++)
            if (v[w] != MS_SETS_EMPTY)
                fn(ctx, v[w]);
    }
}

/* ms_table.c — block-keyed record table (ms_table.h): linear probing with a
 * Fibonacci multiplicative hash (consecutive blocks land far apart), load
 * factor at most 1/2, doubling when it would pass that.  Freestanding. */
#include <stddef.h>
#include <stdint.h>

#include "cachesim/ms_table.h"
#include "rd/rd.h"

#define EMPTY UINT64_MAX
#define INITIAL_CAP 1024u
#define HASH_MUL 0x9e3779b97f4a7c15ull

/* Home slot of block in a table of 2^(64 - shift) slots. */
static uint64_t home(unsigned shift, uint64_t block)
{
    return (block * HASH_MUL) >> shift;
}

/* An array of cap records of `words` words, every key EMPTY. */
static uint64_t *new_slots(const rd_allocator *a, uint64_t cap, uint32_t words)
{
    uint64_t *s = a->alloc(a->ctx, (size_t)(cap * words) * sizeof *s);
    for (uint64_t i = 0; i < cap; i++)
        s[i * words] = EMPTY;
    return s;
}

void ms_table_init(ms_table *t, size_t record_bytes, const rd_allocator *a)
{
    t->a = a;
    t->words = (uint32_t)(record_bytes / sizeof(uint64_t));
    t->cap = INITIAL_CAP;
    t->shift = 64u - 10u; /* log2(INITIAL_CAP) */
    t->used = 0;
    t->slots = new_slots(a, t->cap, t->words);
}

/* Index of block's slot, or of the empty slot where it would go. */
static uint64_t probe(const ms_table *t, uint64_t block)
{
    uint64_t mask = t->cap - 1, i = home(t->shift, block);
    for (;;) {
        uint64_t k = t->slots[i * t->words];
        if (k == block || k == EMPTY)
            return i;
        i = (i + 1) & mask;
    }
}

void *ms_table_find(const ms_table *t, uint64_t block)
{
    uint64_t *r = t->slots + probe(t, block) * t->words;
    return *r == block ? r : NULL;
}

/* Double the table, re-inserting every record. */
static void grow(ms_table *t)
{
    uint64_t *old = t->slots, old_cap = t->cap;
    uint32_t w = t->words;
    t->cap *= 2;
    t->shift--;
    t->slots = new_slots(t->a, t->cap, w);
    for (uint64_t i = 0; i < old_cap; i++) {
        const uint64_t *r = old + i * w;
        if (*r == EMPTY)
            continue;
        uint64_t *d = t->slots + probe(t, *r) * w;
        for (uint32_t j = 0; j < w; j++)
            d[j] = r[j];
    }
    t->a->release(t->a->ctx, old);
}

void *ms_table_get(ms_table *t, uint64_t block, int *created)
{
    uint64_t *r = t->slots + probe(t, block) * t->words;
    *created = *r != block;
    if (!*created)
        return r;
    if (2 * (t->used + 1) > t->cap) {
        grow(t);
        r = t->slots + probe(t, block) * t->words;
    }
    t->used++;
    r[0] = block;
    for (uint32_t j = 1; j < t->words; j++)
        r[j] = 0;
    return r;
}

void ms_table_free(ms_table *t)
{
    t->a->release(t->a->ctx, t->slots);
    t->slots = NULL;
}

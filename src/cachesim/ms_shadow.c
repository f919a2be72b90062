/* ms_shadow.c — fully-associative LRU shadow (ms_shadow.h).
 *
 * A pool of `cap` nodes on an intrusive doubly-linked list in recency order
 * (head = most recent), and an open-addressing index from block to node
 * (linear probing, at least twice as many slots as nodes, deletion by
 * backward shift so no tombstones pile up).  A hit unlinks its node and
 * relinks it at the head; a miss takes a free node, or the tail's.
 * Freestanding. */
#include <stddef.h>
#include <stdint.h>

#include "cachesim/ms_shadow.h"
#include "rd/rd.h"

#define NIL MS_SHADOW_NIL

typedef ms_shadow_node node;

ms_shadow *ms_shadow_new(uint64_t lines, unsigned skip, const rd_allocator *a)
{
    ms_shadow *s = a->alloc(a->ctx, sizeof *s);
    unsigned bits = 1;
    while (((uint64_t)1 << bits) < 2 * lines)
        bits++;
    s->a = a;
    s->cap = (uint32_t)lines;
    s->used = 0;
    s->head = s->tail = s->free = NIL;
    s->nodes = a->alloc(a->ctx, (size_t)lines * sizeof *s->nodes);
    s->hmask = ((uint64_t)1 << bits) - 1;
    s->shift = 64u - bits;
    s->skip = skip;
    s->slot = a->alloc(a->ctx, (size_t)(s->hmask + 1) * sizeof *s->slot);
    for (uint64_t i = 0; i <= s->hmask; i++)
        s->slot[i] = NIL;
    return s;
}

/* Empty slot i, moving later entries of its cluster back so that every
 * entry stays reachable from its home slot. */
static void slot_delete(ms_shadow *s, uint64_t i)
{
    uint64_t j = i;
    for (;;) {
        s->slot[i] = NIL;
        for (;;) {
            j = (j + 1) & s->hmask;
            uint32_t n = s->slot[j];
            if (n == NIL)
                return;
            uint64_t h = ms_shadow_home(s, s->nodes[n].block);
            if (((j - h) & s->hmask) >= ((j - i) & s->hmask)) {
                s->slot[i] = n; /* i lies on n's probe path: move it there */
                i = j;
                break;
            }
        }
    }
}

/* A node for a new line: a free one, a never-used one, or the LRU one
 * (dropped from the index). */
static uint32_t take_node(ms_shadow *s)
{
    uint32_t n;
    if (s->free != NIL) {
        n = s->free;
        s->free = s->nodes[n].next;
    } else if (s->used < s->cap) {
        n = s->used++;
    } else {
        n = s->tail;
        ms_shadow_unlink(s, n);
        slot_delete(s, ms_shadow_probe(s, s->nodes[n].block));
    }
    return n;
}

int ms_shadow_insert(ms_shadow *s, uint64_t block, uint64_t i)
{
    int full = s->free == NIL && s->used == s->cap;
    uint32_t n = take_node(s);
    if (full)
        i = ms_shadow_probe(s, block); /* dropping the tail may have moved slots */
    s->nodes[n].block = block;
    s->slot[i] = n;
    ms_shadow_push_head(s, n);
    return 0;
}

void ms_shadow_remove(ms_shadow *s, uint64_t block)
{
    uint64_t i = ms_shadow_probe(s, block);
    uint32_t n = s->slot[i];
    if (n == NIL)
        return;
    slot_delete(s, i);
    ms_shadow_unlink(s, n);
    s->nodes[n].next = s->free;
    s->free = n;
}

void ms_shadow_free(ms_shadow *s)
{
    if (!s)
        return;
    const rd_allocator *a = s->a;
    a->release(a->ctx, s->slot);
    a->release(a->ctx, s->nodes);
    a->release(a->ctx, s);
}

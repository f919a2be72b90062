/* ms_shadow.c — fully-associative LRU shadow (ms_shadow.h).
 *
 * The recency order is a queue of block numbers in access order (a ring
 * indexed by ever-growing positions), and an open-addressing index maps
 * each line held to the position of its latest access (linear probing, at
 * least twice as many slots as lines, deletion by backward shift so no
 * tombstones pile up).  A queue entry whose index position differs from its
 * own is stale: the block was accessed again later, or dropped.
 *   - a hit only updates its slot and appends: no list links to fix, so one
 *     random memory access instead of the four a linked list needs;
 *   - the least recent line is the first live entry from the queue's head
 *     (stale entries are skipped, each once);
 *   - when the ring is full, its live entries are packed to its front: at
 *     most `lines` of at least 2 * `lines`, so the packing costs O(1)
 *     amortized per access.
 * Freestanding. */
#include <stddef.h>
#include <stdint.h>

#include "cachesim/ms_shadow.h"
#include "rd/rd.h"

#define EMPTY UINT64_MAX /* no block number reaches it (addresses >> 3 at least) */
#define HASH_MUL 0x9e3779b97f4a7c15ull

/* An index slot: a line held and the queue position of its latest access. */
typedef struct slot {
    uint64_t block; /* EMPTY: a free slot */
    uint64_t pos;
} slot;

struct ms_shadow {
    const rd_allocator *a;
    uint64_t cap, live; /* lines it holds at most, and now */
    slot *slot;         /* hmask + 1 slots */
    uint64_t hmask;
    unsigned shift;   /* 64 - log2(slots) */
    uint64_t *queue;  /* qmask + 1 blocks; position p at queue[p & qmask] */
    uint64_t qmask;
    uint64_t head, tail; /* positions [head, tail) are in the queue */
};

/* The smallest power of two >= 2 * n, as its log2. */
static unsigned bits_for_twice(uint64_t n)
{
    unsigned bits = 1;
    while (((uint64_t)1 << bits) < 2 * n)
        bits++;
    return bits;
}

ms_shadow *ms_shadow_new(uint64_t lines, const rd_allocator *a)
{
    ms_shadow *s = a->alloc(a->ctx, sizeof *s);
    unsigned bits = bits_for_twice(lines);
    s->a = a;
    s->cap = lines;
    s->live = 0;
    s->hmask = ((uint64_t)1 << bits) - 1;
    s->shift = 64u - bits;
    s->slot = a->alloc(a->ctx, (size_t)(s->hmask + 1) * sizeof *s->slot);
    for (uint64_t i = 0; i <= s->hmask; i++)
        s->slot[i].block = EMPTY;
    s->qmask = s->hmask; /* as many queue entries as slots: >= 2 * lines */
    s->queue = a->alloc(a->ctx, (size_t)(s->qmask + 1) * sizeof *s->queue);
    s->head = s->tail = 0;
    return s;
}

/* Home slot of block. */
static uint64_t home(const ms_shadow *s, uint64_t block)
{
    return (block * HASH_MUL) >> s->shift;
}

/* The slot holding block, or the empty slot ending its probe. */
static uint64_t probe(const ms_shadow *s, uint64_t block)
{
    uint64_t i = home(s, block);
    while (s->slot[i].block != EMPTY && s->slot[i].block != block)
        i = (i + 1) & s->hmask;
    return i;
}

/* Empty slot i, moving later entries of its cluster back so that every
 * entry stays reachable from its home slot. */
static void slot_delete(ms_shadow *s, uint64_t i)
{
    uint64_t j = i;
    for (;;) {
        s->slot[i].block = EMPTY;
        for (;;) {
            j = (j + 1) & s->hmask;
            if (s->slot[j].block == EMPTY)
                return;
            uint64_t h = home(s, s->slot[j].block);
            if (((j - h) & s->hmask) >= ((j - i) & s->hmask)) {
                s->slot[i] = s->slot[j]; /* i lies on j's probe path: move it there */
                i = j;
                break;
            }
        }
    }
}

/* The slot of the line whose latest access is queue position p, or NULL
 * if that entry is stale. */
static slot *live_at(ms_shadow *s, uint64_t p)
{
    slot *x = &s->slot[probe(s, s->queue[p & s->qmask])];
    return x->block != EMPTY && x->pos == p ? x : NULL;
}

/* Drop the least recently used line (the shadow holds at least one). */
static void drop_lru(ms_shadow *s)
{
    for (;; s->head++) {
        slot *x = live_at(s, s->head);
        if (x) {
            slot_delete(s, (uint64_t)(x - s->slot));
            s->head++;
            s->live--;
            return;
        }
    }
}

/* Pack the live entries of a full queue to its front, in order. */
static void compact(ms_shadow *s)
{
    uint64_t j = s->head;
    for (uint64_t p = s->head; p != s->tail; p++) {
        slot *x = live_at(s, p);
        if (x) {
            s->queue[j & s->qmask] = x->block;
            x->pos = j++;
        }
    }
    s->tail = j;
}

int ms_shadow_access(ms_shadow *s, uint64_t block)
{
    uint64_t i = probe(s, block);
    int hit = s->slot[i].block == block;
    if (hit && s->slot[i].pos + 1 == s->tail)
        return 1; /* already the most recent */
    if (!hit && s->live == s->cap) {
        drop_lru(s);
        i = probe(s, block); /* the deletion may have moved slots */
    }
    if (s->tail - s->head == s->qmask + 1) {
        compact(s); /* moves positions, not slots */
    }
    if (!hit) {
        s->slot[i].block = block;
        s->live++;
    }
    s->slot[i].pos = s->tail;
    s->queue[s->tail++ & s->qmask] = block;
    return hit;
}

void ms_shadow_prefetch(const ms_shadow *s, uint64_t block)
{
    __builtin_prefetch(&s->slot[home(s, block)]);
}

void ms_shadow_remove(ms_shadow *s, uint64_t block)
{
    uint64_t i = probe(s, block);
    if (s->slot[i].block == EMPTY)
        return;
    slot_delete(s, i); /* its queue entry is stale from now on */
    s->live--;
}

void ms_shadow_free(ms_shadow *s)
{
    if (!s)
        return;
    const rd_allocator *a = s->a;
    a->release(a->ctx, s->queue);
    a->release(a->ctx, s->slot);
    a->release(a->ctx, s);
}

/* ms_shadow.h — a fully-associative true-LRU cache of a fixed number of
 * lines with O(1) expected work per access: memsim's shadow, which tells a
 * capacity miss (the shadow misses too) from a conflict miss (it hits).
 *
 * Freestanding (stdint/stddef and rd/rd.h only). */
#ifndef AUGUR_MS_SHADOW_H
#define AUGUR_MS_SHADOW_H

#include <stddef.h>
#include <stdint.h>

#include "rd/rd.h"

#define MS_SHADOW_MAX_LINES (1u << 31)

#define MS_SHADOW_NIL UINT32_MAX

/* Fibonacci hashing (2^64 over the golden ratio): the top bits of
 * block * MS_SHADOW_HASH spread evenly for consecutive and for strided
 * blocks alike.  Shadow sampling (memsim.h, ms_shadow_sampled) feeds the
 * blocks whose top bits of it are zero; the index takes the bits below. */
#define MS_SHADOW_HASH 0x9e3779b97f4a7c15ull

/* A node per line the shadow may hold, on a doubly-linked list in recency
 * order (head = most recent).  16 bytes: a node's slot is found again by
 * probing when it is dropped, which touches the same slots the deletion
 * must write anyway, so keeping it would only make every node bigger. */
typedef struct ms_shadow_node {
    uint64_t block;
    uint32_t prev, next; /* toward the head / the tail; MS_SHADOW_NIL at the ends */
} ms_shadow_node;

/* The index from block to node is open addressing (linear probing, at least
 * twice as many slots as nodes, deletion by backward shift).  Plain so that
 * the hit path below can be inline: it runs on every simulated reference. */
typedef struct ms_shadow {
    const rd_allocator *a;
    ms_shadow_node *nodes;
    uint32_t cap, used; /* nodes[0..used) have been handed out at least once */
    uint32_t head, tail, free; /* free: a list of removed nodes, through next */
    uint32_t *slot;            /* node index or MS_SHADOW_NIL; hmask + 1 slots */
    uint64_t hmask;
    unsigned shift; /* 64 - log2(slots) */
    unsigned skip;  /* top bits of the hash that are zero in every block fed */
} ms_shadow;

/* An empty shadow of `lines` lines, 1 <= lines <= MS_SHADOW_MAX_LINES
 * (the caller checks), to be fed only blocks whose hash's top `skip` bits
 * are zero (ms_shadow_sampled with 2^skip; 0: any block).  The allocator
 * must outlive it. */
ms_shadow *ms_shadow_new(uint64_t lines, unsigned skip, const rd_allocator *a);

/* The miss half of ms_shadow_access: `block` is absent and slot i ends its
 * probe; insert it as the most recent line.  Returns 0. */
int ms_shadow_insert(ms_shadow *s, uint64_t block, uint64_t i);

/* Home slot of block (multiplicative hash: consecutive blocks land far
 * apart), from the bits below the `skip` that sampling fixed at zero: with
 * the top ones, every fed block had its home in the first 1/2^skip of the
 * slots, and the index one cluster as long as the shadow. */
static inline uint64_t ms_shadow_home(const ms_shadow *s, uint64_t block)
{
    return ((block * MS_SHADOW_HASH) << s->skip) >> s->shift;
}

/* The slot holding block's node, or the empty slot ending its probe. */
static inline uint64_t ms_shadow_probe(const ms_shadow *s, uint64_t block)
{
    uint64_t i = ms_shadow_home(s, block);
    uint32_t n;
    while ((n = s->slot[i]) != MS_SHADOW_NIL && s->nodes[n].block != block)
        i = (i + 1) & s->hmask;
    return i;
}

/* Take node n off the recency list. */
static inline void ms_shadow_unlink(ms_shadow *s, uint32_t n)
{
    ms_shadow_node *x = &s->nodes[n];
    if (x->prev != MS_SHADOW_NIL)
        s->nodes[x->prev].next = x->next;
    else
        s->head = x->next;
    if (x->next != MS_SHADOW_NIL)
        s->nodes[x->next].prev = x->prev;
    else
        s->tail = x->prev;
}

/* Put node n, off the list, at its head (most recent). */
static inline void ms_shadow_push_head(ms_shadow *s, uint32_t n)
{
    ms_shadow_node *x = &s->nodes[n];
    x->prev = MS_SHADOW_NIL;
    x->next = s->head;
    if (s->head != MS_SHADOW_NIL)
        s->nodes[s->head].prev = n;
    else
        s->tail = n;
    s->head = n;
}

/* Access `block`: 1 on a hit, 0 on a miss; either way it becomes the most
 * recently used line (a miss in a full shadow drops the least recent). */
static inline int ms_shadow_access(ms_shadow *s, uint64_t block)
{
    uint64_t i = ms_shadow_probe(s, block);
    uint32_t n = s->slot[i];
    if (n == MS_SHADOW_NIL)
        return ms_shadow_insert(s, block, i);
    if (s->head != n) {
        ms_shadow_unlink(s, n);
        ms_shadow_push_head(s, n);
    }
    return 1;
}

/* Drop `block` if present (an invalidation), freeing its line. */
void ms_shadow_remove(ms_shadow *s, uint64_t block);

/* Release it; NULL does nothing. */
void ms_shadow_free(ms_shadow *s);

#endif

/* cachesim.h — a set-associative LRU cache simulator (one level, and a small
 * hierarchy of levels), the core of the future "memspy" Valgrind tool.
 *
 * Freestanding C, like src/rd: this header and cachesim.c include only
 * <stdint.h>, <stddef.h> and "rd/rd.h" and call no libc function, because
 * they will be compiled into a Valgrind tool as well as natively.  Memory
 * comes from a caller-supplied rd_allocator.
 *
 * Model of one level (see docs/cachesim.md):
 *   - `size` bytes of `line`-byte lines, `ways` lines per set;
 *     sets = size / (line * ways), a power of two (ways == size / line is
 *     fully associative: one set);
 *   - an address's block is addr / line, its set is block mod sets
 *     (bit-selected index);
 *   - true LRU within a set; reads and writes are alike (write-allocate):
 *     every access to an absent line misses and brings the line in.
 */
#ifndef AUGUR_CACHESIM_H
#define AUGUR_CACHESIM_H

#include <stddef.h>
#include <stdint.h>

#include "rd/rd.h"

/* ---- one cache level ------------------------------------------------------ */

typedef struct cs_level cs_level;

/* A new, empty (all lines invalid) level of `size` bytes, `line`-byte lines
 * and `ways`-way associativity.  On a bad geometry returns NULL, allocates
 * nothing and, if `error` is not NULL, sets *error to a static message.  The
 * geometry is good when: line is a power of two >= 8; ways >= 1; size is a
 * non-zero multiple of line * ways; sets = size / (line * ways) is a power of
 * two; and size / line <= 2^32 lines.  The allocator must outlive the level. */
cs_level *cs_level_new(uint64_t size, uint32_t line, uint32_t ways, const rd_allocator *a,
                       const char **error);

/* Access block number `block` (= addr >> log2(line); any 64-bit value).
 * Returns 1 on a hit, 0 on a miss; either way the block becomes the most
 * recently used of its set (on a miss it replaces the set's least recently
 * used line if the set is full). */
int cs_level_access_block(cs_level *c, uint64_t block);

/* Access the bytes [addr, addr + size): every line they touch, in address
 * order, once each.  Returns the number of those lines that missed.  size 0
 * touches nothing; a range running past 2^64 - 1 stops there. */
uint64_t cs_level_access(cs_level *c, uint64_t addr, uint64_t size);

/* NULL when (size, line, ways) is a good geometry for cs_level_new, else
 * the static message cs_level_new would give; allocates nothing. */
const char *cs_level_check(uint64_t size, uint32_t line, uint32_t ways);

/* What one cs_level_touch did. */
typedef struct cs_touch {
    uint32_t pos;    /* MRU position (0 = most recent) the block was found
                        at before the access, or ways on a miss */
    int evicted;     /* on a miss: 1 when the set was full and its LRU block
                        was dropped, 0 when the block filled a free way */
    uint64_t victim; /* the dropped block when evicted */
} cs_touch;

/* cs_level_access_block, saying where the block was and what it displaced:
 * returns the outcome (hit when .pos < ways). */
cs_touch cs_level_touch(cs_level *c, uint64_t block);

/* Remove `block` from its set if present (the ways behind it move up one
 * and a free way is left at the LRU end).  Returns the MRU position it had,
 * or ways if it was absent. */
uint32_t cs_level_remove(cs_level *c, uint64_t block);

/* The level's geometry, as given to / derived by cs_level_new. */
uint32_t cs_level_line(const cs_level *c);
uint32_t cs_level_ways(const cs_level *c);
uint64_t cs_level_sets(const cs_level *c);

/* Release the level and all its memory; NULL is allowed and does nothing. */
void cs_level_free(cs_level *c);

/* ---- a hierarchy of levels ------------------------------------------------ */

#define CS_MAX_LEVELS 4u

/* level[0] is closest to the processor.  A line of level k that misses is
 * requested, as the byte range of that level-k line, from level k+1 (which
 * may have a different line size).  accesses[k] counts the level-k lines
 * accessed, misses[k] those that missed, so accesses[k+1] is the number of
 * level-(k+1) lines touched by the level-k misses (equal to misses[k] when
 * both levels have the same line size).  The hierarchy does not own its
 * levels. */
typedef struct cs_hierarchy {
    unsigned nlevels; /* 1..CS_MAX_LEVELS */
    cs_level *level[CS_MAX_LEVELS];
    uint64_t accesses[CS_MAX_LEVELS], misses[CS_MAX_LEVELS];
} cs_hierarchy;

/* Set h to the `n` (1..CS_MAX_LEVELS) given levels with zero counters. */
void cs_hierarchy_init(cs_hierarchy *h, cs_level *const *levels, unsigned n);

/* Access the bytes [addr, addr + size) through the hierarchy, updating the
 * counters as described above. */
void cs_hierarchy_access(cs_hierarchy *h, uint64_t addr, uint64_t size);

#endif

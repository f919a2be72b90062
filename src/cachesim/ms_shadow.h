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

typedef struct ms_shadow ms_shadow;

/* An empty shadow of `lines` lines, 1 <= lines <= MS_SHADOW_MAX_LINES
 * (the caller checks).  The allocator must outlive it. */
ms_shadow *ms_shadow_new(uint64_t lines, const rd_allocator *a);

/* Access `block`: 1 on a hit, 0 on a miss; either way it becomes the most
 * recently used line (a miss in a full shadow drops the least recent). */
int ms_shadow_access(ms_shadow *s, uint64_t block);

/* Drop `block` if present (an invalidation), freeing its line. */
void ms_shadow_remove(ms_shadow *s, uint64_t block);

/* Release it; NULL does nothing. */
void ms_shadow_free(ms_shadow *s);

#endif

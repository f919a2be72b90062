/* memsim_internal.h — the simulator's state, shared by memsim.c (levels,
 * threads, causes) and ms_coherence.c (write-invalidate between threads).
 * Not for users of memsim.h.  Freestanding. */
#ifndef AUGUR_MEMSIM_INTERNAL_H
#define AUGUR_MEMSIM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cachesim/cachesim.h"
#include "cachesim/memsim.h"
#include "cachesim/ms_cache.h"
#include "cachesim/ms_table.h"
#include "rd/rd.h"

/* Which lines of 64 consecutive ones (a chunk: block >> 6) a cache
 * instance has ever held: the seen-set that makes a miss cold, one bit per
 * line, so a table entry serves 64 lines and stays small next to the
 * footprint.  One table per instance (ms_cache.seen), so that each level
 * touches only its own state (levels on threads of their own: memsim.h,
 * ms_pass). */
typedef struct ms_seen_chunk {
    uint64_t chunk;
    uint64_t bits; /* bit (block & 63): seen */
} ms_seen_chunk;

/* A line another thread's write took from this thread's private levels. */
typedef struct ms_inv_line {
    uint64_t block;
    uint64_t inv_mask;   /* granules other threads wrote since then */
    uint64_t inv_levels; /* bit k: taken from level k, which has not missed
                            on it since (its next miss there is sharing) */
} ms_inv_line;

/* The coherence directory's entry for a line, kept once two threads run. */
typedef struct ms_dir_line {
    uint64_t block;
    uint64_t holders; /* bit t: thread t may hold it in a private level */
    uint64_t pending; /* bit t: invalidated from t, t has not missed since;
                         t's inv_mask collects later writes of others */
} ms_dir_line;

/* A thread's private instances and invalidated lines. */
typedef struct ms_thread {
    ms_cache level[CS_MAX_LEVELS]; /* created for private levels only */
    ms_table inv;                  /* ms_inv_line, filled only when f.coherent */
} ms_thread;

struct ms_sim {
    ms_fast f; /* first: what the inline fast path of ms_access reads */
    const rd_allocator *a;
    ms_config c;
    unsigned gran_shift;  /* log2(bytes per byte-mask bit): 0 up to 64-byte lines */
    unsigned nprivate;    /* number of private levels */
    ms_cache shared[CS_MAX_LEVELS]; /* created for shared levels only */
    ms_thread *thread[MS_MAX_THREADS];
    unsigned nthreads;              /* threads created */
    ms_table dir;                   /* ms_dir_line, when f.coherent */
};

/* The granules of line `block` that bytes [addr, last] touch (bit i:
 * bytes [i << gran_shift, (i+1) << gran_shift) of the line). */
uint64_t ms_touch_mask(const ms_sim *s, uint64_t block, uint64_t addr, uint64_t last);

/* Begin keeping the directory: record which lines every existing thread's
 * private caches hold. */
void ms_coherence_start(ms_sim *s);

/* Thread t brought `block` into its private levels (a read that missed at
 * level 0). */
void ms_coherence_fill(ms_sim *s, unsigned t, uint64_t block);

/* Thread t wrote granules `mask` of `block`: invalidate it in every other
 * thread's private levels, recording why for their next miss. */
void ms_coherence_write(ms_sim *s, unsigned t, uint64_t block, uint64_t mask);

#endif

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

/* What a thread's private levels know of a line they have seen. */
typedef struct ms_own_line {
    uint64_t block;
    uint64_t inv_mask;            /* granules other threads wrote since this
                                     thread's copy was invalidated */
    uint32_t tag[CS_MAX_LEVELS];  /* object whose miss filled it, per level */
    uint16_t seen;                /* bit k: level k has held it */
    uint16_t inv_levels;          /* bit k: an invalidation took it from
                                     level k, and level k has not missed on
                                     it since (the next miss is sharing) */
    uint32_t pad;
} ms_own_line;

/* What the shared levels know of a line. */
typedef struct ms_shared_line {
    uint64_t block;
    uint32_t tag[CS_MAX_LEVELS];
    uint32_t seen; /* bit k: level k has held it */
    uint32_t pad;
} ms_shared_line;

/* The coherence directory's entry for a line, kept once two threads run. */
typedef struct ms_dir_line {
    uint64_t block;
    uint64_t holders; /* bit t: thread t may hold it in a private level */
    uint64_t pending; /* bit t: invalidated from t, t has not missed since;
                         t's inv_mask collects later writes of others */
} ms_dir_line;

/* A thread's private instances and their seen-set. */
typedef struct ms_thread {
    ms_cache level[CS_MAX_LEVELS]; /* created for private levels only */
    ms_table lines;                /* ms_own_line */
} ms_thread;

struct ms_sim {
    const rd_allocator *a;
    ms_config c;
    unsigned line_shift;  /* log2(line) */
    unsigned gran_shift;  /* log2(bytes per byte-mask bit): 0 up to 64-byte lines */
    uint64_t sample_mask; /* set_sample - 1: a block is simulated when
                             (block & sample_mask) == 0 */
    unsigned nprivate;    /* number of private levels */
    ms_cache shared[CS_MAX_LEVELS]; /* created for shared levels only */
    ms_table shared_lines;          /* ms_shared_line */
    ms_thread *thread[MS_MAX_THREADS];
    unsigned nthreads;              /* threads created */
    int coherent;                   /* directory kept (two threads, private levels) */
    ms_table dir;                   /* ms_dir_line, when coherent */
    uint32_t epoch;                 /* time sample number; 0 before the first */
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

/* memsim.h — memspy's simulator: a machine's cache hierarchy for several
 * threads that says, for every miss, why it happened and whose line it
 * threw out (seed 001; docs/memspy.md, "Simulation").
 *
 * Freestanding like cachesim.h (compiled into the memspy Valgrind tool and
 * natively for the unit tests): stdint/stddef and rd/rd.h only, no libc,
 * memory from an rd_allocator.
 *
 * Model:
 *   - levels as in cachesim.h: set-associative, true LRU, write-allocate;
 *     level k is private (one instance per thread) when shared_by == 1, and
 *     one instance shared by all threads otherwise;
 *   - a line of a private level that another thread writes is invalidated
 *     in this thread's private levels (write-invalidate coherence);
 *   - a reference is one access of [addr, addr+size); like Cachegrind, an
 *     access straddling two lines is one reference that misses at a level
 *     when either line misses there, so a one-thread run with two levels
 *     gives Cachegrind's counts (--D1=... --LL=...).
 *
 * Causes of a miss at a level (enum ms_cause), decided in this order:
 *   cold          the line was never before in this cache instance;
 *   true_sharing  the line was invalidated by another thread's write, and
 *                 that thread wrote bytes this access touches;
 *   false_sharing invalidated by another thread's write to other bytes of
 *                 the line (per-line per-thread byte masks, not thread order);
 *   capacity      a fully-associative LRU cache of the same number of lines
 *                 (the shadow, fed the same references) also misses;
 *   conflict      the shadow hits: only the set mapping lost the line;
 *   unsplit       capacity or conflict, not told apart: under shadow
 *                 sampling (ms_config.shadow_sample > 1) only the lines of
 *                 1 in shadow_sample of a fixed hash of the block number
 *                 feed a shadow scaled to match (SHARDS, Waldspurger et al.,
 *                 FAST 2015), so misses, cold and sharing stay exact and the
 *                 capacity/conflict split is measured on the sampled lines
 *                 (the report apportions the rest by it). */
#ifndef AUGUR_MEMSIM_H
#define AUGUR_MEMSIM_H

#include <stddef.h>
#include <stdint.h>

#include "cachesim/cachesim.h"
#include "cachesim/ms_cache.h"
#include "rd/rd.h"

#define MS_MAX_THREADS 64u
#define MS_NO_TAG UINT32_MAX
#define MS_ALL_KNOWN UINT8_MAX /* ms_result.unknown_from: every outcome known */

enum ms_cause {
    MS_COLD,
    MS_CAPACITY,
    MS_CONFLICT,
    MS_TRUE_SHARING,
    MS_FALSE_SHARING,
    MS_UNSPLIT,
    MS_NCAUSES
};

typedef struct ms_level_config {
    uint64_t size;      /* bytes */
    uint32_t line;      /* bytes, power of two >= 8; the same at every level */
    uint32_t ways;
    uint32_t shared_by; /* 1: private per thread; otherwise shared by all */
} ms_level_config;

/* Set sampling's random groups (docs/memspy.md, "Sampling"): memspy deals
 * the sampled lines into this many groups by the address bits just above
 * the sampling's and counts misses per group, from whose spread the report
 * estimates the sampling error.  Not used by the simulator itself. */
#define MS_SET_GROUPS 16

typedef struct ms_config {
    unsigned nlevels; /* 1..CS_MAX_LEVELS */
    ms_level_config level[CS_MAX_LEVELS];
    /* Set sampling: simulate only the sets s with s mod set_sample == 0 at
     * every level (1 = all sets); references to other sets are not
     * simulated (ms_result.sampled == 0). */
    uint32_t set_sample;
    /* Shadow sampling: 0 or 1 feeds every line to the shadows (exact
     * causes); a power of two N feeds only the lines whose hash falls in
     * 1/N of the hash space (ms_shadow_sampled) to shadows of lines/N
     * lines; a non-cold, non-sharing miss of another line is MS_UNSPLIT.
     * Under set sampling the shadows take 1 line in set_sample * N by the
     * hash, from every set (the sampled sets' lines are no fair sample of
     * all lines: a column walk crowds into few sets), with lines /
     * (set_sample * N) lines each: a hierarchy of fully-associative
     * caches, level k's fed with what missed level k-1's. */
    uint32_t shadow_sample;
} ms_config;

/* The outcome of one reference. */
typedef struct ms_result {
    uint8_t sampled;   /* 0: the reference fell outside the sampled sets and
                          nothing below is meaningful */
    uint8_t hit_level; /* first level that hit; nlevels = memory */
    /* Time sampling (seed 001's unknown references): the first level whose
     * outcome the sample cannot vouch for, MS_ALL_KNOWN when none.  At a
     * level whose set has not yet seen `ways` distinct lines since
     * ms_sample_start, the first touch of a line is unknown, hit or miss:
     * the references skipped before the sample may have brought it in or
     * thrown it out.  Every level below an unknown one is unknown too (the
     * reference might have stopped earlier, or gone further). */
    uint8_t unknown_from;
    /* For each level k < hit_level (each level that missed): */
    uint8_t cause[CS_MAX_LEVELS];   /* enum ms_cause */
    uint32_t evicted[CS_MAX_LEVELS]; /* tag of the line this miss replaced
                                        at that level, MS_NO_TAG if it filled
                                        an empty way */
} ms_result;

typedef struct ms_sim ms_sim;

/* A new simulator with empty caches, or NULL (nothing allocated, *error
 * set to a static message) on a bad configuration: see cs_level_new for
 * the geometry rules; lines must be equal at all levels; set_sample must
 * be a power of two no larger than any level's set count. */
ms_sim *ms_new(const ms_config *c, const rd_allocator *a, const char **error);
void ms_free(ms_sim *s);

/* 1 if `block` feeds the shadows of a simulator whose shadow_sample is
 * 2^log2_sample: the top log2_sample bits of the multiplicative hash
 * MS_SHADOW_HASH (ms_shadow.h) of the block are zero, so sampled lines
 * spread over all sets.  (0xff51afd7ed558ccd, near 2^64, gave 9 of the 96
 * even lines of a sweep the top bit 0 instead of about half.) */
static inline int ms_shadow_sampled(uint64_t block, unsigned log2_sample)
{
    return ((block * MS_SHADOW_HASH) >> 1 >> (63 - log2_sample)) == 0;
}

/* What the inline fast path of ms_access reads: the first member of
 * struct ms_sim (memsim_internal.h), so that a simulator pointer converts to
 * a pointer to it.  Not for users to change. */
typedef struct ms_fast {
    unsigned line_shift;  /* log2(line) */
    unsigned shadow_log2; /* log2(shadow_sample): see ms_shadow_sampled */
    uint64_t sample_mask; /* set_sample - 1: a block is simulated when
                             (block & sample_mask) == 0 */
    uint32_t epoch;       /* time sample number; 0 before the first */
    int coherent;         /* directory kept (two threads, private levels) */
    int shadows_apart;    /* set sampling: shadows fed by hash from every
                             set, apart from the sets (memsim.c) */
    ms_cache *first[MS_MAX_THREADS]; /* each thread's first-level instance,
                                        once the thread has one */
} ms_fast;

/* Levels on threads of their own (src/rdpipe/spy_stages.c): level k+1 is
 * fed only what level k missed, and each level's shadow what the shadow
 * above it did not hold, so a run of levels [from, to) can simulate a
 * reference once the levels above it have, given what they left of it:
 * an ms_pass.  Each level's state (its instances, their shadows and
 * seen-sets) is touched only by its own stage, in the references' order,
 * so the outcomes are the single walk's.  Coherence between threads
 * touches every level at once and is not split (ms_splittable). */
#define MS_PASS_LINES 64u /* lines of a reference an ms_pass can carry */
typedef struct ms_pass {
    uint64_t addr, last;  /* first and last byte */
    uint32_t tag, epoch;  /* the data object; the time sample it was made in */
    uint8_t thread;       /* folded below MS_MAX_THREADS */
    uint8_t walking;      /* simulated and missed every level above: it goes on */
    uint8_t unknown_from; /* ms_result's, over the levels above */
    uint8_t pad;
    uint64_t descending;  /* shadows apart: bit i, line i of the reference (from
                             addr's) is fed to the shadows and none above held it */
} ms_pass;

/* ms_access without its fast path: any reference (out of line).  With
 * next NULL, every level; otherwise levels [0, to) only (to <= nlevels),
 * out covering those (hit_level == to: it missed them all) and *next what
 * the levels below need: it is to be passed on when next->walking or
 * next->descending. */
int ms_access_walk(ms_sim *s, unsigned thread, uint64_t addr, uint32_t size, int is_write, uint32_t tag,
                   unsigned to, ms_result *out, ms_pass *next);

/* Levels [from, to) of a reference p passed on (1 <= from < to <=
 * nlevels): feeds their shadows, and when p->walking walks them, out
 * covering them (sampled 1, hit_level == to: missed them all; sampled 0:
 * nothing walked); p is updated for the levels below.  Returns what
 * ms_access_walk does. */
int ms_access_levels(ms_sim *s, ms_pass *p, unsigned from, unsigned to, ms_result *out);

/* 1 if thread's reference [addr, addr+size) may be split into runs of
 * levels (ms_access_upto, ms_access_levels): no coherence is kept or
 * would start with this thread, and it spans at most MS_PASS_LINES lines.
 * 0: it needs the whole hierarchy at once (ms_access), once every stage
 * has finished what it was given. */
int ms_splittable(const ms_sim *s, unsigned thread, uint64_t addr, uint32_t size);

/* ms_access of levels [0, to) only, and what the levels below need in
 * *next (see ms_access_walk); next NULL: every level, as ms_access. */
static inline int ms_access_upto(ms_sim *s, unsigned thread, uint64_t addr, uint32_t size, int is_write,
                                 uint32_t tag, unsigned to, ms_result *out, ms_pass *next)
{
    /* The fast path, inline in the caller's loop (a call per reference,
     * its saved registers and its reference record were a fifth of the
     * memspy tool's time on matmul): one line that hits the first level
     * with a certain outcome (ms_cache_hit), and not a write that other
     * threads' copies must hear of. */
    const ms_fast *f = (const ms_fast *)(void *)s;
    uint64_t block = addr >> f->line_shift;
    ms_cache *c = f->first[thread % MS_MAX_THREADS];
    int fed = ms_shadow_sampled(block, f->shadow_log2);
    if (f->shadows_apart && fed) /* the shadows hear of it, sampled set or not */
        return ms_access_walk(s, thread, addr, size, is_write, tag, to, out, next);
    if (block & f->sample_mask) {
        out->sampled = 0;
        if (next)
            next->walking = 0, next->descending = 0;
        return 0;
    }
    if (c && size != 0 && ((addr + size - 1) >> f->line_shift) == block &&
        !(is_write && f->coherent) && ms_cache_hit(c, block, f->epoch, fed)) {
        out->sampled = 1;
        out->hit_level = 0;
        out->unknown_from = MS_ALL_KNOWN;
        if (next)
            next->walking = 0, next->descending = 0;
        return 1;
    }
    return ms_access_walk(s, thread, addr, size, is_write, tag, to, out, next);
}

/* Simulate thread `thread` (0..MS_MAX_THREADS-1) reading (is_write 0) or
 * writing [addr, addr+size), size >= 1, on behalf of the data object
 * `tag` (kept with the line, so that a later eviction names it).  Fills
 * *out.  A reference spanning lines reports, per level, the cause and
 * evicted tag of its first line (in address order) that missed there, and
 * is unknown at a level when any of its lines is; under set sampling it is simulated when its first line is, and
 * then only its sampled lines are.  Thread numbers >= MS_MAX_THREADS are
 * folded modulo MS_MAX_THREADS.  Returns 1 when the reference was
 * simulated and hit the first level with a certain outcome (hit_level 0,
 * unknown_from MS_ALL_KNOWN: nothing else in *out to read), else 0; the
 * usual case is then a test of a register, not of bytes just stored. */
static inline int ms_access(ms_sim *s, unsigned thread, uint64_t addr, uint32_t size, int is_write,
                            uint32_t tag, ms_result *out)
{
    return ms_access_upto(s, thread, addr, size, is_write, tag, CS_MAX_LEVELS, out, NULL);
}

/* Time sampling: a new sample begins after references that were not
 * simulated.  The caches keep their contents, but until a set has seen
 * `ways` distinct lines in this sample, the first touch of each line there
 * is unknown (ms_result.unknown_from). */
void ms_sample_start(ms_sim *s);

/* "cold", "capacity", "conflict", "true_sharing", "false_sharing",
 * "unsplit". */
const char *ms_cause_name(enum ms_cause c);

#endif

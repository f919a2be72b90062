/* spy_tally.h — what the simulator's consumer counts (src/rdpipe/
 * spy_consumer.c): per (instruction, object) pair, eviction and thread, by
 * the rules of cachesim/ms_counts.h, kept by each stage of levels
 * (spy_stages.c) for its own levels and added up before a flush's answer
 * (spy_proto.h). */
#ifndef AUGUR_SPY_TALLY_H
#define AUGUR_SPY_TALLY_H

#include <stdint.h>

#include "rdpipe/ring_reader.h"
#include "rdpipe/spy_proto.h"

/* Evictions a pair's misses made at one level, of one victim's lines. */
typedef struct spy_evict_count {
    struct spy_evict_count *next; /* less recently used */
    uint64_t key;                 /* ms_evict_key */
    uint64_t count;
} spy_evict_count;

typedef struct spy_pair_count {
    struct spy_pair_count *next; /* the instruction's next, less recently used */
    struct spy_pair_count *all;  /* every pair, for the flush */
    uint32_t code, obj;
    ms_counts n;
    uint64_t (*groups)[MS_SET_GROUPS]; /* set sampling alone: from the first miss */
    spy_evict_count *evicts;            /* most recent first */
} spy_pair_count;

/* The counts of one stage, zeroed (all fields 0) to begin. */
typedef struct spy_tally {
    spy_pair_count **by_code; /* per instruction id, its pairs, most recent first */
    uint32_t ncodes;
    spy_pair_count *pairs; /* all of them */
    ms_totals thread_totals[MS_MAX_THREADS];
    uint64_t skipped; /* references outside the sampled sets */
} spy_tally;

/* The pair (code, obj), created if new, moved to the front of code's list. */
spy_pair_count *spy_pair_of(spy_tally *t, uint32_t code, uint32_t obj);

/* Count levels [from, to) of a simulated reference (res->sampled) of
 * thread `thread` at addr, pair p: misses, causes, unknowns
 * (ms_count_levels), the set-sampling groups when cfg asks for them, and
 * the evictions. */
void spy_tally_levels(spy_tally *t, spy_pair_count *p, const spy_config *cfg, unsigned thread, uint64_t addr,
                      const ms_result *res, unsigned from, unsigned to);

/* Add every count of `from` to `into`, and zero `from`'s. */
void spy_tally_merge(spy_tally *into, spy_tally *from);

/* The answer to SPY_FLUSH (spy_proto.h) from t, whose counts are then
 * zeroed; 0, or -1 when the tool is gone. */
int spy_tally_answer(spy_tally *t, ring_answer *a);

/* Release t's pairs and evictions (t itself is the caller's). */
void spy_tally_free(spy_tally *t);

#endif

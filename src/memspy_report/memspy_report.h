/* memspy_report.h — the host half of `augur memspy`: the raw file the
 * memspy Valgrind tool writes (docs/memspy-format.md), read and checked;
 * the MemSpy report built from it (seed 001: where misses come from and
 * why, by code and by data, with stall cycles); and its renderings.
 *
 *   memspy_read.c      raw file -> memspy_raw, every rule of the format checked
 *   memspy_attr.c      memspy_raw + latencies (+ loops) -> memspy_report
 *   memspy_scale.c     sampling: scale factor, estimates and their bounds
 *   memspy_split.c     shadow sampling: unsplit misses apportioned
 *   memspy_loops.c     code addresses -> loops, from the structure analysis
 *   memspy_varnames.c  heap objects named by the variable receiving them
 *   memspy_names.c     every data object's name made unique
 *   memspy_notes.c     notes on the run: shorter than a sample, loader-bound
 *   memspy_text.c      the report for people
 *   memspy_json.c      the report for programs (docs/memspy.md, "Report")
 *   memspy_callgrind.c the report as a callgrind file, one event per cause
 */
#ifndef AUGUR_MEMSPY_REPORT_H
#define AUGUR_MEMSPY_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cachesim/memsim.h"
#include "util/numfmt.h"

#define MEMSPY_VERSION 2
#define MR_MAX_LEVELS CS_MAX_LEVELS
#define MR_MAX_SITES 8

/* ---- the raw file (memspy_read.c) ---------------------------------------- */

typedef struct mr_level {
    char *name;         /* "L1" */
    uint64_t size;      /* bytes */
    uint32_t line, ways;
    uint32_t shared_by; /* 1: private per thread */
} mr_level;

/* Misses at one level and their causes (enum ms_cause order; MS_UNSPLIT
 * is MISS less the five causes the raw file gives, the misses shadow
 * sampling did not split).  Time sampling's unknown references there
 * (seed 001): `unknown` misses (also counted in miss and in one cause)
 * and `unknown_hits`, references that hit here or above, whose outcome
 * the sample cannot vouch for either. */
#define MR_LEVEL_FIELDS 8 /* per level in a pair line */
typedef struct mr_misses {
    uint64_t miss, unknown, unknown_hits;
    uint64_t cause[MS_NCAUSES];
    uint64_t group[MS_SET_GROUPS]; /* set sampling: misses per random group
                                      (a 'groups' line; zeros without one) */
} mr_misses;

/* A code location or one allocation-stack frame; -1 ids are unknown. */
typedef struct mr_loc {
    int32_t module, fn, file;
    uint64_t addr; /* in the module's link-time address space (run-time
                      minus its bias); absolute when module is -1 */
    uint32_t line;
} mr_loc;

enum mr_obj_kind { MR_HEAP, MR_GLOBAL, MR_STACK, MR_OTHER, MR_NKINDS };

typedef struct mr_obj {
    uint8_t kind;        /* enum mr_obj_kind */
    char *name;
    uint64_t size;       /* bytes (heap: the largest total live at once) */
    uint64_t count;      /* blocks allocated */
    uint32_t first_site; /* its allocation stack: sites[first_site .. +nsites) */
    uint32_t nsites;     /* innermost frame (the caller of malloc) first */
} mr_obj;

typedef struct mr_pair {
    uint32_t code, obj;
    uint64_t refs, reads, writes;
    mr_misses lv[MR_MAX_LEVELS];
} mr_pair;

typedef struct mr_evict {
    uint32_t level, victim, evictor; /* objects */
    uint64_t count;
} mr_evict;

typedef struct mr_thread {
    uint32_t id;
    uint64_t refs;
    uint64_t miss[MR_MAX_LEVELS];
} mr_thread;

enum mr_sampling { MR_SAMPLE_NONE, MR_SAMPLE_TIME, MR_SAMPLE_SETS };

typedef struct memspy_raw {
    char *tool;                  /* "augur-memspy 0.1.0" */
    int64_t pid, ppid;
    char *exe;
    int argc;
    char **argv;                 /* the program's arguments (not its name),
                                    NULL-terminated */
    unsigned nlevels;
    mr_level level[MR_MAX_LEVELS];
    uint8_t sampling;            /* enum mr_sampling */
    uint64_t on, off;            /* time sampling: references on, then off */
    uint64_t sets;               /* set sampling: one set in `sets` */
    uint64_t shadow_sample;      /* the raw file's `shadow N` (1: exact causes);
                                    0 when it has none (an older writer) */
    int has_groups;              /* set sampling's 'groups' lines present (an
                                    older writer has none) */
    int64_t regions;             /* regions of interest: the instrumented
                                    stretches of the run (its `regions N`);
                                    -1 when the whole run was instrumented */
    uint32_t threads;
    size_t nwarnings;
    char **warnings;             /* notes from the tool, for the report */
    int nmodules, nfns, nfiles;
    char **module_paths, **fns, **files;
    uint64_t *module_bias;
    size_t nobjs, nsites, ncodes, npairs, nevicts, nthreads;
    mr_obj *objs;
    mr_loc *sites, *codes;
    mr_pair *pairs;
    mr_evict *evicts;
    mr_thread *thread;
    uint64_t skipped;            /* references not simulated */
    char *exec_path;             /* the program it exec'd (its `exec` line), or NULL */
    int has_exit, exit_code;
} memspy_raw;

/* Read and check the raw file at `path` into *out.  On any problem returns
 * -1, leaves nothing to free, and writes "PATH: line N: problem (fix)" to
 * err: another version, a truncated or corrupt file (line count, CRC), a
 * line out of order, an id used before its definition, counts that
 * contradict each other (causes not adding up to the misses, more misses
 * at a level than at the one above it, reads + writes != references). */
int memspy_read(const char *path, memspy_raw *out, char *err, size_t errlen);
void memspy_raw_free(memspy_raw *r);

const char *mr_kind_name(enum mr_obj_kind k);

/* Whether o's size means something: heap and global objects have one;
 * stack and other objects are recorded with 0, their extent not known. */
static inline int mr_size_known(const mr_obj *o)
{
    return o->kind == MR_HEAP || o->kind == MR_GLOBAL;
}

/* The report's name of the tool's object `other` (kind MR_OTHER). */
#define MR_OTHER_NAME "(other memory)"

/* Make the names of r's objects unique (memspy_names.c): the object
 * `other` becomes MR_OTHER_NAME; names shared by several objects get
 * " <- FN:LINE", the first caller frame where their allocation stacks
 * differ, and failing that " #N" (1, 2, ... in raw order).  -1 only when
 * memory runs out (names may then be half done). */
int mr_unique_names(memspy_raw *r);

/* The name of allocation-stack frame s into buf: "FN:LINE", "FN" without
 * a line, else, for code of no symbol (a stripped binary),
 * "MODULE+0xOFF" (the module's base name and the link-time address) or
 * "0xADDR" outside every module (memspy_names.c). */
void mr_frame_name(const memspy_raw *r, const mr_loc *s, char *buf, size_t len);

/* Give object o a copy of `name` in place of its own; -1 (o unchanged)
 * when memory runs out (memspy_names.c). */
int mr_obj_rename(mr_obj *o, const char *name);

/* The function of frame s into buf: "FN", or for code of no symbol
 * "MODULE+0xOFF" / "0xADDR" as mr_frame_name (memspy_names.c). */
void mr_frame_function(const memspy_raw *r, const mr_loc *s, char *buf, size_t len);

/* ---- sampling (memspy_scale.c) ------------------------------------------- */

/* How counts of simulated references stand for the whole run. */
typedef struct mr_scale {
    uint8_t sampling;     /* enum mr_sampling */
    uint64_t simulated;   /* references simulated */
    uint64_t total;       /* simulated + skipped */
    double factor;        /* what a count of simulated references or misses
                             stands for: N under set sampling (one line in
                             N), else refs_factor */
    double refs_factor;   /* total / simulated (1 without sampling): the
                             whole run's references are counted exactly */
    int groups;           /* set sampling's random groups are in the file */
} mr_scale;

/* An estimate of a whole-run count with the bounds the sampling implies:
 * time sampling (seed 001, eq. 6.1): [known, known + unknown] * factor,
 * estimate the simulated count * factor; set sampling: count * N with the
 * 95% bounds of its random groups (memspy_scale.c); no sampling: exact
 * (lo = hi = estimate). */
typedef struct mr_estimate {
    double est, lo, hi;
} mr_estimate;

mr_scale mr_scale_of(const memspy_raw *r);
mr_estimate mr_estimate_misses(const mr_scale *s, const mr_misses *m);
/* A count with no bounds of its own (references, a cause): count * factor. */
double mr_scaled(const mr_scale *s, uint64_t count);

/* ---- capacity / conflict under shadow sampling (memspy_split.c) ---------- */

/* Fewest sampled capacity + conflict misses a bin needs to be split by its
 * own share; below it, the whole level's share is used. */
#define MR_SPLIT_MIN 30

/* A share k/n of n binomial trials, with its 95% interval (Wilson score);
 * n == 0: p = 0.5, interval [0, 1]. */
typedef struct mr_share {
    double p, lo, hi;
    uint64_t n;     /* trials: sampled capacity + conflict misses */
    int from_level; /* 1: the level's share stands in for the bin's */
} mr_share;

/* A bin's capacity and conflict misses with its unsplit ones apportioned:
 * capacity = C + U p, conflict = F + U (1 - p), capacity in [C + U lo,
 * C + U hi]; C, F, U its sampled capacity, conflict and unsplit misses.
 * Without unsplit misses the counts are exact (lo = hi = C). */
typedef struct mr_split {
    mr_share share;
    double capacity, conflict;
    double capacity_lo, capacity_hi;
} mr_split;

mr_share mr_share_of(uint64_t k, uint64_t n);
/* The capacity share of m's sampled misses, or of `level`'s (the same
 * level's totals) when m has fewer than MR_SPLIT_MIN of them. */
mr_share mr_capacity_share(const mr_misses *m, const mr_misses *level);
mr_split mr_split_of(const mr_misses *m, const mr_misses *level);
/* m's misses of cause c (not MS_UNSPLIT) as reported: capacity and
 * conflict with sp's apportioned unsplit misses, the rest as counted. */
double mr_split_cause(const mr_split *sp, const mr_misses *m, enum ms_cause c);

/* ---- the report (memspy_attr.c) ------------------------------------------ */

/* Cycles a reference costs when level k serves it (lat[k]; lat[nlevels]
 * is memory). */
typedef struct mr_costs {
    double lat[MR_MAX_LEVELS + 1];
} mr_costs;

/* The counts of one bin: a data object, a code object or a pair. */
typedef struct mr_stats {
    uint64_t refs, reads, writes;
    mr_misses lv[MR_MAX_LEVELS];
    double stall; /* cycles, whole-run estimate */
} mr_stats;

enum mr_code_kind { MR_FUNCTION, MR_LOOP, MR_LINE };

typedef struct mr_code_obj {
    uint8_t kind;     /* enum mr_code_kind */
    char *name;       /* function name; "loop at FILE:LINE"; "FILE:LINE",
                         FILE the source file's base name in both */
    char *function;   /* the function it lies in */
    const char *file; /* a line's source file as the raw file names it (a
                         full path, owned by the raw file); NULL otherwise */
    mr_stats s;
} mr_code_obj;

/* A (function, data object) pair. */
typedef struct mr_pair_stats {
    uint32_t function; /* index into code[] (a MR_FUNCTION object) */
    uint32_t obj;
    mr_stats s;
} mr_pair_stats;

/* The loops of a code location: loop_names(ctx, code index, names, max)
 * fills names[] with the loops containing the location, innermost first,
 * and returns their count (memspy_loops.c provides one from the
 * structure analysis).  May be NULL: no loop objects. */
typedef size_t (*mr_loops_fn)(void *ctx, size_t code, const char **names, size_t max);

typedef struct memspy_report {
    const memspy_raw *raw;
    mr_costs costs;
    mr_scale scale;
    mr_stats total;
    mr_stats *data;          /* per raw object */
    size_t ncode, npairs;
    mr_code_obj *code;
    mr_pair_stats *pairs;
    /* Ranks by stall, most first (ties: more first-level misses first). */
    uint32_t *data_rank, *code_rank, *pair_rank;
    /* Start-up and loader code (src/binary/startup.h): a code object all of
     * whose locations are start-up code, a data object only such code
     * referenced (a pair is its function's); their references summed. */
    uint8_t *code_startup, *data_startup;
    size_t startup_functions, startup_data;
    mr_stats startup;
    /* How text and JSON show it, set by the caller (0 after building): */
    int hide_startup; /* leave the start-up rows out of the lists */
    size_t top;       /* rows per ranked list in text; 0: all (JSON: all) */
} memspy_report;

/* Stall cycles of counts m (whole-run estimates): every reference that
 * missed at level k and hit at level k+1 costs lat[k+1]; one that missed
 * everywhere costs lat[nlevels]:
 *   stall = sum_{k<L-1} (M_k - M_{k+1}) * lat[k+1] + M_{L-1} * lat[L]. */
double mr_stall(const mr_costs *c, unsigned nlevels, const double *misses);

/* Build the report of raw r (which must outlive it), start-up rows found
 * but shown, every row in text.  -1 with a message when memory runs out. */
int memspy_report_build(const memspy_raw *r, const mr_costs *c, mr_loops_fn loops, void *loops_ctx,
                        memspy_report *out, char *err, size_t errlen);
void memspy_report_free(memspy_report *rep);

/* Add raw pair p's counts into s. */
void mr_stats_add(mr_stats *s, const mr_pair *p, unsigned nlevels);
/* Set s->stall from s's misses (whole-run estimates). */
void mr_stats_stall(const memspy_report *rep, mr_stats *s);

/* The whole-run estimate of misses of s at level k. */
mr_estimate mr_stats_misses(const memspy_report *rep, const mr_stats *s, unsigned k);
/* The whole-run count for `count` references (or reads, or writes) of s:
 * exact for the run's total (the tool counts every reference), scaled as
 * misses are for any other bin. */
double mr_stats_refs(const memspy_report *rep, const mr_stats *s, uint64_t count);

/* The replacements at level k of object `victim`'s lines: total, and the
 * count by each evictor into by[nobjs] (zeroed first). */
uint64_t mr_replacements(const memspy_raw *r, unsigned k, uint32_t victim, uint64_t *by);

/* An object that replaced a victim's lines, and how often. */
typedef struct mr_evictor {
    uint64_t count;
    uint32_t obj;
} mr_evictor;

/* The evictors of object `victim`'s lines at level k into e[nobjs], most
 * replacements first, ties in raw order; returns their number, with
 * *total the replacements and by[nobjs] (scratch) each evictor's count as
 * mr_replacements leaves it. */
size_t mr_evictors(const memspy_raw *r, unsigned k, uint32_t victim, uint64_t *by, mr_evictor *e, uint64_t *total);

/* ---- notes on the run (memspy_notes.c) ----------------------------------- */

/* The share of the stall (percent) above which the dynamic loader's is
 * noted: its startup work, fixed, then dominates the program's own. */
#define MR_LOADER_SHARE 25.0
#define MR_MAX_NOTES 3

typedef struct mr_notes {
    size_t n;
    char text[MR_MAX_NOTES][256];
} mr_notes;

/* The stall cycles of code in the dynamic loader (startup_is_loader),
 * and *module its file name (NULL, and 0 returned, when it made no
 * references). */
double mr_loader_stall(const memspy_report *rep, const char **module);
/* Whether time sampling never skipped: the run was shorter than one
 * sample, so every reference was simulated and the counts are exact. */
int mr_short_sample(const memspy_report *rep);
/* The notes rep's reader needs, in order: a run shorter than one sample;
 * the dynamic loader making more than MR_LOADER_SHARE% of the stall. */
void mr_notes_of(const memspy_report *rep, mr_notes *out);

/* ---- renderings ---------------------------------------------------------- */

/* What the header says about the machine. */
typedef struct mr_header {
    const char *machine;   /* "zen4" */
    const char *why;       /* "closest to this host's caches", or NULL */
    double clock_ghz, mem_latency_ns;
    int term_signal;       /* the signal that killed the program when augur ran
                              it and saw that (the raw file cannot say); 0: none
                              or not known */
} mr_header;

#define MR_DEFAULT_TOP 10 /* rows per ranked list in text (augur memspy --top) */

/* Whether a row is out of the lists: start-up code or data while hidden. */
static inline int mr_code_hidden(const memspy_report *rep, size_t code)
{
    return rep->hide_startup && rep->code_startup[code];
}
static inline int mr_data_hidden(const memspy_report *rep, size_t obj)
{
    return rep->hide_startup && rep->data_startup[obj];
}

/* The text: counts grouped by thousands or plain (util/numfmt.h). */
int memspy_write_text(const memspy_report *rep, const mr_header *h, num_style numbers, FILE *out);
int memspy_write_json(const memspy_report *rep, const mr_header *h, FILE *out);
int memspy_write_callgrind(const memspy_report *rep, FILE *out);

#endif

/* collect.h — the augur Valgrind tool: its data types and the state they live in.
 *
 * The tool counts every guest instruction exactly, the taken count of every
 * conditional branch and the targets of indirect branches, and gives each
 * memory-accessing instruction a reuse-distance histogram per block size.
 * Files:
 *   collect_main.c        registration with Valgrind, options, start and finish
 *   collect_instrument.c  the IR instrumentation pass
 *   collect_runtime.c     what instrumented code calls at run time; threads; fork
 *   collect_table.c       the instruction table and debug-info names
 *   collect_output.c      writing the raw profile (docs/profile-format.md)
 *   collect_progress.c    progress lines in the log on long runs
 *   collect_regions.c     regions: the program's client requests, and
 *                         counting only inside (or, for interval
 *                         functions, outside) calls of named functions
 *   collect_intervals.c   intervals: counts per stretch of the run between
 *                         calls of interval functions, kept per interval
 *                         or per closing call site
 *   collect_comm.c        MPI calls, as augur's MPI wrapper reports them
 *   collect_pipe.c        --augur-channel: the reuse-distance engines in
 *                         augur's consumer process instead of here
 *
 * How instruction counts stay cheap: each superblock gets an array of 64-bit
 * counters, bumped by inline IR (no helper call): ctr[0] on entry and
 * ctr[k+1] when side exit k is taken.  The statements between exit k-1 and
 * exit k form "segment" k, executed ctr[0] - (ctr[1] + ... + ctr[k]) times;
 * every count the profile needs follows from these at the end (see
 * SbCounters and collect_fold_counters()).
 *
 * Call edges: a direct call to a named function is counted from the
 * counters at the end (its executions, to its target: direct_callee).  A
 * superblock that ends in any other call leaves its call instruction
 * in Collector.pending_call (inline store); the next superblock of a named
 * function that the thread enters takes it (an inline test, a helper only
 * then) and counts the edge call -> that instruction.  Code without a
 * name between them, such as a PLT stub, is passed through, so a call
 * through the PLT is counted to the library function it reaches.  A tail
 * call (a jump from a named function to the entry of another, or into
 * unnamed code) waits the same way, and counts only where it enters a
 * function at its entry, as Callgrind counts jumps between functions.  The
 * first call of a lazily bound function enters glibc's resolver
 * (_dl_runtime_resolve*), which jumps to the function when it has found
 * it: the resolver's entry keeps the call in Collector.resolve_call and
 * its final indirect jump makes it pending again, so that the call is
 * counted to the resolver and to the function, as Callgrind shows it.
 *
 * No libc here: only VG_(...) functions.  Everything mutable lives in the
 * single Collector instance `collector` below.
 */
#ifndef AUGUR_COLLECT_H
#define AUGUR_COLLECT_H

#include "pub_tool_basics.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_wordfm.h"
#include "pub_tool_xarray.h"

#include "profile/profile_writer.h" /* PROFILE_POW2_CLASSES */
#include "rd/rd.h"
#include "rd/rd_sets.h"
#include "rdpipe/rdpipe_proto.h"
#include "vgcommon/vg_ring.h"
#include "vgcommon/vg_names.h"

#define AUGUR_TOOL_VERSION "0.1.0"
#define MAX_BLOCK_SIZES 8
/* The engines: one per block size (hist[0..nblock_sizes)), then one per
 * set count (hist[nblock_sizes..nengines): set-local distances, rd_sets.h). */
#define MAX_ENGINES (MAX_BLOCK_SIZES + RD_MAX_SET_COUNTS)
#define MAX_THREADS 512 /* above VG_N_THREADS (500) */

/* How often an instruction went to one place: an indirect branch's target
 * address, or a call's callee (the InstrRec * of the first instruction of
 * the named function it entered, collect_on_enter). */
typedef struct KeyCount {
    UWord key;
    ULong count;
} KeyCount;

/* A growing array of KeyCounts, one per key. */
typedef struct KeyCounts {
    UInt n, cap;
    KeyCount *e;
} KeyCounts;

/* The dominant address delta between an instruction's consecutive
 * accesses that reach a helper (collect_runtime.c, vote_stride):
 * Boyer-Moore's majority vote, with the deltas equal to the candidate
 * counted since it last became the candidate. */
typedef struct StrideVote {
    Long stride;  /* the candidate */
    ULong votes;  /* the vote's counter */
    ULong count;  /* deltas equal to the candidate since it became one */
    ULong deltas; /* all deltas */
    /* the deltas by 2-adic class (profile_writer.h, PROFILE_POW2_FIRST):
     * what the vote cannot see of a walk whose power-of-two stride changes */
    ULong pow2[PROFILE_POW2_CLASSES];
} StrideVote;

/* What one instruction did in some stretch of the run (the whole process,
 * an interval, the intervals of one call site): what the profile writes. */
typedef struct InstrCounts {
    ULong execs, reads, writes, taken;
    KeyCounts targets; /* an indirect jump or call: its target addresses */
    KeyCounts callees; /* a call: the named functions it entered */
    rd_hist hist[MAX_ENGINES]; /* per engine (MAX_ENGINES) */
    /* Sampling (Collector.sample_threshold): hist holds the sampled touches,
     * at scaled distances and not yet scaled in number; exact_zero the
     * accesses the fast path skipped, at distance 0 at every block size and
     * counted exactly, as they are known without sampling. */
    ULong exact_zero;
    StrideVote vote;
} InstrCounts;

/* One guest instruction, keyed by its run-time address. */
typedef struct InstrRec {
    struct InstrRec *next; /* VgHashTable chaining; must come first */
    UWord addr;            /* the key */
    UInt len;
    Int module, fn, file; /* interned ids, -1 when unknown */
    UInt line;
    Bool is_cond_branch;
    Bool accesses_memory;
    Bool tail_jump; /* a jump that may be a tail call (see collect_on_enter) */
    Addr direct_callee; /* a direct call to a named function: its target; else 0 */
    Bool in_profile;    /* has a row in the profile being written (collect_output.c) */
    UInt touched_epoch; /* collector.epoch when put on collector.touched */
    UInt id;            /* with a channel: the consumer's name for it (collect_pipe.c) */
    /* Counted at run time by helpers, folded into n by collect_take_counts: */
    ULong fast_path_misses; /* unguarded accesses that reached the helper */
    ULong guarded_reads, guarded_writes;
    Bool has_last;  /* last_addr holds an access counted since the last reset */
    Addr last_addr; /* for the stride vote's next delta */
    /* take_near's (collect_runtime.c): near[0] the accesses it took, at distance 1 at
     * the smallest block size; near[i] those of them at distance 1 at engine
     * i (the rest at 0). */
    ULong near[MAX_ENGINES];
    /* Since the last collect_reset_counts: execs, reads, writes and taken
     * once collect_take_counts folded the counters in; the rest as it goes. */
    InstrCounts n;
} InstrRec;

/* What one counter-derived quantity adds to: see collect_fold_counters(). */
typedef enum {
    ITEM_EXEC,        /* rec->execs      += executions of the segment */
    ITEM_READ,        /* rec->reads      += executions of the segment */
    ITEM_WRITE,       /* rec->writes     += executions of the segment */
    ITEM_TAKEN,       /* rec->taken      += times exit `seg` was taken */
    ITEM_TAKEN_INVERTED /* the exit goes to the fall-through: taken = not exiting */
} ItemKind;

typedef struct CountItem {
    InstrRec *rec;
    UInt seg;
    UInt kind; /* ItemKind */
} CountItem;

/* The counters of one translated superblock; kept after the translation is
 * discarded, because its counts still belong to the profile. */
typedef struct SbCounters {
    struct SbCounters *next_sb;
    UInt nexits;
    ULong *ctr; /* [0] entries, [k+1] exit k taken */
    UInt nitems;
    CountItem *items;
} SbCounters;

/* Per-thread reuse state: each thread has its own LRU stacks (the view of a
 * private cache), here or, with a channel, in the consumer (stack NULL). */
typedef struct ThreadState {
    rd_stack *stack[MAX_BLOCK_SIZES];
    rd_sets *sets[RD_MAX_SET_COUNTS]; /* per set count, as stack */
    ULong top_block; /* last block touched at the smallest block size */
    HWord pending_call; /* Collector.pending_call while another thread runs */
    HWord resolve_call; /* Collector.resolve_call while another thread runs */
    HWord signal_call;  /* pending_call while a signal handler runs */
    HWord counting, region_sp, skip_sp; /* Collector's, while another thread runs */
} ThreadState;

/* The tool's end of the channel to the reuse-distance consumer
 * (collect_pipe.c): the ring's batch being written, and what answers need. */
typedef struct Channel {
    VgRing ring;     /* vg_ring.h */
    XArray *by_id;   /* of InstrRec *, by InstrRec.id */
    rd_bin *bins;    /* room for an answer's histogram */
    UInt nbins_cap;
} Channel;

/* The stretches of the run counted apart (collect_intervals.c). */
struct Phase;

/* A --region-function or --interval-function pattern and how often a
 * function it names was entered (outermost entries only). */
typedef struct FnPattern {
    const HChar *glob;
    ULong entries;
} FnPattern;

#define MAX_PATTERNS 32

typedef struct Collector {
    /* options */
    const HChar *out_dir;
    const HChar *run_token; /* NULL, or lowercase hex naming the profiles augur.<pid>.<token>.prof */
    UInt nblock_sizes;
    UInt block_size[MAX_BLOCK_SIZES]; /* ascending */
    UInt block_shift[MAX_BLOCK_SIZES];
    /* --augur-set-counts: set-local distances at these set counts of 64-byte
     * lines (ascending; none: nset_counts 0), in engines nblock_sizes.. */
    UInt nset_counts;
    UInt set_count[RD_MAX_SET_COUNTS];
    UInt nengines; /* nblock_sizes + nset_counts */
    /* --augur-sample-rd=T: only blocks with hash mod RD_SAMPLE_MODULUS < T
     * enter the LRU stacks (rd_sampled), their distances and counts scaled
     * (docs/collector.md, "Sampled reuse distances"); 0: every block. */
    UInt sample_threshold;

    /* instruction table and interned names */
    VgHashTable *instrs; /* InstrRec by address */
    /* The records whose counts changed since the last reset, each once
     * (those with touched_epoch == epoch): what an interval's close folds,
     * writes and zeroes, in time proportional to the code it ran rather
     * than to all code the process ever ran. */
    XArray *touched; /* of InstrRec * */
    UInt epoch;
    VgNames names;

    SbCounters *sbs; /* every superblock ever instrumented */

    /* threads */
    ThreadState *thread[MAX_THREADS];
    ThreadState *current;
    UInt threads_created;
    Bool exited;   /* the process called exit_group(exit_code) */
    Int exit_code;

    /* Read by the inline fast-path test of every memory access: the current
     * thread's most recently touched block at the smallest block size. */
    ULong top_block;
    /* Whether translations get the inline distance-1 check (exact inline
     * analysis, ungated: set once at the start), and what it reads and
     * swaps: the current thread's stack fronts (rd_stack_front) at each
     * block size, or no_front, which no block matches, while the engines
     * have no current stacks. */
    Bool near_check;
    Bool near_check_allowed; /* --augur-near-check (for tests) [yes] */
    uint64_t *front[MAX_BLOCK_SIZES];
    uint64_t no_front[2];

    /* progress lines (collect_progress.c): interval, clock, pacing */
    UInt progress_interval;          /* ms between two lines, and before the first */
    UInt progress_start, progress_next; /* ms timer values */
    ULong progress_blocks;           /* blocks dispatched when the clock was last read */
    /* Read and written by inline IR: the current thread's call instruction
     * (an InstrRec *) whose callee has not been entered yet, or 0.  Set at
     * the end of a superblock that calls, cleared by one that returns and
     * by collect_on_enter at the first superblock of a named function. */
    HWord pending_call;
    /* The call that entered the lazy-binding resolver, made pending again
     * when the resolver jumps to the function it resolved (inline IR). */
    HWord resolve_call;

    /* regions (collect_regions.c) */
    Bool instr_at_start;  /* --instr-at-start: instrument from the start [yes] */
    Bool instrumenting;   /* translations made now are instrumented */
    Bool gated;           /* region or interval functions given: counts are gated by `counting` */
    UInt nregion_fns, ninterval_fns;
    FnPattern region_fn[MAX_PATTERNS], interval_fn[MAX_PATTERNS];
    ULong starts, stops, zeros, dumps; /* the program's client requests obeyed */
    /* Read by inline IR when gated (the current thread's): 1 while counts
     * are taken, else 0; the stack pointer at the entry of the region
     * function the thread is in (0: none), and of the interval function
     * (0: none), whose return ends it. */
    HWord counting, region_sp, skip_sp;

    /* intervals (collect_intervals.c) */
    Bool by_callsite;        /* --augur-interval-by=callsite: one profile per closing call site */
    ULong intervals_closed;  /* the index of the interval being counted */
    struct Phase *total;     /* the whole process, once an interval closed; else NULL */
    XArray *phases;          /* of struct Phase *: per call site (by_callsite) */
    ULong instructions_taken; /* executions folded out of the counters so far */

    /* MPI (collect_comm.c): the rank and rank count MPI_Init reported,
     * and the calls' records (struct CommRec), by key and in first-call order */
    Bool mpi_init;
    Long mpi_rank, mpi_size;
    VgHashTable *comm_recs;
    XArray *comm_order;

    rd_allocator alloc;
    /* --augur-channel: the engines run in augur's consumer; NULL: here
     * (no channel given, a forked child, an exec'd program) */
    Channel *channel;
} Collector;

extern Collector collector;

/* collect_table.c */
void collect_table_init(void);
InstrRec *collect_instr(Addr addr, UInt len); /* find or create, with names */

/* collect_instrument.c */
IRSB *collect_instrument(VgCallbackClosure *closure, IRSB *sb_in,
                         const VexGuestLayout *layout, const VexGuestExtents *vge,
                         const VexArchInfo *archinfo_host, IRType gWordTy, IRType hWordTy);

/* collect_runtime.c */
/* The state of thread tid, made on first use (with stacks when the
 * engines run here). */
ThreadState *collect_thread_state(ThreadId tid);
/* New, empty LRU stacks and set lists for t (the engines run here). */
void collect_thread_engines(ThreadState *t);
VG_REGPARM(3) void collect_on_access(InstrRec *rec, Addr addr, UWord size);
VG_REGPARM(3) void collect_on_guarded_access(InstrRec *rec, Addr addr, UWord size_and_write);
VG_REGPARM(2) void collect_on_indirect(InstrRec *rec, Addr target);
VG_REGPARM(3) void collect_on_enter(InstrRec *call, InstrRec *entered, UWord is_entry);
void collect_runtime_init(void);
/* Fold the superblock counters into the records' counts (execs, reads,
 * writes, taken, skipped accesses, direct calls) and zero them, so that
 * the next fold takes only what ran since. */
void collect_take_counts(void);
/* Zero every record's counts and every counter; the LRU stacks stay.
 * Takes time in the records that changed since the last reset. */
void collect_reset_counts(void);
/* The records whose counts changed since the last reset, as of the last
 * fold (collect_take_counts), *n of them; valid until the next fold or
 * reset. */
InstrRec **collect_touched(UInt *n);
/* n more goes to key. */
void collect_count_key(KeyCounts *k, UWord key, ULong n);

/* collect_pipe.c (docs/collector.md, "Analysis off the program's core") */
/* --augur-channel=BELL:INO,ANSWERS:INO,RING:INO; False when malformed. */
Bool collect_pipe_option(const HChar *value);
/* Take the channel the option names if it is there (else collector.channel
 * stays NULL: inline), out of the program's reach. */
void collect_pipe_init(void);
/* Give rec its id, with a channel. */
void collect_pipe_register(InstrRec *rec);
/* One record into the batch (rdpipe_proto.h), the batch published when
 * full (after a wait for room: a consumer gone ends the process). */
static inline void collect_pipe_put(Channel *ch, UInt instr, ULong addr, UInt size)
{
    vg_ring_put(&ch->ring, instr, addr, size);
}
/* Everything sent; the consumer's histograms since the last flush added
 * to the records' (rec->n.hist). */
void collect_pipe_flush(void);
/* Thread tid now runs; thread tid exited. */
void collect_pipe_thread(ThreadId tid);
void collect_pipe_thread_exit(ThreadId tid);
/* A fork: before it (the stacks fetched), in the parent after it, and in
 * the child, which goes on inline with copies of the stacks. */
void collect_pipe_fork_pre(void);
void collect_pipe_fork_parent(void);
void collect_pipe_fork_child(void);

/* collect_regions.c */
void collect_regions_init(void);
Bool collect_client_request(ThreadId tid, UWord *args, UWord *ret);
/* Does a superblock starting at `first` begin a region function (is the
 * entry of a function a --region-function pattern names), or an interval
 * function?  The index of the pattern, or -1. */
Int collect_region_fn_at(const InstrRec *first);
Int collect_interval_fn_at(const InstrRec *first);
/* What instrumented code calls: the thread entered a region function
 * (pattern index p) with stack pointer sp; entered an interval function;
 * returned with stack pointer sp above a region's or interval function's
 * entry. */
VG_REGPARM(2) void collect_on_region_enter(UWord p, UWord sp);
VG_REGPARM(2) void collect_on_interval_enter(UWord p, UWord sp);
VG_REGPARM(1) void collect_on_return(UWord sp);
/* Save and restore the region state of a thread at a switch. */
void collect_regions_save(ThreadState *t);
void collect_regions_load(const ThreadState *t);

/* collect_intervals.c */
typedef enum { CLOSED_BY_CALL, CLOSED_BY_DUMP, CLOSED_BY_END } ClosedBy;
/* End the interval being counted: closed by a call at `site` (the call
 * instruction, NULL when unknown), a DUMP_STATS request at `site`, or
 * the end of the process. */
void collect_close_interval(ClosedBy how, InstrRec *site);
/* At the end: write the process's profile, and with intervals theirs. */
void collect_finish_profiles(void);

/* collect_output.c: a profile of the instructions `rows` counts */
typedef struct ProfileRow {
    InstrRec *rec;
    InstrCounts *n;
} ProfileRow;
/* What an interval's profile says about it (the `interval` line). */
typedef struct IntervalInfo {
    ULong index, count; /* its first interval, and how many were summed */
    ClosedBy how;
    InstrRec *site;     /* the call or request that closed it; NULL if none */
} IntervalInfo;
/* Write augur.<pid>[.<token>].prof, or with `interval`
 * augur.<pid>[.<token>].i<index>.prof, of rows[0..n) (sorted here). */
void collect_write_profile(ProfileRow *rows, UInt n, const IntervalInfo *interval);

/* collect_comm.c: the MPI wrapper's client requests (True when args[0]
 * is one), and the profile's `mpi` line and `comm` lines */
Bool collect_comm_request(ThreadId tid, UWord *args, UWord *ret);
void collect_write_mpi(profile_writer *w);
void collect_write_comm(profile_writer *w);

/* collect_progress.c: progress lines in the Valgrind log (read by `augur
 * collect`); the clock is read every PROGRESS_BLOCKS dispatched blocks. */
#define PROGRESS_BLOCKS 50000
void collect_progress_init(void);
void collect_progress_check(void);
ULong collect_instructions_so_far(void); /* collect_runtime.c: executed so far, all threads */

#endif

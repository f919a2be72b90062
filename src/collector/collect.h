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

#include "rd/rd.h"
#include "vgcommon/vg_names.h"

#define AUGUR_TOOL_VERSION "0.1.0"
#define MAX_BLOCK_SIZES 8
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
    /* Folded from superblock counters at the end: */
    ULong execs, reads, writes, taken;
    /* Counted at run time by helpers: */
    ULong fast_path_misses; /* unguarded accesses that reached the helper */
    ULong guarded_reads, guarded_writes;
    KeyCounts targets; /* an indirect jump or call: its target addresses */
    KeyCounts callees; /* a call: the named functions it entered */
    /* The dominant address delta between this instruction's consecutive
     * accesses that reach a helper (collect_runtime.c, vote_stride):
     * Boyer-Moore's majority vote, with the deltas equal to the candidate
     * counted since it last became the candidate. */
    Bool has_last;         /* last_addr holds an access */
    Addr last_addr;
    Long stride;           /* the candidate */
    ULong stride_votes;    /* the vote's counter */
    ULong stride_count;    /* deltas equal to the candidate since it became one */
    ULong deltas;          /* all deltas */
    rd_hist hist[MAX_BLOCK_SIZES];
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
 * private cache). */
typedef struct ThreadState {
    rd_stack *stack[MAX_BLOCK_SIZES];
    ULong top_block; /* last block touched at the smallest block size */
    HWord pending_call; /* Collector.pending_call while another thread runs */
    HWord resolve_call; /* Collector.resolve_call while another thread runs */
    HWord signal_call;  /* pending_call while a signal handler runs */
} ThreadState;

typedef struct Collector {
    /* options */
    const HChar *out_dir;
    const HChar *run_token; /* NULL, or lowercase hex naming the profiles augur.<pid>.<token>.prof */
    UInt nblock_sizes;
    UInt block_size[MAX_BLOCK_SIZES]; /* ascending */
    UInt block_shift[MAX_BLOCK_SIZES];

    /* instruction table and interned names */
    VgHashTable *instrs; /* InstrRec by address */
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

    rd_allocator alloc;
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
VG_REGPARM(3) void collect_on_access(InstrRec *rec, Addr addr, UWord size);
VG_REGPARM(3) void collect_on_guarded_access(InstrRec *rec, Addr addr, UWord size_and_write);
VG_REGPARM(2) void collect_on_indirect(InstrRec *rec, Addr target);
VG_REGPARM(3) void collect_on_enter(InstrRec *call, InstrRec *entered, UWord is_entry);
void collect_runtime_init(void);
void collect_fold_counters(void);

/* collect_output.c */
void collect_write_profile(void);

/* collect_progress.c: progress lines in the Valgrind log (read by `augur
 * collect`); the clock is read every PROGRESS_BLOCKS dispatched blocks. */
#define PROGRESS_BLOCKS 50000
void collect_progress_init(void);
void collect_progress_check(void);
ULong collect_instructions_so_far(void); /* collect_runtime.c: executed so far, all threads */

#endif

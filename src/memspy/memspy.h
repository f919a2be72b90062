/* memspy.h — the memspy Valgrind tool: its data types and the state they
 * live in.
 *
 * memspy simulates the data references of a program through a machine's
 * cache hierarchy (src/cachesim/memsim.h) and charges every reference, miss,
 * miss cause and eviction to the pair (instruction, data object) that made
 * it, as MemSpy did (docs/memspy.md, "The Valgrind tool").  Files:
 *   memspy_main.c        registration with Valgrind, options, start and finish
 *   memspy_instrument.c  the IR pass: each load or store appends an entry to
 *                        the running thread's buffer, inline
 *   memspy_buffer.c      the per-thread buffers: switching, flushing, and
 *                        interleaving several threads' entries
 *   memspy_access.c      what a buffered reference costs when flushed: object
 *                        lookup, simulation, counting; time samples' starts
 *   memspy_objects.c     data objects: heap blocks (malloc replacement),
 *                        globals, stack frames, other; address -> object
 *   memspy_pairs.c       code locations, their (instruction, object) counters,
 *                        evictions and per-thread totals
 *   memspy_threads.c     Valgrind thread ids -> dense simulator threads
 *   memspy_output.c      the raw file (docs/memspy-format.md)
 *   memspy_progress.c    progress lines in the Valgrind log on long runs
 *   memspy_pipe.c        --augur-channel: the simulator in augur's consumer
 *                        process, fed through a ring of shared memory
 *   memspy_regions.c     regions of interest: the program's START/STOP client
 *                        requests and --instr-at-start
 *
 * No libc here: only VG_(...) functions.  Everything mutable lives in the
 * single Memspy instance `memspy` below.
 */
#ifndef AUGUR_MEMSPY_H
#define AUGUR_MEMSPY_H

#include "pub_tool_basics.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_wordfm.h"
#include "pub_tool_xarray.h"

#include "cachesim/memsim.h"
#include "cachesim/ms_counts.h"
#include "rd/rd.h"
#include "vgcommon/vg_names.h"
#include "vgcommon/vg_ring.h"

#define MEMSPY_VERSION "0.1.0"
#define MAX_LEVELS CS_MAX_LEVELS

/* Set sampling's random groups (memsim.h): a sampled line's group is
 * (addr >> Memspy.group_shift) % MEMSPY_GROUPS. */
#define MEMSPY_GROUPS MS_SET_GROUPS
#define MAX_SITE_FRAMES 8
#define FRAME_CACHE 1024 /* allocation-stack frames whose kind is cached (memspy_objects.c) */
#define MAX_VG_THREADS 512 /* above VG_N_THREADS (500) */
#define NO_OBJ UINT32_MAX

/* A buffered reference's `site` word: size*2+write in the bits from
 * REF_SITE_SHIFT up, the instruction's CodeRec* below (tool heap addresses
 * fit 48 bits on amd64), so the instrumented code stores one constant. */
#define REF_SITE_SHIFT 48
#define REF_CODE_MASK ((1ULL << REF_SITE_SHIFT) - 1)
#define REF_SAMPLE_MARK 0 /* a `site` that starts a new time sample */
/* Most references one reservation covers: buffers have this much room past
 * their end, since a superblock reserves room for its references (in
 * pieces of this many when it makes more: memspy_instrument.c). */
#define MEMSPY_SB_REFS 4096
/* Entries flushed between two readings of the clock for progress lines. */
#define PROGRESS_ENTRIES 65536

typedef enum { OBJ_HEAP, OBJ_GLOBAL, OBJ_STACK, OBJ_OTHER } ObjKind;

/* One frame of a heap object's allocation stack. */
typedef struct SiteFrame {
    Addr addr;
    VgCodeLoc loc;
} SiteFrame;

/* A data object: what references are charged to.  Its id is its index in
 * Memspy.objs and the tag the simulator keeps with its lines. */
typedef struct DataObj {
    ObjKind kind;
    HChar *name;
    ULong size;  /* heap: the most bytes live at once; global: symbol size; else 0 */
    ULong live;  /* heap: bytes live now */
    ULong count; /* heap: blocks allocated; otherwise 1 */
    UInt nframes;
    SiteFrame frames[MAX_SITE_FRAMES]; /* heap: innermost first */
} DataObj;

/* An address range known to belong to one object, kept in Memspy.ranges:
 * a live heap block, a global symbol, or memory that is neither. */
typedef struct Range {
    Addr start;
    SizeT len; /* >= 1 */
    UInt obj;
    Bool heap; /* a live heap block (removed by free) */
} Range;

/* The counters of one (instruction, object) pair. */
typedef struct PairRec {
    struct PairRec *next;
    UInt obj;
    ms_counts n; /* ms_counts.h */
    /* Per level, the eviction record this pair's misses counted last: a
     * miss usually evicts the object the previous one did, so most skip
     * the table lookup (memspy_pairs.c). */
    struct EvictRec *last_evict[MAX_LEVELS];
    /* Set sampling: misses per level and group, [level][group]; NULL until
     * the pair's first miss (and always without set sampling). */
    ULong (*group_miss)[MEMSPY_GROUPS];
} PairRec;

/* What memspy_objects.c knows of one return address of an allocation
 * stack: its FrameKind, found in debug-info epoch `epoch`. */
typedef struct FrameSlot {
    Addr ip;
    UInt epoch;
    UChar kind;
} FrameSlot;

/* One guest instruction that accesses memory, keyed by its address. */
typedef struct CodeRec {
    struct CodeRec *next; /* VgHashTable chaining; must come first */
    UWord addr;           /* the key */
    VgCodeLoc loc;
    PairRec *pairs; /* every object it referenced; most recent first */
    /* Last-hit cache of the address -> object lookup, valid while
     * hit_epoch == Memspy.epoch: [hit_lo, hit_hi) belongs to hit_obj. */
    Addr hit_lo, hit_hi;
    UInt hit_obj, hit_epoch;
    UInt stack_obj; /* "stack of <my function>", NO_OBJ until needed */
    UInt id;        /* with a channel: the consumer's name for it (memspy_pipe.c) */
} CodeRec;

/* (level, victim, evictor) -> count, in Memspy.evictions. */
typedef struct EvictRec {
    struct EvictRec *next;
    UWord key; /* level << 60 | victim << 30 | evictor */
    ULong count;
} EvictRec;

/* One reference made but not yet simulated (memspy_buffer.c). */
typedef struct RefEntry {
    UWord site; /* size_and_write << REF_SITE_SHIFT | (UWord)CodeRec* */
    Addr addr;
} RefEntry;

/* A thread's stack as Valgrind knows it: [lo, hi]. */
typedef struct StackRange {
    Addr lo, hi;
} StackRange;

/* The references a Valgrind thread made since the last flush. */
typedef struct RefBuf {
    RefEntry *start; /* NULL until the thread first runs */
    SizeT cap;       /* entries allocated, past the end in use: MEMSPY_SB_REFS */
    RefEntry *cur;   /* the next free entry (memspy.buf_cur while it runs) */
    UInt thread;     /* its simulator thread */
    StackRange stack; /* its stack when those references were made */
} RefBuf;

typedef ms_totals ThreadTotals; /* ms_counts.h */

typedef struct Memspy {
    /* options */
    const HChar *out_dir;
    HChar *level_name[MAX_LEVELS];
    ms_config config;
    ULong sample_on, sample_off; /* time sampling; sample_on == 0: off */
    Bool instr_at_start;         /* --instr-at-start: instrument from the start [yes] */

    /* regions of interest (memspy_regions.c) */
    Bool instrumenting; /* translations made now append references */
    Bool regions_used;  /* the instrumentation was off at some time */
    ULong regions;      /* stretches of the run instrumented so far */

    /* simulation */
    ms_sim *sim;
    rd_allocator alloc;
    Bool new_sample;  /* time sampling: the next simulated reference starts a sample
                         (set by a REF_SAMPLE_MARK entry) */
    ULong skipped;    /* references not simulated, as the flush counted them
                         (a whole OFF stretch at its marker); memspy_skipped() is exact */
    /* Read and written by the instrumented code itself, so that a reference
     * makes no helper call (memspy_instrument.c): */
    /* time sampling: references left in the current period of ON + OFF,
     * counting down to 1: above OFF the reference is simulated, at OFF it
     * is the OFF stretch's first (a sample marker), below it skipped */
    ULong sample_left;
    ULong set_refs;     /* set sampling alone: references made (the instrumented
                           code counts them), */
    ULong set_appended; /* and of them those appended, so simulated */
    UInt group_shift;   /* set sampling: log2(line * set_sample), see MEMSPY_GROUPS */
    RefEntry *buf_cur, *buf_end; /* the running thread's buffer: next entry, end */

    /* reference buffers (memspy_buffer.c) */
    Bool interleave;    /* merge several threads' entries at a flush */
    SizeT buf_entries;  /* per thread while several threads live (--buffer) */
    UInt sb_reserve;    /* references per reservation, 1..MEMSPY_SB_REFS (--sb-reserve) */
    RefBuf buf[MAX_VG_THREADS]; /* by Valgrind thread id */
    UInt buf_tids;      /* 1 + the highest thread id with a buffer */
    RefBuf *running;    /* the running thread's, NULL before the first */

    /* code */
    VgHashTable *codes; /* CodeRec by address */
    VgNames names;

    /* data objects */
    XArray *objs;      /* DataObj* by id */
    WordFM *ranges;    /* Range* (ordered, disjoint) -> unused */
    WordFM *heap_ids;  /* allocation ExeContext* -> id + 1 */
    WordFM *global_ids; /* symbol start address -> id + 1 */
    WordFM *stack_ids; /* function id + 1 -> id + 1 */
    UInt other_obj;    /* NO_OBJ until needed */
    /* Direct-mapped cache of frame kinds of allocation stacks (a malloc's
     * frames are asked again and again); zeroed: ip 0, FRAME_JUNK. */
    FrameSlot frame_kind[FRAME_CACHE];
    UInt epoch;        /* bumped when a range goes away: invalidates CodeRec caches */

    /* counters not kept per pair */
    VgHashTable *evictions; /* EvictRec */
    ThreadTotals thread[MS_MAX_THREADS];

    /* threads */
    UInt thread_of_tid[MAX_VG_THREADS]; /* dense simulator thread of a Valgrind tid */
    UInt threads_created;
    UInt threads_live;

    /* --augur-channel (memspy_pipe.c): the simulator runs in augur's
     * consumer; NULL: here (no channel given, a forked child) */
    VgRing *channel;
    XArray *code_by_id;  /* of CodeRec *, by CodeRec.id */
    UInt sent_thread;    /* the simulator thread the consumer was last told of */

    Bool simulate; /* --simulate=no: buffer references but simulate none and
                      write nothing (the instrumentation's own cost) */
    ULong unsimulated; /* entries dropped under --simulate=no */
    ULong unsimulated_in_sets; /* of those, the ones in the sampled sets */
    Bool exited;  /* the process called exit_group(exit_code) */
    Int exit_code;
    /* While the file is written before an execve: the program about to
     * replace this one (its `exec` line); NULL otherwise. */
    const HChar *exec_path;

    /* progress lines (memspy_progress.c); times in ms of
     * VG_(read_millisecond_timer) */
    UInt progress_interval; /* --progress-ms */
    UInt progress_start, progress_next;
    SizeT progress_entries; /* flushed since the clock was last read */
} Memspy;

extern Memspy memspy;

/* Is set sampling decided in the instrumented code (memspy_instrument.c),
 * counting references in set_refs?  Set sampling alone: with time sampling
 * the ON stretches count every reference, and the simulator skips the
 * other sets. */
static inline Bool memspy_sets_in_ir(void)
{
    return memspy.config.set_sample > 1 && !memspy.sample_on;
}

/* memspy_regions.c: set the region state from --instr-at-start (after the
 * options), and handle a client request: True when it was a START or STOP
 * of Callgrind or Cachegrind, which it obeys. */
void memspy_regions_init(void);
Bool memspy_client_request(ThreadId tid, UWord *args, UWord *ret);

/* memspy_instrument.c */
IRSB *memspy_instrument(VgCallbackClosure *closure, IRSB *sb_in, const VexGuestLayout *layout,
                        const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
                        IRType gWordTy, IRType hWordTy);

/* memspy_access.c */
/* Simulate and count the entries [from, to) of buffer b, in order. */
void memspy_simulate_run(const RefBuf *b, const RefEntry *from, const RefEntry *to);
/* Make the simulator; False (after a message) if the options describe a
 * hierarchy it refuses. */
Bool memspy_access_init(void);
/* References not simulated so far (time sampling's gaps, set sampling's
 * other sets). */
ULong memspy_skipped(void);
/* Zero the sampling counts, keeping the OFF stretch under way (a forked
 * child). */
void memspy_access_reset(void);

/* memspy_objects.c */
void memspy_objects_init(void); /* also registers the malloc replacement */
/* The object of `addr` when the instruction's caches cannot say. */
UInt memspy_stack_object(CodeRec *code);
UInt memspy_object_lookup(CodeRec *code, Addr addr);

/* The data object `addr` belongs to, referenced by `code` in a thread
 * whose stack is `stack`.  Inline: the flush loop's common cases are the
 * instruction's cached stack object or last hit (memspy_objects.c). */
static inline UInt memspy_object_of(CodeRec *code, Addr addr, const StackRange *stack)
{
    if (addr >= stack->lo && addr <= stack->hi)
        return LIKELY(code->stack_obj != NO_OBJ) ? code->stack_obj : memspy_stack_object(code);
    if (LIKELY(code->hit_epoch == memspy.epoch && addr - code->hit_lo < code->hit_hi - code->hit_lo))
        return code->hit_obj;
    return memspy_object_lookup(code, addr);
}
DataObj *memspy_obj(UInt id);
UInt memspy_nobjs(void);

/* memspy_pairs.c */
void memspy_pairs_init(void);
CodeRec *memspy_code(Addr addr); /* find or create, with names */
void memspy_count(CodeRec *code, UInt obj, UInt thread, Bool is_write, Addr addr, const ms_result *r);
/* Count one reference of pair p, made by the thread whose totals are t:
 * all that memspy_count does for a first-level hit whose outcome is
 * certain, inline so that the usual reference makes no call. */
static inline void memspy_count_ref(PairRec *p, ThreadTotals *t, Bool is_write)
{
    ms_count_ref(&p->n, t, is_write);
}
void memspy_pairs_reset(void); /* zero every counter (a forked child) */
/* Add counts n (and, when not NULL, misses per level and set-sampling
 * group) to the pair (code, obj): what augur's consumer counted. */
void memspy_pairs_merge(CodeRec *code, UInt obj, const ms_counts *n, const ULong (*groups)[MEMSPY_GROUPS]);
/* Add count evictions to key (ms_evict_key). */
void memspy_evictions_add(UWord key, ULong count);

/* memspy_pipe.c (docs/memspy.md, "Simulation off the program's core") */
/* --augur-channel=BELL:INO,ANSWERS:INO,RING:INO; False when malformed. */
Bool memspy_pipe_option(const HChar *value);
/* Take the channel the option names if it is there (else memspy.channel
 * stays NULL: inline), and send the simulator's configuration. */
void memspy_pipe_init(void);
/* Give code its id, with a channel. */
void memspy_pipe_register(CodeRec *code);
/* Send the entries [from, to) of buffer b, with their objects. */
void memspy_pipe_run(const RefBuf *b, const RefEntry *from, const RefEntry *to);
/* Everything sent; the consumer's counts since the last flush added to
 * the pairs, evictions, threads and skipped references. */
void memspy_pipe_flush(void);
/* A forked child: let go of the channel and simulate inline. */
void memspy_pipe_fork_child(void);

/* memspy_buffer.c */
/* Make Valgrind thread `tid` (simulator thread `thread`, stack `stack`) the
 * running one: its buffer receives the instrumented code's entries.
 * Flushes first when its pending entries could no longer be simulated as
 * they were made (its stack moved, --interleave=no and another thread has
 * entries, or the buffer must grow). */
void memspy_buffer_switch(ThreadId tid, UInt thread, StackRange stack);
/* Simulate every pending entry of every thread, in order per thread and,
 * when several threads have some, interleaved evenly (docs/memspy.md,
 * "Threads"); all buffers are then empty. */
void memspy_flush(void);

/* memspy_threads.c */
void memspy_threads_init(void);
Bool memspy_threads_folded(void); /* more than MS_MAX_THREADS threads */

/* memspy_progress.c */
void memspy_progress_init(void);
/* Read the clock; write a progress line if one is due. */
void memspy_progress_check(void);
/* Count `entries` flushed; now and then check whether a progress line is
 * due.  Inline: called at every flush. */
static inline void memspy_progress_count(SizeT entries)
{
    memspy.progress_entries += entries;
    if (UNLIKELY(memspy.progress_entries >= PROGRESS_ENTRIES))
        memspy_progress_check();
}

/* memspy_output.c */
void memspy_write_output(void);
/* Write the file as at exit, with an `exec PATH` line, before this process
 * execs `path`: Valgrind (--trace-children=no) runs the new program
 * natively and this tool never sees an exit.  If the exec fails, the file
 * written at exit replaces this one. */
void memspy_write_before_exec(const HChar *path);

#endif

/* collect_comm.c — the program's MPI calls, as augur's MPI wrapper
 * (src/mpiwrap/augur_mpi.c) reports them by client requests
 * (docs/collector.md, "MPI calls").
 *
 * MPI_Init's request gives the process's rank and the rank count (the
 * profile's `mpi` line).  Each call's request gives the function, the peer,
 * the communicator and the bytes; the tool adds what only it knows: the
 * call stack as function names (Valgrind's unwinder and debug info: static
 * functions included) with the file and line of the call, and the interval
 * the call closed (when an --interval-functions pattern named the MPI
 * function or a function that called it).  Calls alike in all of these are
 * summed into one record, a `comm` line of the process's profile: a run
 * without intervals has one per call site, peer and communicator, a run
 * with intervals one per call.
 */
#include "pub_tool_basics.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_xarray.h"

#include "collector/collect.h"
#include "mpiwrap/augur_mpi_requests.h"

#define MAX_COMM_DEPTH 8 /* callers kept per call, innermost first */

/* Calls alike in everything from `fn` to `frames` (compared as bytes: the
 * records are made zeroed, padding included). */
typedef struct CommRec {
    struct CommRec *next; /* VgHashTable chaining; must come first */
    UWord key;            /* a hash of the fields below up to `calls` */
    Int fn;               /* the MPI function (an interned name) */
    Long peer, comm, interval;
    Int file;             /* the call's file and line, in frames[0] */
    UInt line;
    UInt depth;
    Int frames[MAX_COMM_DEPTH]; /* the callers, innermost first */
    ULong calls, sent, received;
} CommRec;

#define COMM_KEY_BYTES (__builtin_offsetof(CommRec, calls) - __builtin_offsetof(CommRec, fn))

static Word same_call(const void *a, const void *b)
{
    return VG_(memcmp)(&((const CommRec *)a)->fn, &((const CommRec *)b)->fn, COMM_KEY_BYTES);
}

static UWord hash_call(const CommRec *r)
{
    const UChar *p = (const UChar *)&r->fn;
    UWord h = 14695981039346656037UL; /* FNV-1a */
    for (SizeT i = 0; i < COMM_KEY_BYTES; i++)
        h = (h ^ p[i]) * 1099511628211UL;
    return h;
}

/* The callers of the MPI function thread tid is in: ips[0] is in the
 * wrapper's function (the request is made in its frame), ips[1..] the
 * return addresses, whose call instructions end a byte before.  Frames
 * end at main, or at code without a name. */
static void fill_stack(ThreadId tid, CommRec *r)
{
    Addr ips[MAX_COMM_DEPTH + 1];
    UInt n = VG_(get_StackTrace)(tid, ips, MAX_COMM_DEPTH + 1, NULL, NULL, 0);
    for (UInt i = 1; i < n; i++) {
        VgCodeLoc loc = vgn_code_loc(&collector.names, ips[i] - 1);
        if (loc.fn < 0)
            break;
        if (i == 1)
            r->file = loc.file, r->line = loc.line;
        r->frames[r->depth++] = loc.fn;
        if (!VG_(strcmp)(vgn_fn_name(&collector.names, loc.fn), "main"))
            break;
    }
}

/* Add one call to its record. */
static void add_call(ThreadId tid, const UWord *args)
{
    Collector *c = &collector;
    if (!c->comm_recs) {
        c->comm_recs = VG_(HT_construct)("augur.comm");
        c->comm_order = VG_(newXA)(VG_(malloc), "augur.comm.order", VG_(free), sizeof(CommRec *));
    }
    CommRec *r = VG_(calloc)("augur.comm.rec", 1, sizeof *r);
    r->fn = vgn_fn(&c->names, (const HChar *)args[1]);
    r->peer = (Long)args[2];
    r->comm = (Long)args[3];
    /* inside an interval function's call, the call closed interval
     * intervals_closed - 1 (collect_on_interval_enter counted it) */
    r->interval = c->skip_sp && c->intervals_closed ? (Long)c->intervals_closed - 1 : -1;
    r->file = -1;
    fill_stack(tid, r);
    r->key = hash_call(r);
    CommRec *old = VG_(HT_gen_lookup)(c->comm_recs, r, same_call);
    if (old) {
        VG_(free)(r);
        r = old;
    } else {
        VG_(HT_add_node)(c->comm_recs, r);
        VG_(addToXA)(c->comm_order, &r);
    }
    r->calls++;
    r->sent += args[4];
    r->received += args[5];
}

Bool collect_comm_request(ThreadId tid, UWord *args, UWord *ret)
{
    Collector *c = &collector;
    if (args[0] == AUGUR_MPI_INIT) {
        c->mpi_rank = (Long)args[1];
        c->mpi_size = (Long)args[2];
        c->mpi_init = True;
    } else if (args[0] == AUGUR_MPI_CALL)
        add_call(tid, args);
    else
        return False;
    *ret = 1;
    return True;
}

void collect_write_mpi(profile_writer *w)
{
    Collector *c = &collector;
    if (!c->mpi_init)
        return;
    pw_key(w, "mpi");
    pw_u64(w, (ULong)c->mpi_rank);
    pw_u64(w, (ULong)c->mpi_size);
    pw_eol(w);
}

void collect_write_comm(profile_writer *w)
{
    Collector *c = &collector;
    for (Word i = 0; c->comm_order && i < VG_(sizeXA)(c->comm_order); i++) {
        const CommRec *r = *(CommRec **)VG_(indexXA)(c->comm_order, i);
        pw_key(w, "comm");
        pw_i64(w, r->fn);
        pw_i64(w, r->peer);
        pw_i64(w, r->comm);
        pw_i64(w, r->interval);
        pw_u64(w, r->calls);
        pw_u64(w, r->sent);
        pw_u64(w, r->received);
        pw_i64(w, r->file);
        pw_u64(w, r->line);
        pw_u64(w, r->depth);
        for (UInt k = 0; k < r->depth; k++)
            pw_i64(w, r->frames[k]);
        pw_eol(w);
    }
}

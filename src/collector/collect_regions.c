/* collect_regions.c — what the augur tool counts: regions of the run
 * (docs/collector.md, "Regions and intervals").
 *
 * Two mechanisms, as Callgrind has them:
 *   - The program's client requests (<valgrind/callgrind.h>):
 *     STOP_INSTRUMENTATION discards every translation and makes the next
 *     ones plain (the program runs as under --tool=none: nothing counted,
 *     no reuse distance measured, the LRU stacks keep what they held);
 *     START_INSTRUMENTATION instruments again; --instr-at-start=no starts
 *     stopped.  ZERO_STATS drops what was counted so far; DUMP_STATS closes
 *     an interval (collect_intervals.c).
 *   - Functions (--augur-region-fn=GLOB, --augur-interval-fn=GLOB): the
 *     superblock at the entry of a function a pattern names calls a helper
 *     that notes the stack pointer; a return that leaves the stack pointer
 *     above it ends the call.  Counts are taken only inside region
 *     functions (when any are given) and never inside interval functions
 *     (whose calls close intervals): every counter update is gated by
 *     `collector.counting` (collect_instrument.c), and the helpers record
 *     no histogram, target or call while it is 0.  Accesses outside still
 *     go through the LRU stacks, so distances inside a region see the data
 *     the program touched before it, as a cache would.
 * Only the outermost call counts: a recursive call, or an interval
 * function called by another, changes nothing.  A longjmp out of a call
 * ends it at the next return above its frame.
 */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"
#include "pub_tool_seqmatch.h"

#include "collector/collect.h"
#include "vgcommon/vg_regions.h"

void collect_regions_init(void)
{
    Collector *c = &collector;
    c->instrumenting = c->instr_at_start;
    c->gated = c->nregion_fns > 0 || c->ninterval_fns > 0;
    c->counting = c->nregion_fns == 0;
}

/* Turn the instrumentation on or off; nothing when it already is. */
static void set_instrumenting(Bool on)
{
    Collector *c = &collector;
    if (c->instrumenting == on)
        return;
    vgr_discard_all("augur");
    c->instrumenting = on;
    if (on)
        c->starts++;
    else
        c->stops++;
}

/* The instruction of the client request the thread is at (its IMark was
 * instrumented, so it has a record), or NULL. */
static InstrRec *request_site(ThreadId tid)
{
    return VG_(HT_lookup)(collector.instrs, VG_(get_IP)(tid));
}

Bool collect_client_request(ThreadId tid, UWord *args, UWord *ret)
{
    if (collect_comm_request(tid, args, ret))
        return True;
    switch (vgr_request(args[0])) {
    case VGR_START:
        set_instrumenting(True);
        break;
    case VGR_STOP:
        set_instrumenting(False);
        break;
    case VGR_ZERO:
        collect_take_counts();
        collect_reset_counts();
        collector.zeros++;
        break;
    case VGR_DUMP:
        collector.dumps++;
        collect_close_interval(CLOSED_BY_DUMP, request_site(tid));
        break;
    default:
        return False; /* not ours: Valgrind says so once */
    }
    *ret = 0;
    return True;
}

/* The index of the first of pats[0..n) that names the function whose
 * entry `first` is, or -1. */
static Int pattern_at(const FnPattern *pats, UInt n, const InstrRec *first)
{
    const HChar *name;
    if (!n || first->fn < 0 || !VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), first->addr, &name))
        return -1;
    name = vgn_fn_name(&collector.names, first->fn); /* the name the profile gives it */
    for (UInt i = 0; i < n; i++)
        if (VG_(string_match)(pats[i].glob, name))
            return (Int)i;
    return -1;
}

Int collect_region_fn_at(const InstrRec *first)
{
    return pattern_at(collector.region_fn, collector.nregion_fns, first);
}

Int collect_interval_fn_at(const InstrRec *first)
{
    return pattern_at(collector.interval_fn, collector.ninterval_fns, first);
}

/* Counts are taken when in a region function (or none is given) and not
 * in an interval function. */
static void update_counting(void)
{
    Collector *c = &collector;
    c->counting = (c->nregion_fns == 0 || c->region_sp != 0) && c->skip_sp == 0;
}

VG_REGPARM(2) void collect_on_region_enter(UWord p, UWord sp)
{
    Collector *c = &collector;
    if (c->region_sp)
        return; /* a call inside the region's call */
    c->region_sp = sp;
    c->region_fn[p].entries++;
    update_counting();
}

/* The call instruction that the return address `ret` follows: executed,
 * so it has a record; NULL when none ends there (a jump reached the
 * function, or the return address is not a call's). */
static InstrRec *call_before(Addr ret)
{
    for (UInt len = 2; len <= 15 && len <= ret; len++) {
        InstrRec *rec = VG_(HT_lookup)(collector.instrs, ret - len);
        if (rec && rec->len == len)
            return rec;
    }
    return NULL;
}

VG_REGPARM(2) void collect_on_interval_enter(UWord p, UWord sp)
{
    Collector *c = &collector;
    if (c->skip_sp)
        return; /* called by an interval function */
    c->interval_fn[p].entries++;
    collect_close_interval(CLOSED_BY_CALL, call_before(*(Addr *)sp));
    c->skip_sp = sp;
    update_counting();
}

VG_REGPARM(1) void collect_on_return(UWord sp)
{
    Collector *c = &collector;
    if (c->region_sp && sp > c->region_sp)
        c->region_sp = 0;
    if (c->skip_sp && sp > c->skip_sp)
        c->skip_sp = 0;
    update_counting();
}

void collect_regions_save(ThreadState *t)
{
    t->counting = collector.counting;
    t->region_sp = collector.region_sp;
    t->skip_sp = collector.skip_sp;
}

void collect_regions_load(const ThreadState *t)
{
    collector.counting = t->counting;
    collector.region_sp = t->region_sp;
    collector.skip_sp = t->skip_sp;
}

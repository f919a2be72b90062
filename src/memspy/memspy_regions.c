/* memspy_regions.c — regions of interest: the program turns memspy's
 * instrumentation on and off with the client requests programs already
 * carry for Callgrind (CALLGRIND_START_INSTRUMENTATION and _STOP_, from
 * <valgrind/callgrind.h>) or Cachegrind (CACHEGRIND_START_INSTRUMENTATION
 * and _STOP_, Valgrind 3.22's <valgrind/cachegrind.h>), and
 * --instr-at-start=no starts with it off (docs/memspy.md, "Regions of
 * interest").
 *
 * Outside a region the program runs uninstrumented, as under --tool=none:
 * nothing is simulated or counted.  The caches keep what they held at the
 * region's end, as Cachegrind's do; the heap is still tracked, so memory
 * allocated outside a region is named inside it.
 *
 * Switching discards every translation, after simulating what is buffered.
 * It cannot be done anywhere else: Valgrind allows a tool
 * VG_(discard_translations_safely) in its client-request handler alone. */
#include "pub_tool_basics.h"
#include "pub_tool_clreq.h"
#include "pub_tool_transtab.h"

#include "callgrind.h"

#include "memspy.h"

/* Valgrind 3.22's cachegrind.h, which 3.19 does not ship: its two requests. */
#define CG_START_INSTRUMENTATION VG_USERREQ_TOOL_BASE('C', 'G')
#define CG_STOP_INSTRUMENTATION (VG_USERREQ_TOOL_BASE('C', 'G') + 1)

void memspy_regions_init(void)
{
    memspy.instrumenting = memspy.instr_at_start;
    memspy.regions = memspy.instr_at_start ? 1 : 0;
    memspy.regions_used = !memspy.instr_at_start;
}

/* Turn the instrumentation on or off; nothing when it already is. */
static void set_instrumenting(Bool on)
{
    if (memspy.instrumenting == on)
        return;
    memspy_flush(); /* the entries buffered so far belong to the region */
    VG_(discard_translations_safely)((Addr)0x1000, ~(SizeT)0xfff, "memspy");
    memspy.instrumenting = on;
    if (on)
        memspy.regions++;
    else
        memspy.regions_used = True;
}

Bool memspy_client_request(ThreadId tid, UWord *args, UWord *ret)
{
    (void)tid;
    switch (args[0]) {
    case VG_USERREQ__START_INSTRUMENTATION:
    case CG_START_INSTRUMENTATION:
        set_instrumenting(True);
        break;
    case VG_USERREQ__STOP_INSTRUMENTATION:
    case CG_STOP_INSTRUMENTATION:
        set_instrumenting(False);
        break;
    default:
        return False; /* not ours: Valgrind says so once */
    }
    *ret = 0;
    return True;
}

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

#include "memspy.h"
#include "vgcommon/vg_regions.h"

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
    vgr_discard_all("memspy");
    memspy.instrumenting = on;
    if (on)
        memspy.regions++;
    else
        memspy.regions_used = True;
}

Bool memspy_client_request(ThreadId tid, UWord *args, UWord *ret)
{
    (void)tid;
    switch (vgr_request(args[0])) {
    case VGR_START:
        set_instrumenting(True);
        break;
    case VGR_STOP:
        set_instrumenting(False);
        break;
    default:
        return False; /* not ours (ZERO_STATS, DUMP_STATS too): Valgrind says so once */
    }
    *ret = 0;
    return True;
}

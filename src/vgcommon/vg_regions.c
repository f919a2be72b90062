/* vg_regions.c — the client requests that mark regions of interest; see
 * vg_regions.h. */
#include "pub_tool_basics.h"
#include "pub_tool_clreq.h"
#include "pub_tool_transtab.h"

#include "callgrind.h"

#include "vgcommon/vg_regions.h"

/* Valgrind 3.22's cachegrind.h, which 3.19 does not ship: its two requests. */
#define CG_START_INSTRUMENTATION VG_USERREQ_TOOL_BASE('C', 'G')
#define CG_STOP_INSTRUMENTATION (VG_USERREQ_TOOL_BASE('C', 'G') + 1)

VgRegionRequest vgr_request(UWord code)
{
    switch (code) {
    case VG_USERREQ__START_INSTRUMENTATION:
    case CG_START_INSTRUMENTATION:
        return VGR_START;
    case VG_USERREQ__STOP_INSTRUMENTATION:
    case CG_STOP_INSTRUMENTATION:
        return VGR_STOP;
    case VG_USERREQ__ZERO_STATS:
        return VGR_ZERO;
    case VG_USERREQ__DUMP_STATS:
    case VG_USERREQ__DUMP_STATS_AT:
        return VGR_DUMP;
    default:
        return VGR_OTHER;
    }
}

void vgr_discard_all(const HChar *who)
{
    VG_(discard_translations_safely)((Addr)0x1000, ~(SizeT)0xfff, who);
}

/* vg_regions.h — the client requests by which a program marks what a tool
 * should measure, shared by augur's Valgrind tools (src/collector,
 * src/memspy): those of <valgrind/callgrind.h> (START/STOP_INSTRUMENTATION,
 * ZERO_STATS, DUMP_STATS, DUMP_STATS_AT) and of Valgrind 3.22's
 * <valgrind/cachegrind.h> (START/STOP_INSTRUMENTATION), and switching the
 * instrumentation on or off.  Valgrind-only (VG_(...) functions).
 */
#ifndef AUGUR_VG_REGIONS_H
#define AUGUR_VG_REGIONS_H

#include "pub_tool_basics.h"

typedef enum {
    VGR_OTHER, /* not a region request */
    VGR_START, /* START_INSTRUMENTATION (Callgrind's or Cachegrind's) */
    VGR_STOP,  /* STOP_INSTRUMENTATION */
    VGR_ZERO,  /* ZERO_STATS */
    VGR_DUMP   /* DUMP_STATS or DUMP_STATS_AT */
} VgRegionRequest;

/* Which region request the client request code args[0] is. */
VgRegionRequest vgr_request(UWord code);

/* Discard every translation, so that code runs next as the tool now
 * instruments it (on or off).  Only in a client-request handler: Valgrind
 * allows VG_(discard_translations_safely) nowhere else.  `who` names the
 * tool in Valgrind's debug output. */
void vgr_discard_all(const HChar *who);

#endif

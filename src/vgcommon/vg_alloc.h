/* vg_alloc.h — an rd_allocator (rd/rd.h) on Valgrind's tool heap, for the
 * freestanding simulators (src/rd, src/cachesim) compiled into augur's
 * Valgrind tools.  Valgrind-only (VG_(...) functions). */
#ifndef AUGUR_VG_ALLOC_H
#define AUGUR_VG_ALLOC_H

#include "pub_tool_basics.h"

#include "rd/rd.h"

/* An allocator whose blocks come from VG_(malloc) under the cost centre
 * `cc` (a static string: it is kept, not copied). */
rd_allocator vg_rd_allocator(const HChar *cc);

#endif

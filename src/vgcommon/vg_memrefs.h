/* vg_memrefs.h — the memory references of a VEX IR statement, as both of
 * augur's Valgrind tools (src/collector, src/memspy) must see them: plain
 * and guarded loads and stores, the declared effects of dirty helpers,
 * compare-and-swap (a read and a write) and load-linked/store-conditional.
 * Valgrind-only: uses VEX's IR, no libc.
 */
#ifndef AUGUR_VG_MEMREFS_H
#define AUGUR_VG_MEMREFS_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

/* One reference of `size` bytes at `addr`; `guard` is NULL when the
 * reference always happens, else the IR condition under which it does. */
typedef void (*VgMemRefFn)(void *ctx, IRExpr *addr, Int size, Bool is_write, IRExpr *guard);

/* Call on_ref(ctx, ...) for each reference statement `st` of superblock
 * `in` makes, in the order it makes them (a CAS's read before its write).
 * Statements that touch no memory make no call. */
void vg_memrefs(IRSB *in, IRStmt *st, VgMemRefFn on_ref, void *ctx);

#endif

/* vg_names.h — interned names of code locations, shared by augur's Valgrind
 * tools (src/collector, src/memspy).
 *
 * Both raw formats (docs/profile-format.md, docs/memspy-format.md) list each
 * module, function and file once (`module ID PATH BIAS`, `fn ID NAME`,
 * `file ID PATH`) and refer to them by id; this table hands out those ids and
 * writes those lines.  Valgrind-only: uses VG_(...) functions, no libc.
 */
#ifndef AUGUR_VG_NAMES_H
#define AUGUR_VG_NAMES_H

#include "pub_tool_basics.h"
#include "pub_tool_wordfm.h"
#include "pub_tool_xarray.h"

#include "profile/profile_writer.h"

typedef struct VgNames {
    WordFM *module_ids, *fn_ids, *file_ids; /* name -> id + 1 */
    XArray *module_names, *module_bias, *fn_names, *file_names;
} VgNames;

/* Where a code address is, as ids into a VgNames (-1 and line 0: unknown). */
typedef struct VgCodeLoc {
    Int module, fn, file;
    UInt line;
} VgCodeLoc;

/* Make `n` an empty table. */
void vgn_init(VgNames *n);

/* The id of the module (object file and load bias) holding `addr`, adding
 * it if new, or -1 if `addr` lies in no object; *bias_out gets the bias (0
 * when none).  The same file mapped twice at different places is two
 * modules, since addresses are written module-relative. */
Int vgn_module(VgNames *n, Addr addr, Addr *bias_out);

/* Module, function, file and line of the code address `addr`, from
 * Valgrind's debug info as it is now. */
VgCodeLoc vgn_code_loc(VgNames *n, Addr addr);

/* The interned id of a function name (adding it if new). */
Int vgn_fn(VgNames *n, const HChar *name);

/* Name of function id `fn` ("" for -1). */
const HChar *vgn_fn_name(const VgNames *n, Int fn);

/* Write the `module`, `fn` and `file` lines of every name so far. */
void vgn_write(const VgNames *n, profile_writer *w);

/* Write the two fields MODULE ADDR-hex: `addr` relative to its module's
 * bias when module >= 0, absolute otherwise. */
void vgn_write_location(const VgNames *n, profile_writer *w, Int module, Addr addr);

#endif

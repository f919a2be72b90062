/* memspy_loops.h — what the structure analysis of a raw file's modules
 * gives memspy's report: the loops of its code locations (memspy_loops.c),
 * the variables its heap objects are stored in (memspy_varnames.c) and the
 * Fortran names of its globals (memspy_globals.c). */
#ifndef AUGUR_MEMSPY_LOOPS_H
#define AUGUR_MEMSPY_LOOPS_H

#include <stdio.h>

#include "memspy_report/memspy_report.h"

struct st_module;

typedef struct mr_loops {
    const memspy_raw *raw;
    struct st_module **mods; /* per raw module; NULL: not analysed */
} mr_loops;

/* Analyse the modules of r that carry at least 1% of its references.  A
 * module that cannot be analysed is skipped with a line on `warn` (may be
 * NULL): its code then has functions and lines but no loops.  -1 only
 * when memory runs out. */
int mr_loops_load(mr_loops *l, const memspy_raw *r, FILE *warn);

/* An mr_loops_fn: ctx is an mr_loops. */
size_t mr_loops_names(void *ctx, size_t code, const char **names, size_t max);

/* memspy_varnames.c: rename each heap object of r whose allocation site
 * lies in an analysed module to the variable that receives the allocation
 * (st_call_receiver) in the user's code, as MemSpy did; "VAR (SITE)" when
 * another object has the same name; objects whose variable is not found
 * keep their site name, in the user's terms: the user's line for an
 * allocation in system-header code (whose innermost frame moves there when
 * that code was inlined), MODULE+0xOFF in code of no symbol.  Then every
 * name is made unique (mr_unique_names).  -1 only when memory runs out. */
int mr_loops_name_heap(const mr_loops *l, memspy_raw *r);

/* memspy_globals.c: rename r's Fortran globals as Fortran writes them: a
 * module variable "__state_MOD_w" as "state::w", a COMMON block's symbol
 * "fields_" as "/fields/" when an analysed module's DWARF says it is one
 * ("//" for blank COMMON).  Call before mr_loops_name_heap, which makes
 * the names unique.  -1 only when memory runs out. */
int mr_loops_name_globals(const mr_loops *l, memspy_raw *r);

void mr_loops_free(mr_loops *l);

#endif

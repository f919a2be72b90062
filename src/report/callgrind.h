/* callgrind.h — a report's costs as a call graph in Callgrind's file format
 * (https://valgrind.org/docs/manual/cl-format.html), so that KCachegrind
 * and callgrind_annotate show what augur measured or predicted
 * (`augur report --format callgrind`, `augur predict --format callgrind`;
 * docs/exports.md).
 *
 *   callgraph.c       the graph: functions, their lines, events, calls;
 *                     the inclusive costs of calls (cg_inclusive)
 *   callgrind_write.c whole-number costs and the file
 *
 * The functions are a report's function rows and their costs the rows'
 * (so callgrind_annotate's per-function figures are augur's); the lines of
 * a function are the report's line rows of its name, scaled to the row and
 * rounded so that they add up to it.  A call's inclusive cost is a share
 * of its callee's: each call of a function is taken to cost the same, as
 * gprof takes it (docs/exports.md, "Inclusive costs"). */
#ifndef AUGUR_CALLGRIND_H
#define AUGUR_CALLGRIND_H

#include <stdio.h>

#include "report/report.h"

#define CG_MAX_EVENTS 24
#define CG_EVENT_NAME 24

typedef struct cg_graph cg_graph;

/* A new graph of the function and line rows of r (which must outlive it)
 * with the events Ir (instructions), Acc (accesses) and one per cache of r
 * (its misses); NULL when memory runs out. */
cg_graph *cg_new(const report *r);
void cg_free(cg_graph *g);

/* One more event (at most CG_MAX_EVENTS): `name` (letters, digits, '_';
 * others become '_'), what it counts for people, its value for the whole
 * program (the file's totals), for each function row (per_function[i] for
 * r->functions[i]) and each line row (per_line[k] for r->lines[k]), or,
 * with per_line NULL, a function's value shared among its lines by their
 * instructions.  -1 when there is no room or memory runs out. */
int cg_add_event(cg_graph *g, const char *name, const char *description, double total, const double *per_function,
                 const double *per_line);

/* `calls` calls from the function (caller, caller_module) at source line
 * file:line to the function (callee, callee_module); NULL names are
 * unknown.  Calls between functions that are not rows of r are left out
 * (returns 1); 0 when added, -1 when memory runs out. */
int cg_add_call(cg_graph *g, const char *caller, const char *caller_module, const char *file, uint32_t line,
                const char *callee, const char *callee_module, double calls);

#define CG_MAX_DESC 4

/* The file's header: the command it profiles and lines describing it
 * ("Run: 3, complete, N=100"); longer text is cut. */
typedef struct cg_header {
    char cmd[4096];
    size_t ndesc;
    char desc[CG_MAX_DESC][512];
} cg_header;

/* The header of a run's file: its command, the run, its parameters and
 * `what` (how its costs were got). */
void cg_header_run(const db_run *run, const char *what, cg_header *h);

/* One more description line (dropped beyond CG_MAX_DESC). */
__attribute__((format(printf, 2, 3))) void cg_header_add(cg_header *h, const char *fmt, ...);

/* The measured calls of run `run_id` into g; *added of them.  -1 with a
 * message on a database error. */
int cg_add_run_calls(cg_graph *g, db *d, int64_t run_id, size_t *added, char *err, size_t errlen);

/* Write the graph: the header, per function its object (ob=), file (fl=,
 * fi= for lines in other files), name (fn=) and one cost line per source
 * line, then its calls (cfi=, cfn=, calls=, the inclusive cost), and the
 * program's totals (rounded; the functions' rounded costs may add up to a
 * little more or less, as augur's rows do).  0, or -1 on a write error or
 * when memory runs out. */
int cg_write(cg_graph *g, const cg_header *h, FILE *out);

/* ---- inclusive costs (callgraph.c) ---------------------------------------- */

/* A call arc for cg_inclusive: calls from function `caller` to `callee`. */
typedef struct cg_arc {
    size_t caller, callee;
    double calls;
} cg_arc;

/* The inclusive cost of each arc, for nev events: cost[a * nev + e].  A
 * function's inclusive cost is its self cost (self[f * nev + e]) plus the
 * costs of its arcs; an arc into a function costs its share of the
 * callee's inclusive cost by calls, the callee's calls counted over all
 * arcs into it.  Recursion: the functions of a cycle (a strongly connected
 * part of the graph) are costed as one, and arcs within it cost nothing
 * (as gprof's arcs inside a cycle).  -1 when memory runs out. */
int cg_inclusive(size_t nfunctions, size_t nev, const double *self, size_t narcs, const cg_arc *arcs,
                 double *cost);

#endif

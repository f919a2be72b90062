/* predict_callgrind.h — what a prediction, or a measured run through the
 * machine models (`augur report --machine`), adds to its call graph for
 * `--format callgrind` (report/callgrind.h, docs/exports.md). */
#ifndef AUGUR_PREDICT_CALLGRIND_H
#define AUGUR_PREDICT_CALLGRIND_H

#include "predict/predict_perf.h"
#include "report/callgrind.h"

/* The machine's events: the misses of each cache level (Lnm, per function
 * and per line, attributed as `--machine` attributes them) and the cycles
 * (Cyc: per function; a function's lines share its cycles by their
 * instructions, since the model times loops and functions, not lines).
 * -1 when memory runs out. */
int predict_callgrind_machine(cg_graph *g, const prediction *p, const predict_perf *pp);

/* The predicted calls: those of the runs p's models were fitted on, each
 * call instruction's at its predicted executions (the model of its block:
 * a call enters a function every time it executes), shared among the
 * functions it entered by their share of its executions in those runs.
 * *added gets the number of calls added; 0 when the runs were collected
 * before calls were recorded.  -1 with a message on a database error. */
int predict_callgrind_calls(db *d, prediction *p, cg_graph *g, size_t *added, char *err, size_t errlen);

/* Write rep (a run's report, or p's) as a Callgrind file with header h:
 * with pp, the machine's events (p is the prediction, or the measured run
 * predict_from_run made); the calls of `run` when given, else p's
 * predicted calls.  When there are none (runs collected before calls were
 * recorded) a warning naming `command` on stderr says so.  -1 with a
 * message on a database or write error. */
int predict_callgrind_write(db *d, const report *rep, prediction *p, const predict_perf *pp, const db_run *run,
                            const cg_header *h, const char *command, FILE *out, char *err, size_t errlen);

#endif

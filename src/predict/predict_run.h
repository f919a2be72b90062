/* predict_run.h — a measured run as the input of the machine models
 * (`augur report --machine`): the run's report and loop scopes in a
 * prediction struct, and its measured histograms and executions as
 * predict_perf_evaluate's input (predict_run.c). */
#ifndef AUGUR_PREDICT_RUN_H
#define AUGUR_PREDICT_RUN_H

#include "predict/predict_perf.h"
#include "report/report.h"

/* Fill *p (its rep: run's report without caches; set.program and
 * block_sizes: the run's; scopes: every executed scope of t, the program's
 * stored scope tree, with the run's counts) and *in (one group per
 * instruction histogram of the run at each block size, its distribution
 * from perf_rd_dist_measured; the program's measured executions).  run
 * must outlive *p.  -1 with a message on a database error.  Free with
 * predict_run_free, also after failure. */
int predict_from_run(db *d, const db_run *run, const scope_tree *t, prediction *p, predict_perf_input *in, char *err,
                     size_t errlen);
void predict_run_free(prediction *p, predict_perf_input *in);

#endif

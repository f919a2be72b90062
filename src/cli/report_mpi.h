/* report_mpi.h — what `augur report` shows of an MPI run (docs/report.md,
 * "MPI runs"): its ranks with their counts and the imbalance across them,
 * and with --comm its MPI calls per call site and peer. */
#ifndef AUGUR_REPORT_MPI_H
#define AUGUR_REPORT_MPI_H

#include <stdint.h>
#include <stdio.h>

#include "db/db.h"
#include "util/numfmt.h"

/* The ranks of run `run_id` as a text table with their sum, mean, largest
 * and imbalance (largest / mean), to out; nothing for a run that is no MPI
 * run.  0, or -1 with the message in err. */
int report_mpi_ranks(db *d, int64_t run_id, num_style numbers, FILE *out, char *err, size_t errlen);

/* --comm: the run's MPI calls per call site and peer, summed over the
 * ranks, with the ranks' totals; text, or JSON when `json`.  -1 with the
 * message in err, also for a run without MPI calls. */
int report_mpi_comm(db *d, int64_t run_id, int json, num_style numbers, FILE *out, char *err, size_t errlen);

/* After a prediction's text: the MPI models of its set (modelset_comm.c)
 * at its parameters: bytes sent and received and calls summed over the
 * ranks, the largest rank's instructions, the mean rank's (the predicted
 * total over P) and the imbalance; nothing when the set has none. */
struct prediction;
void report_mpi_predicted(const struct prediction *p, num_style numbers, FILE *out);

#endif

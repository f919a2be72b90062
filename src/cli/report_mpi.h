/* report_mpi.h — what `augur report` shows of an MPI run (docs/report.md,
 * "MPI runs"): its ranks with their counts and the imbalance across them,
 * and with --comm its MPI calls per call site and peer. */
#ifndef AUGUR_REPORT_MPI_H
#define AUGUR_REPORT_MPI_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "db/db.h"
#include "util/numfmt.h"

/* The ranks of run `run_id` as a text table with their sum, mean, largest
 * and imbalance (largest / mean), to out; nothing for a run that is no MPI
 * run.  0, or -1 with the message in err. */
int report_mpi_ranks(db *d, int64_t run_id, num_style numbers, FILE *out, char *err, size_t errlen);

/* The ranks of run `run_id` as the report JSON's "mpi" member into *out:
 * {"size": P, "stored": N, "ranks": [{"rank", "instructions", "accesses",
 * "bytes_sent", "bytes_received", "status", "status_detail"}...],
 * "summed_instructions", "largest_rank_instructions", "imbalance"}, or
 * JSON null for a run that is no MPI run.  0, or -1 with the message in
 * err. */
int report_mpi_ranks_json(db *d, int64_t run_id, json_t **out, char *err, size_t errlen);

/* --comm: the run's MPI calls per call site and peer, summed over the
 * ranks, with the ranks' totals; text, or JSON when `json`.  -1 with the
 * message in err, also for a run without MPI calls. */
int report_mpi_comm(db *d, int64_t run_id, int json, num_style numbers, FILE *out, char *err, size_t errlen);

#endif

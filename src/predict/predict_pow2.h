/* predict_pow2.h — the share of each reuse-distance group's accesses per
 * 2-adic class of their address deltas (predict_pow2.c). */
#ifndef AUGUR_PREDICT_POW2_H
#define AUGUR_PREDICT_POW2_H

#include "predict/predict_internal.h"

/* Into a new array *out (free() it; NULL when no run has classes: runs
 * collected before profile format 7), out[g * PROFILE_POW2_CLASSES + k]:
 * of group g's accesses in runs[0..nruns) (a model's training runs, or the
 * one run a report prices), the share made by the instructions of
 * `program` (its path) without a dominant stride at a delta of 2-adic
 * class PROFILE_POW2_FIRST + k.  -1 with a message on a database error or
 * when memory runs out. */
int predict_pow2_shares(db *d, const char *program, const db_run *runs, size_t nruns, const db_rd_group *groups,
                        size_t ngroups, double **out, char *err, size_t errlen);

#endif

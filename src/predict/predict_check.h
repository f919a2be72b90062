/* predict_check.h — what makes a prediction refused rather than printed
 * (docs/models.md, "Refused predictions"): parameters outside the domain
 * of the models' terms, and values that do not fit in a count.  Pure
 * functions over models and numbers (predict_check.c), unit-tested in
 * tests/unit/test_predict_check.c. */
#ifndef AUGUR_PREDICT_CHECK_H
#define AUGUR_PREDICT_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* The first value a predicted count may not reach: 2^63, the first that
 * does not fit the signed 64-bit integers of the JSON output and of
 * SQLite. */
#define PREDICT_COUNT_LIMIT 9223372036854775808.0

/* 0 when every term of m is defined at x; else 1, with the offending
 * factor written to term (e.g. "log2(N)", "N^2") and what it needs written
 * to need (e.g. "N > 0").  A power or log2 of a parameter is defined for
 * values > 0 only: model_term.c evaluates it as 0 at values <= 0, so a
 * model there is not the formula it prints.  A factor with a log2 is named
 * before a plain power. */
int predict_term_outside(const model *m, const double *x, const char *const *names, char *term, size_t termlen,
                         char *need, size_t needlen);

/* The same over every model of a reuse-distance histogram model. */
int predict_rd_term_outside(const rd_model *m, const double *x, const char *const *names, char *term,
                            size_t termlen, char *need, size_t needlen);

/* v as a count: rounded, with negative values (a model's noise below 0)
 * as 0.  -1 when v is not finite or not below PREDICT_COUNT_LIMIT. */
int predict_count(double v, uint64_t *out);

#endif

/* predict_internal.h — what the files of src/predict share and no other
 * stage needs: the rows' keys (predict_keys.c) and the models' errors
 * (predict_errors.c). */
#ifndef AUGUR_PREDICT_INTERNAL_H
#define AUGUR_PREDICT_INTERNAL_H

#include "predict/predict.h"

/* Order of a function row against (function, module), and of a line row
 * against (file, line, function): <0, 0, >0 as strcmp; NULL names last. */
int predict_cmp_function(const report_function *a, const char *function, const char *module);
int predict_cmp_line(const report_line *a, const char *file, uint32_t line, const char *function);

/* qsort/bsearch comparators of report_function and report_line (or of
 * structs that begin with one) by those keys. */
int predict_by_function_key(const void *pa, const void *pb);
int predict_by_line_key(const void *pa, const void *pb);

/* Set e's member for metric ("instructions", "reads", "writes"; others
 * ignored) to cv. */
void predict_error_metric(predict_error *e, const char *metric, double cv);

/* p->function_errors, line_errors (index for index with the report's rows
 * in their final order) and total_error from p->rows; -1 when memory
 * runs out. */
int predict_attach_errors(prediction *p);

#endif

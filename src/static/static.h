/* static.h — `augur static` as the command sees it: build the static
 * model of a program from its sources (found through its DWARF, a
 * compile_commands.json or named), compose it, and print it as text, JSON,
 * a Python module or C (docs/static.md). */
#ifndef AUGUR_STATIC_H
#define AUGUR_STATIC_H

#include <stdio.h>

#include "static/model.h"

/* Values of symbols given with --param NAME=VALUE: every symbol of that
 * name takes it. */
typedef struct sa_values {
    double *vals;
    char *known;
    size_t given;
} sa_values;

/* --param NAME=VALUE pairs onto the program's symbols.  Returns 0, or -1
 * with a message when a value is not an integer. */
int sa_values_bind(const sa_program *p, const char *const *names, const char *const *values, size_t n,
                   sa_values *out, char *err, size_t errlen);

void sa_print_text(FILE *to, const char *program, const sa_program *p, const sa_results *r, const sa_values *v);
/* 0, or -1 when writing failed. */
int sa_print_json(FILE *to, const char *program, const sa_program *p, const sa_results *r, const sa_values *v);
void sa_print_python(FILE *to, const char *program, const sa_program *p, const sa_results *r);
/* The model as C: the header (struct augur_counts, one prototype per
 * function NAME_NARGS) then the source, as one translation unit. */
void sa_print_c(FILE *to, const char *program, const sa_program *p, const sa_results *r);
/* The same as a header and a source that includes it as "header_name". */
void sa_print_c_pair(FILE *header, FILE *source, const char *header_name, const char *program,
                     const sa_program *p, const sa_results *r);

/* out_join.c: does a scope print operation k (text)?  The source's always,
 * the binary's when the program was joined and the formula is not zero
 * (instructions always then). */
int sa_op_printed(const sa_program *p, const sa_scope_formulas *s, int k);
/* The binary loops joined to loop l of function fi: text lines, or a JSON
 * array (binary_loops of docs/static.md). */
void sa_text_bloops(FILE *to, const sa_program *p, const sa_results *r, size_t fi, size_t l, int indent,
                    const sa_values *v);
struct json_t;
struct json_t *sa_json_bloops(const sa_program *p, const sa_results *r, size_t fi, size_t l, const sa_values *v);

/* The index of the function the program's total is (main), or -1. */
int sa_total_function(const sa_program *p);

#endif

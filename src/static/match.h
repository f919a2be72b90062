/* match.h — a stored static model's scopes paired with the scopes of a
 * stored binary (match.c), so that static and measured counts of one
 * scope meet: by the join's pairing (join.c), which the model keeps
 * (docs/static.md, "Static and measured"). */
#ifndef AUGUR_STATIC_MATCH_H
#define AUGUR_STATIC_MATCH_H

#include <jansson.h>
#include <stddef.h>

#include "db/db.h"

/* For every scope s of the binary (scopes[0..n)), out[s] = the position in
 * m of the static scope it pairs with, or -1: a function scope with the
 * source function whose code its symbol is (sa_symbol_is: f, f.constprop.0,
 * f._omp_fn.0; not f.cold), a loop scope with the source loop the join
 * joined the binary loop of its header to (m's binary_loops; a model stored
 * before schema 16 has none, and pairs no loop).  Returns 0, or -1 when the
 * stored binary loops are damaged. */
int sa_match_scopes(const db_static_model *m, const db_scope *scopes, size_t n, int *out);

/* The binary loop stored with static loop scope s whose header is at addr
 * ({"function", "address", "role", "factor", "program_iterations",
 * "program_iterations_form"}), a new reference; NULL when none is. */
json_t *sa_scope_bloop(const db_static_scope *s, uint64_t addr);

/* The value of a stored form (form.h) with unknowns named in
 * names[0..nnames) taking vals: 0 with *v, 1 with *missing naming an
 * unknown without a value (or the form absent or null: *missing empty),
 * -1 when the form is damaged. */
int sa_form_value(const json_t *form, char *const *names, const double *vals, size_t nnames, double *v,
                  char *missing, size_t missinglen);

/* sa_form_value of a static scope's formula `metric` (its forms, a JSON
 * text); -1 also when the forms are not JSON. */
int sa_scope_value(const db_static_scope *s, const char *metric, char *const *names, const double *vals,
                   size_t nnames, double *v, char *missing, size_t missinglen);

#endif

/* form.h — a static formula as data: JSON that a command can store in the
 * database and evaluate at any values of the unknowns without PolyLib
 * (docs/database.md, "Static models", gives the layout).  A form is
 *   {"terms": [{"weight": [NUM, DEN], "factors": [NAME...], "params": [NAME...],
 *               "chambers": [{"where": [[ROW...]...], "poly": [[NUM, DEN, [EXP...], [MOD...], [RES...]]...]}]
 *                           or null for the constant 1}]}
 * the sum of its terms, each weight * factors * count; a count is the
 * quasi-polynomial of its first chamber whose `where` holds (a union of
 * conjunctions of PolyLib rows [EQ, C_1..C_p, K]: C.params + K == 0 when
 * EQ is 0, >= 0 when 1), 0 when none does; a poly term is NUM/DEN *
 * prod p^EXP where every p = RES mod MOD. */
#ifndef AUGUR_STATIC_FORM_H
#define AUGUR_STATIC_FORM_H

#include <jansson.h>

#include "static/sa.h"

/* The form of x (a new reference). */
json_t *sa_formula_form(sa_arena *a, const sa_symtab *t, sa_formula x);

/* The value of unknown `name` into *v: 0, or -1 when it has none. */
typedef int sa_form_lookup(const char *name, double *v, void *ctx);

/* The value of form f with the unknowns' values from get.  0, or -1 with
 * *missing the first unknown without a value (NULL: f is not a form). */
int sa_form_eval(const json_t *f, sa_form_lookup *get, void *ctx, double *out, const char **missing);

#endif

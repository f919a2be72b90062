/* match.h — a stored static model's loops paired with the loop scopes of
 * a stored binary (match.c), so that static and measured counts of one
 * loop meet: by their place in their function's nest, the rule of
 * tests/static/match_loops.py (docs/static.md, "Static and measured"). */
#ifndef AUGUR_STATIC_MATCH_H
#define AUGUR_STATIC_MATCH_H

#include <stddef.h>

#include "db/db.h"

/* For every scope s of the binary (scopes[0..n), parents before
 * children), out[s] = the position in m of the static scope it pairs
 * with, or -1: a function scope with the static function of its name (or
 * of which it is a copy GCC made: scan.constprop.0, f.isra.0, f.part.0), a
 * loop scope with the static loop at the same place in the nest (depth,
 * and rank among its siblings by line), when the binary function's loops
 * directly under it and under each other have the shape of the source's
 * (a vectorised copy, a remainder or a peeled loop changes the shape:
 * such a function's loops are left unpaired).  Returns 0, or -1 when
 * memory runs out. */
int sa_match_scopes(const db_static_model *m, const db_scope *scopes, size_t n, int *out);

/* The value of a static scope's formula `metric` (its forms, a JSON
 * text) with unknowns named in names[0..nnames) taking vals: 0 with *v,
 * 1 with *missing naming an unknown without a value (or the metric
 * absent: *missing NULL), -1 when the forms are damaged. */
int sa_scope_value(const db_static_scope *s, const char *metric, char *const *names, const double *vals,
                   size_t nnames, double *v, char *missing, size_t missinglen);

#endif

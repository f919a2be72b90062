/* static_check.h — static and measured counts side by side: the loops of
 * the static model `augur static --db` stored for a binary, paired with
 * its loop scopes by the join's pairing (static/match.h), each binary
 * loop's iterations in the whole run from the static formulas at a run's
 * (or a prediction's) parameters, against
 * the measured (or predicted) ones, flagged where they differ by more
 * than 1% (docs/static.md, "Static and measured"). */
#ifndef AUGUR_STATIC_CHECK_H
#define AUGUR_STATIC_CHECK_H

#include <jansson.h>
#include <stdio.h>

#include "db/db.h"

#define STATIC_CHECK_TOLERANCE 0.01 /* a relative difference beyond this is a disagreement */

/* The static model of one binary and its pairing with the binary's scopes. */
typedef struct static_checks {
    int have;          /* a static model of the binary's build-id is stored */
    db_static_model m;
    int *pair;         /* per scope id: the static scope's position in m, or -1 */
    uint64_t *addr;    /* per scope id: its entry (a loop's header) address */
    size_t nscopes;
} static_checks;

/* The static model stored for binary b (by its build-id) paired with its
 * scopes; c->have 0 when there is none.  0, or -1 with a message. */
int static_checks_load(db *d, const db_binary *b, const db_scope *scopes, size_t n, static_checks *c, char *err,
                       size_t errlen);
void static_checks_free(static_checks *c);

/* One loop's comparison. */
typedef struct static_loop_check {
    const db_static_scope *src; /* the source loop */
    char role[16];              /* the binary loop's in the join: all, blocks (of `factor` source
                                   iterations: a vector or unrolled body), remainder */
    int factor;
    char *formula;              /* the binary loop's iterations in the run, as text (malloc) */
    int known;                  /* the formula has a value at the parameters */
    char missing[128];          /* else the unknown without a value */
    double value;               /* the static iterations */
    double measured;            /* of the header executions and the body executions (headers - entries), the
                                   closer to value: a loop tested at its top runs its header once more per
                                   entry than its body, one tested at its bottom once per iteration */
    double difference;          /* (measured - value) / value; 0 when both are 0 */
    int disagrees;              /* |difference| > STATIC_CHECK_TOLERANCE */
} static_loop_check;

/* Compare loop scope s, whose header ran `headers` times over `entries`
 * entries, with the binary loop of its header in the static model (its
 * iterations in the run) at the parameters names[k] = vals[k].  0 with *out
 * filled (free with static_loop_check_free), 1 when s has no static loop
 * (or the model no main), -1 when the stored model is damaged or memory
 * runs out. */
int static_check_loop(const static_checks *c, size_t s, char *const *names, const double *vals, size_t n,
                      double headers, double entries, static_loop_check *out);
void static_loop_check_free(static_loop_check *x);

/* The comparison as JSON: {"source_loop", "formula", "role", "factor", "static", WHAT
 * ("measured" or "predicted"), "difference_percent", "disagrees"} (static
 * and disagrees null without a value, with "missing" naming the unknown);
 * a new reference. */
json_t *static_loop_check_json(const static_loop_check *x, const char *what);

/* One line of text for the comparison: "static (k.c:17): 66 iterations,
 * WHAT 66" ("static (k.c:17, blocks of 2): ..." for a vector body), with
 * "DISAGREES" and the difference beyond the tolerance. */
void static_loop_check_text(FILE *out, const static_loop_check *x, int indent, const char *what);

#endif

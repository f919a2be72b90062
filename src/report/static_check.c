/* static_check.c — static against measured loop iterations (static_check.h). */
#include "report/static_check.h"
#include "static/match.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int static_checks_load(db *d, const db_binary *b, const db_scope *scopes, size_t n, static_checks *c, char *err,
                       size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (!b->build_id || !b->build_id[0])
        return 0;
    int rc = db_static_get(d, b->build_id, &c->m, err, errlen);
    if (rc == DB_NOT_FOUND)
        return 0;
    if (rc != 0)
        return -1;
    c->have = 1;
    c->nscopes = n;
    c->pair = malloc((n + 1) * sizeof *c->pair);
    c->addr = malloc((n + 1) * sizeof *c->addr);
    if (!c->pair || !c->addr) {
        snprintf(err, errlen, "out of memory");
        static_checks_free(c);
        return -1;
    }
    for (size_t s = 0; s < n; s++)
        c->addr[s] = scopes[s].entry_addr;
    if (sa_match_scopes(&c->m, scopes, n, c->pair) != 0) {
        snprintf(err, errlen, "%s: the static model of build %s is damaged: store it again with augur static --db",
                 db_path(d), b->build_id);
        static_checks_free(c);
        return -1;
    }
    return 0;
}

void static_checks_free(static_checks *c)
{
    if (c->have)
        db_static_model_free(&c->m);
    free(c->pair);
    free(c->addr);
    memset(c, 0, sizeof *c);
}


int static_check_loop(const static_checks *c, size_t s, char *const *names, const double *vals, size_t n,
                      double headers, double entries, static_loop_check *out)
{
    memset(out, 0, sizeof *out);
    if (!c->have || s >= c->nscopes || c->pair[s] < 0 || strcmp(c->m.scopes[c->pair[s]].kind, "loop"))
        return 1;
    out->src = &c->m.scopes[c->pair[s]];
    json_t *bl = sa_scope_bloop(out->src, c->addr[s]);
    const char *text = json_string_value(json_object_get(bl, "program_iterations"));
    if (!text) /* a model without main: no iterations in the run */
        return json_decref(bl), 1;
    out->formula = strdup(text);
    const char *role = json_string_value(json_object_get(bl, "role"));
    snprintf(out->role, sizeof out->role, "%s", role ? role : "all");
    out->factor = (int)json_integer_value(json_object_get(bl, "factor"));
    int rc = out->formula ? sa_form_value(json_object_get(bl, "program_iterations_form"), names, vals, n,
                                          &out->value, out->missing, sizeof out->missing)
                          : -1;
    json_decref(bl);
    if (rc < 0)
        return static_loop_check_free(out), -1;
    out->known = rc == 0;
    if (!out->known)
        return 0;
    double body = headers - entries;
    out->measured = fabs(headers - out->value) <= fabs(body - out->value) ? headers : body;
    out->difference = out->value != 0 ? (out->measured - out->value) / out->value : out->measured != 0 ? INFINITY : 0;
    out->disagrees = fabs(out->difference) > STATIC_CHECK_TOLERANCE;
    return 0;
}

void static_loop_check_free(static_loop_check *x)
{
    free(x->formula);
    x->formula = NULL;
}

json_t *static_loop_check_json(const static_loop_check *x, const char *what)
{
    char where[600];
    snprintf(where, sizeof where, "%s:%d", x->src->file, x->src->first_line);
    json_t *o = json_pack("{s:s,s:s,s:s,s:i}", "source_loop", where, "formula", x->formula, "role", x->role,
                          "factor", x->factor);
    if (!x->known) {
        json_object_set_new(o, "missing", json_string(x->missing));
        json_object_set_new(o, "static", json_null());
        json_object_set_new(o, "disagrees", json_null());
        return o;
    }
    json_object_set_new(o, "static", json_real(x->value));
    json_object_set_new(o, what, json_real(x->measured));
    json_object_set_new(o, "difference_percent",
                        isfinite(x->difference) ? json_real(100 * x->difference) : json_null());
    json_object_set_new(o, "disagrees", json_boolean(x->disagrees));
    return o;
}

void static_loop_check_text(FILE *out, const static_loop_check *x, int indent, const char *what)
{
    if (!x->known) {
        const char *base = strrchr(x->src->file, '/');
        fprintf(out, "%*sstatic (%s:%d): %s, not evaluated: the run has no parameter %s\n", indent, "",
                base ? base + 1 : x->src->file, x->src->first_line, x->formula, x->missing);
        return;
    }
    /* counts of iterations: integers, shown whole; the difference to 3 digits */
    const char *base = strrchr(x->src->file, '/');
    fprintf(out, "%*sstatic (%s:%d", indent, "", base ? base + 1 : x->src->file, x->src->first_line);
    if (strcmp(x->role, "all")) /* a vector or unrolled body, or its remainder */
        fprintf(out, ", %s of %d", x->role, x->factor);
    fprintf(out, "): %.0f iterations, %s %.0f", x->value, what, x->measured);
    if (x->disagrees)
        fprintf(out, "  DISAGREES: %+.3g%%", 100 * x->difference);
    fputc('\n', out);
}

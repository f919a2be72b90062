/* match.c — a stored static model's scopes paired with a stored binary's
 * (match.h) by the join's own pairing (join.c), kept with the model: a
 * function scope with the source function its symbol is, a loop scope with
 * the source loop the join joined its header to; and the value of a stored
 * formula at named values. */
#include "static/match.h"
#include "static/form.h"
#include "static/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The static function whose code binary function `symbol` is (the join's
 * rule, sa_symbol_is), or -1. */
static int static_function(const db_static_model *m, const char *symbol)
{
    for (size_t i = 0; i < m->nscopes; i++)
        if (!strcmp(m->scopes[i].kind, "function") && sa_symbol_is(symbol, m->scopes[i].function))
            return (int)i;
    return -1;
}

/* Pair with static loop `pos` each loop scope whose header is one of the
 * binary loops the join joined to it (its stored binary_loops); -1 when
 * those are damaged. */
static int pair_loops(const db_static_model *m, size_t pos, const db_scope *scopes, size_t n, int *out)
{
    json_t *a = json_loads(m->scopes[pos].binary_loops, 0, NULL);
    if (!json_is_array(a))
        return json_decref(a), -1;
    size_t i;
    json_t *b;
    json_array_foreach(a, i, b)
    {
        json_int_t addr = json_integer_value(json_object_get(b, "address"));
        for (size_t s = 0; s < n; s++)
            if (!strcmp(scopes[s].kind, "loop") && scopes[s].entry_addr == (uint64_t)addr)
                out[s] = (int)pos;
    }
    json_decref(a);
    return 0;
}

int sa_match_scopes(const db_static_model *m, const db_scope *scopes, size_t n, int *out)
{
    for (size_t s = 0; s < n; s++)
        out[s] = strcmp(scopes[s].kind, "function") ? -1 : static_function(m, scopes[s].name);
    for (size_t i = 0; i < m->nscopes; i++)
        if (!strcmp(m->scopes[i].kind, "loop") && pair_loops(m, i, scopes, n, out) != 0)
            return -1;
    return 0;
}

json_t *sa_scope_bloop(const db_static_scope *s, uint64_t addr)
{
    json_t *a = json_loads(s->binary_loops, 0, NULL), *found = NULL;
    size_t i;
    json_t *b;
    json_array_foreach(a, i, b)
    {
        if ((uint64_t)json_integer_value(json_object_get(b, "address")) == addr) {
            found = json_incref(b);
            break;
        }
    }
    json_decref(a);
    return found;
}

/* Names and values for sa_form_eval. */
typedef struct named {
    char *const *names;
    const double *vals;
    size_t n;
} named;

static int lookup(const char *name, double *v, void *ctx)
{
    const named *x = ctx;
    for (size_t i = 0; i < x->n; i++)
        if (!strcmp(x->names[i], name))
            return *v = x->vals[i], 0;
    return -1;
}

int sa_form_value(const json_t *form, char *const *names, const double *vals, size_t nnames, double *v,
                  char *missing, size_t missinglen)
{
    named x = {names, vals, nnames};
    const char *miss = NULL;
    int rc = !form || json_is_null(form) ? 1 : sa_form_eval(form, lookup, &x, v, &miss) == 0 ? 0 : miss ? 1 : -1;
    snprintf(missing, missinglen, "%s", miss ? miss : "");
    return rc;
}

int sa_scope_value(const db_static_scope *s, const char *metric, char *const *names, const double *vals,
                   size_t nnames, double *v, char *missing, size_t missinglen)
{
    json_t *forms = json_loads(s->forms, 0, NULL);
    if (!forms)
        return -1;
    int rc = sa_form_value(json_object_get(forms, metric), names, vals, nnames, v, missing, missinglen);
    json_decref(forms);
    return rc;
}

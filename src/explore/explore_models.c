/* explore_models.c — the newest model set as data the page evaluates: each
 * count model as its constant and terms (coef * prod p^e * log2(p)^l, as
 * src/model stores them) with the errors the ranges are made of, and each
 * reuse-distance group's histogram model with its members' shares, so that
 * the page computes at any parameter values what `augur predict` computes
 * (docs/explore.md, "Evaluating the models in the page"). */
#include <stdlib.h>
#include <string.h>

#include "explore/explore_internal.h"
#include "model/model.h"
#include "util/json_util.h"

/* Metrics of the count models the page shows; the per-class counts stay
 * in the database. */
static int shown_metric(const char *metric)
{
    static const char *const shown[] = {"instructions", "reads", "writes", "flops", "headers", "entries"};
    for (size_t i = 0; i < sizeof shown / sizeof *shown; i++)
        if (!strcmp(metric, shown[i]))
            return 1;
    return 0;
}

/* {c, t: [[coef, [[param, exponent, log_exponent], ...]], ...]} and, with
 * errors, method, cv (percent), n and spread: one model as data.  Reals
 * keep every digit (the writer prints 17). */
static json_t *model_json(const model *m, int errors)
{
    json_t *terms = json_array();
    for (int i = 0; terms && i < m->nterms; i++) {
        json_t *factors = json_array();
        for (int k = 0; factors && k < m->terms[i].nfactors; k++) {
            const model_factor *f = &m->terms[i].factors[k];
            json_array_append_new(factors, json_pack("[i, f, i]", f->param, f->exponent, f->log_exponent));
        }
        json_array_append_new(terms, json_pack("[f, o]", m->terms[i].coef, factors ? factors : json_null()));
    }
    json_t *o = json_pack("{s:f, s:o}", "c", m->constant, "t", terms ? terms : json_null());
    if (o && errors) {
        json_t *spread = json_array();
        for (int i = 0; spread && i < MODEL_SPREAD_POINTS; i++)
            json_array_append_new(spread, json_real(m->spread[i]));
        json_object_set_new(o, "method", json_string(model_method_name(m->method)));
        json_object_set_new(o, "cv", json_real(m->cv_smape));
        json_object_set_new(o, "fit", json_real(m->fit_smape));
        json_object_set_new(o, "n", json_integer((json_int_t)m->npoints));
        json_object_set_new(o, "spread", spread ? spread : json_null());
        json_object_set_new(o, "unconfirmed", json_boolean(model_unconfirmed(m)));
    }
    return o;
}

/* One count model row: what it is of (functions and files by index), its
 * metric, formula and model; NULL when its line's file is not embedded
 * (nothing shows it) or memory runs out (*oom set). */
static json_t *row_json(const db_model_row *r, explore_names *names, int *oom)
{
    int file = -1, function = -1;
    if (!strcmp(r->kind, "line") && (file = explore_file_index(names, r->file)) < 0)
        return NULL;
    if (!strcmp(r->kind, "function") || !strcmp(r->kind, "line"))
        /* lines name their function without module, as the report's rows do */
        if ((function = explore_function_index(names, r->function, strcmp(r->kind, "line") ? r->module : NULL)) < 0)
            return *oom = 1, NULL;
    json_t *o = json_pack("{s:s, s:s, s:o, s:o}", "kind", r->kind, "metric", r->metric, "formula",
                          json_string_lossy(r->formula), "model", model_json(r->m, 1));
    if (o && function >= 0)
        json_object_set_new(o, "f", json_integer(function));
    if (o && file >= 0) {
        json_object_set_new(o, "file", json_integer(file));
        json_object_set_new(o, "line", json_integer(r->line));
    }
    if (o && !strcmp(r->kind, "scope"))
        json_object_set_new(o, "scope", json_integer(r->scope));
    if (!o)
        *oom = 1;
    return o;
}

static json_t *counts_json(const db_model_row *rows, size_t n, explore_names *names)
{
    json_t *a = json_array();
    int oom = !a;
    for (size_t i = 0; !oom && i < n; i++) {
        if (!strcmp(rows[i].kind, "block") || !shown_metric(rows[i].metric))
            continue;
        json_t *o = row_json(&rows[i], names, &oom);
        if (o && json_array_append_new(a, o) != 0)
            oom = 1;
    }
    if (oom) {
        json_decref(a);
        return NULL;
    }
    return a;
}

/* A histogram model: cold and touches, the leading bins (distance and
 * cumulative share), the slices (u range, low and high edges, mean) and the
 * growth bound beyond the fitted range (max_power, top), what
 * rd_model_misses reads. */
static json_t *rd_json(const rd_model *m)
{
    json_t *lead = json_array(), *bins = json_array();
    for (size_t i = 0; lead && i < m->nlead; i++)
        json_array_append_new(lead, json_pack("{s:f, s:o}", "distance", m->lead[i].distance, "fraction",
                                               model_json(&m->lead[i].fraction, 0)));
    for (size_t i = 0; bins && i < m->nbins; i++) {
        const rd_model_bin *b = &m->bins[i];
        json_array_append_new(bins, json_pack("{s:f, s:f, s:o, s:o, s:o}", "u_low", b->u_low, "u_high", b->u_high,
                                              "low", model_json(&b->low, 0), "high", model_json(&b->high, 0), "mean",
                                              model_json(&b->mean, 0)));
    }
    return json_pack("{s:o, s:o, s:o, s:o, s:f, s:f}", "cold", model_json(&m->cold, 0), "touches",
                     model_json(&m->touches, 0), "lead", lead ? lead : json_null(), "bins", bins ? bins : json_null(),
                     "max_power", m->max_power, "top", m->top);
}

/* One group: block size, histogram model and members [function, line's
 * function, file, line, share]: the function with the group's module (the
 * function rows'), without (the line rows'; -1 with the file when the file
 * is not embedded). */
static json_t *group_json(const db_rd_group *g, explore_names *names)
{
    json_t *members = json_array();
    for (size_t k = 0; members && k < g->nmembers; k++) {
        const struct db_rd_member_row *mb = &g->members[k];
        int file = explore_file_index(names, mb->file);
        int f = explore_function_index(names, mb->function, g->module);
        int lf = file < 0 ? -1 : explore_function_index(names, mb->function, NULL);
        if (f < 0 || (file >= 0 && lf < 0) ||
            json_array_append_new(members, json_pack("[i, i, i, i, f]", f, lf, file, (int)mb->line, mb->share)) != 0) {
            json_decref(members);
            return NULL;
        }
    }
    return json_pack("{s:i, s:o, s:o}", "block", (int)g->block_size, "model", rd_json(g->m), "members",
                     members ? members : json_null());
}

static int wanted_block(uint32_t block, const uint32_t *blocks, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (blocks[i] == block)
            return 1;
    return 0;
}

static json_t *groups_json(const db_rd_group *g, size_t n, const uint32_t *blocks, size_t nblocks,
                           explore_names *names)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++) {
        if (!wanted_block(g[i].block_size, blocks, nblocks))
            continue;
        json_t *o = group_json(&g[i], names);
        if (!o || json_array_append_new(a, o) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static json_t *set_json(const db_model_set *s)
{
    json_t *params = json_array(), *lo = json_array(), *hi = json_array(), *blocks = json_array();
    for (int k = 0; params && lo && hi && k < s->nparams; k++) {
        json_array_append_new(params, json_string_lossy(s->params[k]));
        json_array_append_new(lo, json_real(s->lo[k]));
        json_array_append_new(hi, json_real(s->hi[k]));
    }
    for (int b = 0; blocks && b < s->nblock_sizes; b++)
        json_array_append_new(blocks, json_integer(s->block_sizes[b]));
    json_t *runs = s->runs ? json_loads(s->runs, 0, NULL) : NULL;
    return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "id", (json_int_t)s->id, "created",
                     json_string_lossy(s->created), "program", json_string_lossy(s->program), "params",
                     params ? params : json_null(), "lo", lo ? lo : json_null(), "hi", hi ? hi : json_null(),
                     "runs", runs ? runs : json_array(), "block_sizes", blocks ? blocks : json_null());
}

int explore_models_json(db *d, const db_model_set *set, const uint32_t *blocks, size_t nblocks,
                        explore_names *names, json_t **out, char *err, size_t errlen)
{
    db_model_row *rows = NULL;
    size_t nrows = 0, ngroups = 0;
    db_rd_group *groups = NULL;
    *out = NULL;
    int rc = db_models_load(d, set, &rows, &nrows, err, errlen);
    if (rc == 0)
        rc = db_rd_groups_load(d, set, &groups, &ngroups, err, errlen);
    if (rc == 0) {
        *out = json_pack("{s:o, s:o, s:o}", "set", set_json(set), "counts", counts_json(rows, nrows, names),
                         "groups", groups_json(groups, ngroups, blocks, nblocks, names));
        if (!*out) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        }
    }
    db_rd_groups_free(groups, ngroups);
    db_model_rows_free(rows, nrows);
    return rc;
}

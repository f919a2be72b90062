/* model_show.c — `augur model --show`: the newest model set's formulas for
 * people, with how each was found and its errors, and under each the
 * points it was fitted on: what each training run measured, the model's
 * value there and the residual (model_show_points.c); as text or as JSON
 * (docs/models.md, "Showing the models").  Shown are the program's totals,
 * the program's functions and every scope of the program; or only the
 * functions (of any module) and scopes whose name contains a given text.
 * A set fitted across builds of one source first names its builds and the
 * scopes that could not be matched across them; a set of whole runs the
 * phases that have sets, a set of one phase its phase. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict/predict_internal.h"
#include "util/json_util.h"
#include "util/numfmt.h"

/* "exact", or the fit and cross-validation errors, in percent to two
 * decimals as predict's error tables show them (not 1.13e-06%); then,
 * when the runs leave other forms plausible, how far they part at 4x. */
static void print_quality(const model *m, FILE *out)
{
    char fit[NUMFMT_LEN], cv[NUMFMT_LEN];
    if (model_unconfirmed(m))
        fprintf(out, "  [exact through %zu runs, unconfirmed: one more run would confirm it", m->npoints);
    else if (m->method == MODEL_EXACT || m->method == MODEL_CONSTANT)
        fprintf(out, "  [%s", model_method_name(m->method));
    else
        fprintf(out, "  [%s; fit error %s%%, cross-validation error %s%%", model_method_name(m->method),
                numfmt_fixed(m->fit_smape, 2, NUM_PLAIN, fit), numfmt_fixed(m->cv_smape, 2, NUM_PLAIN, cv));
    char pct[NUMFMT_LEN];
    double spread = 100 * m->spread[1];
    if (spread >= 0.1) /* two digits, no exponent */
        fprintf(out, "; other forms that fit differ by %s%% at 4x",
                numfmt_fixed(numfmt_round_sig(spread, 2), spread >= 10 ? 0 : 1, NUM_PLAIN, pct));
    fputc(']', out);
}

/* Does the row's subject differ from the previous row's? */
static int new_subject(const db_model_row *rows, size_t i)
{
    if (i == 0)
        return 1;
    const db_model_row *a = &rows[i - 1], *b = &rows[i];
    return strcmp(a->kind, b->kind) || a->scope != b->scope || strcmp(a->function ?: "", b->function ?: "") ||
           strcmp(a->module ?: "", b->module ?: "");
}

static void print_subject(const db_model_row *r, FILE *out)
{
    if (!strcmp(r->kind, "total"))
        fputs("\nprogram total\n", out);
    else if (!strcmp(r->kind, "function"))
        fprintf(out, "\nfunction %s (%s)\n", r->function ?: "(unknown)",
                report_base_name(r->module) ?: "(unknown)");
    else if (!strcmp(r->scope_kind ?: "", "loop"))
        fprintf(out, "\nscope %lld: %s\n", (long long)r->scope, r->function ?: "loop");
    else
        fprintf(out, "\nscope %lld: %s %s (%s:%u)\n", (long long)r->scope, r->scope_kind ?: "scope",
                r->function ?: "?", report_base_name(r->file) ?: "?", r->line);
}

/* Lines and blocks are too many to show; without a filter, only the
 * program's own functions (library functions are in the database). */
static int wanted(const db_model_row *r, const db_model_set *set, const char *scope_filter)
{
    if (!strcmp(r->kind, "line") || !strcmp(r->kind, "block"))
        return 0;
    if (!scope_filter)
        return strcmp(r->kind, "function") || (r->module && !strcmp(r->module, set->program));
    return strcmp(r->kind, "total") && r->function && strstr(r->function, scope_filter);
}

/* For a set across builds: its builds (the reference first) and the
 * scopes left out as not matched in every build (db_model_set_newest
 * checked that both are JSON arrays). */
static void print_builds(const db_model_set *set, FILE *out)
{
    if (!set->builds)
        return;
    json_t *b = json_loads(set->builds, 0, NULL), *u = json_loads(set->unmatched ? set->unmatched : "[]", 0, NULL);
    fprintf(out, "  %zu builds of one source, matched by source location (function, file, line, loop):\n",
            json_array_size(b));
    size_t i;
    json_t *v;
    json_array_foreach(b, i, v)
    {
        const char *program = json_string_value(json_object_get(v, "program"));
        char *runs = json_dumps(json_object_get(v, "runs"), JSON_COMPACT);
        fprintf(out, "    %s, runs %s%s\n", program ? program : "?", runs ? runs : "?",
                i == 0 ? " (the reference: scopes and addresses are its)" : "");
        free(runs);
    }
    fprintf(out, "  scopes not matched across the builds, left out with the scopes inside:%s\n",
            json_array_size(u) ? "" : " none");
    json_array_foreach(u, i, v)
        fprintf(out, "    %s\n", json_string_value(v) ? json_string_value(v) : "?");
    json_decref(b), json_decref(u);
}

/* One point of a model: run t's measured value (when known), the model's
 * value at its parameters, and measured - model. */
typedef struct point {
    int known;
    double measured, model, residual;
} point;

static point point_of(const show_points *p, size_t t, const db_model_row *row)
{
    point pt = {.model = model_eval(row->m, p->x + t * (size_t)p->nparams)};
    pt.known = show_measured(p, t, row, &pt.measured);
    pt.residual = pt.known ? pt.measured - pt.model : NAN;
    return pt;
}

/* ---- text -------------------------------------------------------------------- */

/* Whether the model reproduces what every run measured (residual 0). */
static int reproduces_all(const show_points *p, const db_model_row *row)
{
    for (size_t t = 0; t < p->nruns; t++) {
        point pt = point_of(p, t, row);
        if (!pt.known || pt.measured != round(pt.model))
            return 0;
    }
    return p->nruns > 0;
}

/* "N=20, M=3": run t's parameters, into buf. */
static void run_params(const show_points *p, const db_model_set *set, size_t t, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int k = 0; k < set->nparams; k++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s=%.6g", k ? ", " : "", set->params[k],
                 p->x[t * (size_t)p->nparams + (size_t)k]);
}

/* The points of one model.  A model that reproduces every run gets one
 * line, the values measured; any other a row per run with its parameters,
 * the measured count, the model's value rounded to a count, and their
 * difference (as shown: measured - rounded model), also as a share of the
 * measured.  Counts grouped by thousands, as every text table's. */
static void print_points(const show_points *p, const db_model_set *set, const db_model_row *row, FILE *out)
{
    char params[256], a[NUMFMT_LEN], b[NUMFMT_LEN], c[NUMFMT_LEN];
    if (reproduces_all(p, row)) { /* one line, however long, as the formula's: a value stays with its run */
        fputs("        residual 0 at every run, measured", out);
        for (size_t t = 0; t < p->nruns; t++) {
            run_params(p, set, t, params, sizeof params);
            fprintf(out, "%s %s (%s)", t ? "," : "", numfmt_fixed(point_of(p, t, row).measured, 0, NUM_GROUPED, a),
                    params);
        }
        fputc('\n', out);
        return;
    }
    fprintf(out, "      %6s", "run");
    for (int k = 0; k < set->nparams; k++)
        fprintf(out, " %10s", set->params[k]);
    fprintf(out, " %20s %20s %16s %10s\n", "measured", "model", "residual", "residual%");
    for (size_t t = 0; t < p->nruns; t++) {
        point pt = point_of(p, t, row);
        fprintf(out, "      %6lld", (long long)p->runs[t].id);
        for (int k = 0; k < set->nparams; k++)
            fprintf(out, " %10.6g", p->x[t * (size_t)p->nparams + (size_t)k]);
        double shown = round(pt.model), residual = pt.measured - shown;
        numfmt_fixed(shown, 0, NUM_GROUPED, b);
        if (!pt.known)
            fprintf(out, " %20s %20s %16s %10s\n", "-", b, "-", "-");
        else if (pt.measured == 0)
            fprintf(out, " %20s %20s %16s %10s\n", numfmt_fixed(pt.measured, 0, NUM_GROUPED, a), b,
                    numfmt_fixed(residual, 0, NUM_GROUPED, c), "-");
        else
            fprintf(out, " %20s %20s %16s %9.3g%%\n", numfmt_fixed(pt.measured, 0, NUM_GROUPED, a), b,
                    numfmt_fixed(residual, 0, NUM_GROUPED, c), 100 * residual / pt.measured + 0.0);
    }
}

static void print_model(const show_points *p, const db_model_set *set, const db_model_row *r, FILE *out)
{
    fprintf(out, "    %-18s = %s", r->metric, r->formula);
    print_quality(r->m, out);
    fputc('\n', out);
    print_points(p, set, r, out);
}

/* The phases with model sets under a set of whole runs (db_model_set_phases). */
typedef struct show_phases {
    char **v;
    size_t n;
} show_phases;

/* The set's phase, or the phases that have sets of their own. */
static void print_phases(const db_model_set *set, const show_phases *ph, FILE *out)
{
    if (set->phase)
        fprintf(out, "  phase %s of the runs of model set %lld\n", set->phase, (long long)set->parent_id);
    for (size_t i = 0; i < ph->n; i++)
        fprintf(out, "%s%s%s", i ? ", " : "  phases with models (augur model --show --phase PHASE): ", ph->v[i],
                i + 1 < ph->n ? "" : "\n");
}

/* The scopes with a model on static terms (augur model --basis static),
 * each named once, in storage order: a JSON array of their names. */
static json_t *static_scopes(const db_model_row *rows, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].m || rows[i].m->method != MODEL_STATIC || rows[i].scope < 0)
            continue;
        size_t j = 0;
        while (j < i && !(rows[j].m && rows[j].m->method == MODEL_STATIC && rows[j].scope == rows[i].scope))
            j++;
        if (j == i)
            json_array_append_new(a, json_string_lossy(rows[i].function));
    }
    return a;
}

/* "  static basis: N scopes ...: names" when some scope used it. */
static void print_static_scopes(const db_model_row *rows, size_t n, FILE *out)
{
    json_t *a = static_scopes(rows, n);
    size_t k;
    json_t *name;
    if (json_array_size(a))
        fprintf(out, "  static basis: %zu scope%s with counts on the source's formulas (method static):",
                json_array_size(a), json_array_size(a) == 1 ? "" : "s");
    json_array_foreach(a, k, name)
    fprintf(out, "%s %s", k ? "," : "", json_string_value(name));
    if (json_array_size(a))
        fputc('\n', out);
    json_decref(a);
}

static int write_text(const db_model_set *set, const show_phases *ph, const db_model_row *rows, size_t n,
                      const show_points *p, const char *scope_filter, FILE *out)
{
    fprintf(out, "Model set %lld of %s, fitted %s on runs %s\n  parameters:", (long long)set->id, set->program,
            set->created, set->runs);
    for (int k = 0; k < set->nparams; k++)
        fprintf(out, " %s in [%g, %g]", set->params[k], set->lo[k], set->hi[k]);
    fputc('\n', out);
    print_phases(set, ph, out);
    print_builds(set, out);
    report_print_sampled_runs(out, p->runs, p->nruns);
    print_static_scopes(rows, n, out);
    fputs("  under each model: the runs it was fitted on, what each measured, the model's value there and "
          "the\n  residual (measured - model; % of the measured)\n", out);
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
        if (!wanted(&rows[i], set, scope_filter))
            continue;
        if (new_subject(rows, i) || shown == 0)
            print_subject(&rows[i], out);
        print_model(p, set, &rows[i], out);
        shown++;
    }
    if (scope_filter && shown == 0)
        fprintf(out, "\nno function or scope named like \"%s\" has models\n", scope_filter);
    fputs("\nNot shown: library functions (--scope NAME shows them), lines, blocks and reuse-distance "
          "groups:\nsee the tables models and rd_groups (docs/database.md) and docs/models.md.\n",
          out);
    return ferror(out) ? -1 : 0;
}

/* ---- JSON -------------------------------------------------------------------- */

static json_t *number_or_null(int known, double v)
{
    return known && isfinite(v) ? json_whole_or_real(v) : json_null();
}

static json_t *points_json(const show_points *p, const db_model_row *row)
{
    json_t *a = json_array();
    for (size_t t = 0; a && t < p->nruns; t++) {
        point pt = point_of(p, t, row);
        json_array_append_new(a, json_pack("{s:I, s:o, s:o, s:o}", "run", (json_int_t)p->runs[t].id, "measured",
                                           number_or_null(pt.known, pt.measured), "model",
                                           number_or_null(1, pt.model), "residual",
                                           number_or_null(pt.known, pt.residual)));
    }
    return a;
}

static json_t *model_json(const show_points *p, const db_model_row *r)
{
    const model *m = r->m;
    int fitted = m->method != MODEL_EXACT && m->method != MODEL_CONSTANT;
    return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:o, s:s, s:o, s:o, s:o}", "kind", r->kind,
                     "function", json_string_lossy(r->function), "module", json_string_lossy(r->module), "scope",
                     r->scope >= 0 ? json_integer(r->scope) : json_null(), "scope_kind",
                     json_string_lossy(r->scope_kind), "file", json_string_lossy(r->file), "line",
                     r->line ? json_integer(r->line) : json_null(), "metric", r->metric, "formula",
                     json_string_lossy(r->formula), "method", model_method_name(m->method), "fit_error_percent",
                     fitted ? json_real(m->fit_smape) : json_real(0), "cv_error_percent",
                     fitted ? json_real(m->cv_smape) : json_real(0), "points", points_json(p, r));
}

static json_t *set_json(const db_model_set *set, const show_phases *ph, const show_points *p)
{
    json_t *params = json_array(), *runs = json_array();
    for (int k = 0; params && k < set->nparams; k++)
        json_array_append_new(params, json_pack("{s:s, s:o, s:o}", "name", set->params[k], "low",
                                                json_whole_or_real(set->lo[k]), "high", json_whole_or_real(set->hi[k])));
    for (size_t t = 0; runs && t < p->nruns; t++) {
        json_t *x = json_object();
        for (int k = 0; x && k < set->nparams; k++)
            json_object_set_new(x, set->params[k], json_whole_or_real(p->x[t * (size_t)p->nparams + (size_t)k]));
        json_array_append_new(runs, json_pack("{s:I, s:o, s:o}", "id", (json_int_t)p->runs[t].id, "params",
                                              x ? x : json_null(), "sample_rd",
                                              p->runs[t].sample_rd > 0 ? json_real(p->runs[t].sample_rd)
                                                                       : json_null()));
    }
    json_t *builds = set->builds ? json_loads(set->builds, 0, NULL) : NULL;
    json_t *unmatched = set->unmatched ? json_loads(set->unmatched, 0, NULL) : NULL;
    json_t *phases = json_string_array(ph->v, ph->n);
    return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "model_set", (json_int_t)set->id,
                     "program", json_string_lossy(set->program), "created", json_string_lossy(set->created), "params",
                     params ? params : json_null(), "runs", runs ? runs : json_null(), "builds",
                     builds ? builds : json_null(), "unmatched", unmatched ? unmatched : json_null(), "phase",
                     set->phase ? json_string_lossy(set->phase) : json_null(), "parent_set",
                     set->parent_id ? json_integer(set->parent_id) : json_null(), "phases",
                     phases ? phases : json_null());
}

static int write_json(const db_model_set *set, const show_phases *ph, const db_model_row *rows, size_t n,
                      const show_points *p, const char *scope_filter, FILE *out)
{
    json_t *doc = set_json(set, ph, p), *models = json_array();
    for (size_t i = 0; models && i < n; i++)
        if (wanted(&rows[i], set, scope_filter) && json_array_append_new(models, model_json(p, &rows[i])) != 0) {
            json_decref(models);
            models = NULL;
        }
    int rc = doc && models && json_object_set_new(doc, "models", models) == 0 &&
                     json_object_set_new(doc, "static_basis_scopes", static_scopes(rows, n)) == 0
                 ? 0
                 : -1;
    if (rc == 0)
        rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) == 0 && fputc('\n', out) != EOF ? 0 : -1;
    json_decref(doc);
    return rc;
}

int model_show(db *d, const char *phase, const char *scope_filter, int json, FILE *out, char *err, size_t errlen)
{
    db_model_set set;
    if (db_model_set_newest(d, phase, &set, err, errlen) != 0)
        return -1;
    db_model_row *rows = NULL;
    size_t n = 0;
    show_points p = {0};
    show_phases ph = {0};
    int rc = db_models_load(d, &set, &rows, &n, err, errlen);
    if (rc == 0 && !phase)
        rc = db_model_set_phases(d, set.id, &ph.v, &ph.n, err, errlen);
    if (rc == 0)
        rc = show_points_load(d, &set, &p, err, errlen);
    if (rc == 0 && (json ? write_json : write_text)(&set, &ph, rows, n, &p, scope_filter, out) != 0) {
        snprintf(err, errlen, "cannot write the models: out of memory or a write error");
        rc = -1;
    }
    show_points_free(&p);
    db_strings_free(ph.v, ph.n);
    db_model_rows_free(rows, n);
    db_model_set_free(&set);
    return rc;
}

/* modelset.c — `augur model`'s driver: select the runs, read every
 * instruction's series, fit the count models and the reuse-distance group
 * models, and store them as one new model set in one transaction (a failure
 * leaves the database as it was). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "modelset/modelset.h"
#include "util/json_util.h"

/* The user basis terms, parsed over the modeled parameters. */
static int parse_basis(const modelset_options *o, const ms_runs *runs, model_options *mo, char *err, size_t errlen)
{
    memset(mo, 0, sizeof *mo);
    mo->integer_counts = 1;
    if (o->nbasis > MODEL_MAX_BASIS) {
        snprintf(err, errlen, "too many --basis terms (%d): at most %d", o->nbasis, MODEL_MAX_BASIS);
        return -1;
    }
    for (int k = 0; k < o->nbasis; k++)
        if (model_parse_term(o->basis[k], (const char *const *)runs->names, runs->nparams, &mo->basis[k], err,
                             errlen) != 0)
            return -1;
    mo->nbasis = o->nbasis;
    return 0;
}

/* JSON texts of the run ids and the basis terms (free() them). */
static char *ids_json(const ms_runs *r)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < r->n; i++)
        json_array_append_new(a, json_integer(r->ids[i]));
    char *text = a ? json_dumps(a, JSON_COMPACT) : NULL;
    json_decref(a);
    return text;
}

/* The builds of a set across builds as JSON text (free() it): the
 * reference first, each {"program", "build_id", "runs"}. */
static char *builds_json(const ms_runs *r)
{
    json_t *a = json_array();
    for (size_t b = 0; a && b < r->nbuilds; b++) {
        json_t *ids = json_array();
        for (size_t i = 0; ids && i < r->n; i++)
            if (r->run_build[i] == b)
                json_array_append_new(ids, json_integer(r->ids[i]));
        json_array_append_new(a, json_pack("{s:s, s:s, s:o}", "program", r->builds[b].path, "build_id",
                                           r->builds[b].build_id, "runs", ids ? ids : json_null()));
    }
    char *text = a ? json_dumps(a, JSON_COMPACT) : NULL;
    json_decref(a);
    return text;
}

static char *basis_json(const modelset_options *o)
{
    json_t *a = json_string_array((char *const *)o->basis, (size_t)o->nbasis);
    if (a && o->static_basis)
        json_array_append_new(a, json_string("static"));
    char *text = a ? json_dumps(a, JSON_COMPACT) : NULL;
    json_decref(a);
    return text;
}

/* Check up front, on the program's total, that the runs can be modeled at
 * all, so that the error is about the runs and not about one series. */
static int check_total(const ms_fitter *f, char *err, size_t errlen)
{
    size_t n = f->runs->n;
    double *y = calloc(n + 1, sizeof *y);
    if (!y)
        return snprintf(err, errlen, "out of memory"), -1;
    for (size_t l = 0; l < f->series->nlocs; l++)
        for (size_t r = 0; r < n; r++)
            y[r] += f->series->exec[l * n + r];
    model_series s = {.npoints = n, .nparams = f->runs->nparams, .x = f->runs->x, .y = y};
    model m;
    int rc = model_fit(&s, &f->mo, &m, err, errlen);
    free(y);
    return rc;
}

static int fit_everything(ms_fitter *f, modelset_summary *out)
{
    int rc = ms_scopes_load(f);
    if (rc == 0)
        rc = ms_fit_counts(f);
    if (rc == 0)
        rc = ms_fit_scopes(f);
    if (rc == 0)
        rc = ms_fit_groups(f, &out->groups); /* the scopes' counts: the loops around a group */
    ms_scopes_free(f);
    if (rc == 0)
        rc = ms_fit_comm(f);
    return rc;
}

/* The set's builds and the scopes left out, for a set across builds. */
static int describe_builds(const ms_runs *runs, const ms_builds *bs, db_model_set *set)
{
    json_t *notes = json_string_array(bs->unmatched, bs->nunmatched);
    set->builds = builds_json(runs);
    set->unmatched = notes ? json_dumps(notes, JSON_COMPACT) : NULL;
    json_decref(notes);
    return set->builds && set->unmatched ? 0 : -1;
}

/* With runs of several builds, read and match them (ms_builds_load) and
 * fit on the reference build's structure; else on o->program. */
static int choose_structure(db *d, const modelset_options *o, ms_fitter *f, ms_builds *bs, char *err, size_t errlen)
{
    f->program = o->program;
    if (f->runs->nbuilds < 2)
        return 0;
    if (o->progress)
        fprintf(o->progress, "augur model: matching %zu builds of %s by source location\n", f->runs->nbuilds,
                report_base_name(f->runs->program));
    if (ms_builds_load(d, f->runs, bs, err, errlen) != 0)
        return -1;
    f->builds = bs;
    f->program = &bs->b[0].tree;
    return 0;
}

int modelset_fit(db *d, const modelset_options *o, modelset_summary *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    ms_runs runs;
    ms_series series = {0};
    ms_builds builds = {0};
    ms_paths paths = {0};
    ms_fitter f = {.d = d, .runs = &runs, .series = &series, .opts = o, .err = err, .errlen = errlen};
    db_model_set set = {0};
    int rc = ms_runs_select(d, o, &runs, err, errlen);
    if (rc == 0)
        rc = choose_structure(d, o, &f, &builds, err, errlen);
    if (rc == 0)
        rc = parse_basis(o, &runs, &f.mo, err, errlen);
    if (rc == 0 && o->progress)
        fprintf(o->progress, "augur model: reading %zu runs\n", runs.n);
    if (rc == 0)
        rc = ms_series_load(d, &runs, f.builds, &series, err, errlen);
    if (rc == 0)
        rc = check_total(&f, err, errlen);
    if (rc == 0 && (rc = ms_paths_load(d, &series, &paths, err, errlen)) == 0)
        f.paths = &paths;
    if (rc == 0) {
        set = (db_model_set){.program = runs.program, .nparams = runs.nparams, .runs = ids_json(&runs),
                             .basis = basis_json(o), .nblock_sizes = runs.nblock_sizes,
                             .parent_id = o->phase ? o->parent_set : 0, .phase = (char *)o->phase};
        if (f.builds && describe_builds(&runs, f.builds, &set) != 0)
            set.runs = (free(set.runs), NULL); /* out of memory: reported below */
        memcpy(set.params, runs.names, sizeof set.params);
        memcpy(set.lo, runs.lo, sizeof set.lo);
        memcpy(set.hi, runs.hi, sizeof set.hi);
        memcpy(set.block_sizes, runs.block_sizes, sizeof set.block_sizes);
        rc = set.runs && set.basis ? db_model_begin(d, &set, &f.w, err, errlen)
                                   : (snprintf(err, errlen, "out of memory"), -1);
    }
    if (rc == 0)
        rc = fit_everything(&f, out);
    if (rc == 0)
        rc = db_model_commit(f.w, err, errlen);
    else
        db_model_abort(f.w);
    out->set_id = set.id;
    out->runs = runs.n;
    if (rc == 0) /* the summary owns them now */
        out->run_ids = runs.ids, runs.ids = NULL;
    out->models = f.models;
    out->failed = f.failures;
    out->nfailed = f.nfailures;
    for (int k = 0; rc == 0 && k < runs.nparams; k++)
        if ((out->params[k] = strdup(runs.names[k])))
            out->nparams = k + 1;
    ms_fit_clear(&f);
    free(f.jobs);
    out->builds = runs.nbuilds;
    if (rc == 0) { /* the summary owns them now */
        out->unmatched = builds.unmatched, out->nunmatched = builds.nunmatched;
        builds.unmatched = NULL, builds.nunmatched = 0;
    }
    free(set.runs), free(set.basis), free(set.builds), free(set.unmatched);
    ms_paths_free(&paths);
    ms_series_free(&series);
    ms_builds_free(&builds);
    ms_runs_free(&runs);
    return rc;
}

void modelset_summary_free(modelset_summary *s)
{
    ms_failures_free(s->failed, s->nfailed);
    free(s->run_ids);
    for (int k = 0; k < s->nparams; k++)
        free(s->params[k]);
    for (size_t i = 0; i < s->nunmatched; i++)
        free(s->unmatched[i]);
    free(s->unmatched);
    memset(s, 0, sizeof *s);
}

/* report_json.c — renders a report as the JSON document of docs/report.md,
 * for programs: the run, the caches, the totals, then the functions and the
 * source lines with the most executed instructions. */
#include <limits.h>

#include "report/report.h"
#include "util/json_util.h"


static json_t *json_count(uint64_t v)
{
    return json_integer(v > (uint64_t)LLONG_MAX ? LLONG_MAX : (json_int_t)v); /* json_int_t is long long */
}

json_t *report_caches_json(const report *r, const double *values, json_t *(*value)(double))
{
    json_t *o = json_object();
    for (size_t k = 0; o && k < r->ncaches; k++) {
        char key[64];
        report_cache_key(&r->caches[k], key, sizeof key);
        if (json_object_set_new(o, key, value(values[k])) != 0) {
            json_decref(o);
            o = NULL;
        }
    }
    return o;
}

/* {"32768:64": [low, high], ...}: a prediction's miss ranges by the
 * caches' keys, as in "misses". */
static json_t *ranges_json(const report *r, const report_counts *c)
{
    json_t *o = json_object();
    for (size_t k = 0; o && k < r->ncaches; k++) {
        char key[64];
        report_cache_key(&r->caches[k], key, sizeof key);
        if (json_object_set_new(o, key, json_pack("[o, o]", json_whole_or_real(c->misses_low[k]),
                                                  json_whole_or_real(c->misses_high[k]))) != 0) {
            json_decref(o);
            o = NULL;
        }
    }
    return o;
}

/* Add the count members to object o (which is returned, NULL on failure):
 * with a prediction, also the miss ranges. */
static json_t *with_counts(json_t *o, const report *r, const report_counts *c)
{
    if (o && json_object_update_new(o, json_pack("{s:o, s:o, s:o, s:o, s:o}", "instructions",
                                                 json_count(c->instructions), "accesses",
                                                 json_count(c->reads + c->writes), "reads", json_count(c->reads),
                                                 "writes", json_count(c->writes), "misses", report_caches_json(r, c->misses, json_whole_or_real))) == 0 &&
        (!r->prediction || (json_object_set_new(o, "misses_range", ranges_json(r, c)) == 0 &&
                            json_object_update_new(o, json_pack("{s:[f,f], s:[f,f], s:[f,f]}", "instructions_range",
                                                                c->count_low[0], c->count_high[0], "reads_range",
                                                                c->count_low[1], c->count_high[1], "writes_range",
                                                                c->count_low[2], c->count_high[2])) == 0)))
        return o;
    json_decref(o);
    return NULL;
}

static json_t *params_json(const db_run *run)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < run->nparams; i++)
        if (json_object_set_new(o, run->params[i].name, json_whole_or_real(run->params[i].value)) != 0) {
            json_decref(o);
            o = NULL;
        }
    return o;
}

static json_t *block_sizes_json(const db_run *run)
{
    json_t *a = json_array();
    for (int i = 0; a && i < run->nblock_sizes; i++)
        if (json_array_append_new(a, json_integer(run->block_sizes[i])) != 0) {
            json_decref(a);
            a = NULL;
        }
    return a;
}

/* A run's sample_rd: null when its histograms are exact, else the rate. */
static json_t *sample_rd_json(double sample_rd)
{
    return sample_rd > 0 ? json_real(sample_rd) : json_null();
}

json_t *report_run_json(const db_run *run)
{
    json_t *command = json_loads(run->command, 0, NULL);
    return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:o, s:o, s:o, s:o}", "id",
                     (json_int_t)run->id,
                     "params", params_json(run), "command", command ? command : json_array(), "status",
                     json_string_lossy(run->status), "status_detail", json_string_lossy(run->status_detail),
                     "started", json_string_lossy(run->started), "finished", json_string_lossy(run->finished),
                     "host", json_string_lossy(run->host), "cwd", json_string_lossy(run->cwd), "exit_code",
                     run->exit_code, "processes", run->nprocesses, "block_sizes", block_sizes_json(run),
                     "augur_version", json_string_lossy(run->augur_version), "counted",
                     json_string_lossy(run->counted ? run->counted : ""), "sample_rd",
                     sample_rd_json(run->sample_rd));
}

json_t *report_caches_array_json(const report_cache *caches, size_t n)
{
    json_t *a = json_array();
    for (size_t k = 0; a && k < n; k++) {
        const report_cache *c = &caches[k];
        char key[64];
        report_cache_key(c, key, sizeof key);
        if (json_array_append_new(a, json_pack("{s:s, s:I, s:i, s:I}", "key", key, "size", (json_int_t)c->size,
                                               "line", (int)c->line, "lines", (json_int_t)(c->size / c->line))) != 0) {
            json_decref(a);
            a = NULL;
        }
    }
    return a;
}

static json_t *function_json(const report *r, const void *row)
{
    const report_function *f = row;
    return with_counts(json_pack("{s:o, s:o}", "function", json_string_lossy(f->function), "module",
                                 json_string_lossy(f->module)),
                       r, &f->c);
}

static json_t *line_json(const report *r, const void *row)
{
    const report_line *l = row;
    return with_counts(json_pack("{s:o, s:o, s:o}", "file", json_string_lossy(l->file), "line",
                                 l->line ? json_integer(l->line) : json_null(), "function",
                                 json_string_lossy(l->function)),
                       r, &l->c);
}

/* The first `shown` rows of a table, each made by row(r, base + i * size). */
static json_t *rows_json(const report *r, const void *base, size_t size, size_t shown,
                         json_t *(*row)(const report *, const void *))
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < shown; i++)
        if (json_array_append_new(a, row(r, (const char *)base + i * size)) != 0) {
            json_decref(a);
            a = NULL;
        }
    return a;
}

static size_t shown_rows(size_t n, size_t top)
{
    return top && top < n ? top : n;
}

/* What each run of the model set counted: [{"run", "counted",
 * "sample_rd"}], "" for a run counted whole (db_counted_sentence), null
 * for one whose histograms are exact. */
static json_t *fitted_counted_json(const report_prediction *p)
{
    json_t *a = json_array();
    for (size_t t = 0; a && t < p->ntrain; t++)
        json_array_append_new(a, json_pack("{s:I, s:o, s:o}", "run", (json_int_t)p->train[t].id, "counted",
                                           json_string_lossy(p->train[t].counted ? p->train[t].counted : ""),
                                           "sample_rd", sample_rd_json(p->train[t].sample_rd)));
    return a;
}

static json_t *prediction_json(const report_prediction *p)
{
    json_t *params = json_object(), *warnings = json_array(), *runs = json_loads(p->runs, 0, NULL);
    for (int k = 0; params && k < p->nparams; k++)
        json_object_set_new(params, p->names[k], json_whole_or_real(p->values[k]));
    for (size_t i = 0; warnings && i < p->nwarnings; i++)
        json_array_append_new(warnings, json_string_lossy(p->warnings[i]));
    json_t *counted = fitted_counted_json(p), *phases = json_string_array((char *const *)p->phases, p->nphases);
    return json_pack("{s:o, s:I, s:o, s:o, s:o, s:o, s:o}", "params", params ? params : json_null(), "model_set",
                     (json_int_t)p->set_id, "fitted_runs", runs ? runs : json_array(), "fitted_runs_counted",
                     counted ? counted : json_null(), "warnings", warnings ? warnings : json_null(), "phase",
                     p->phase ? json_string_lossy(p->phase) : json_null(), "phases", phases ? phases : json_null());
}

/* A gap's signed counts: instructions, reads, writes, accesses. */
static json_t *gap_counts_json(const report_line_gap *g)
{
    return json_pack("{s:I, s:I, s:I, s:I}", "instructions", (json_int_t)g->instructions, "reads",
                     (json_int_t)g->reads, "writes", (json_int_t)g->writes, "accesses",
                     (json_int_t)(g->reads + g->writes));
}

/* "line_model_difference": the total minus the lines, with misses, and
 * per function name (report_line_gap). */
static json_t *line_gap_json(const report *r, const report_prediction *p)
{
    json_t *o = gap_counts_json(&p->line_gap), *functions = json_array();
    for (size_t i = 0; o && functions && i < p->ngap_functions; i++) {
        json_t *f = gap_counts_json(&p->gap_functions[i]);
        if (!f || json_object_set_new(f, "function", json_string_lossy(p->gap_functions[i].function)) != 0 ||
            json_array_append_new(functions, f) != 0) {
            json_decref(functions);
            functions = NULL;
        }
    }
    if (o && (!functions || json_object_set_new(o, "misses", report_caches_json(r, p->line_gap.misses, json_real)) ||
              json_object_set_new(o, "functions", functions) != 0)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* "startup": the start-up and loader rows' count and sums, and whether the
 * rankings leave them out; null when they were not looked for. */
static json_t *startup_json(const report *r)
{
    const report_startup *s = &r->startup;
    if (!s->classified)
        return json_null();
    return with_counts(json_pack("{s:b, s:I, s:I}", "hidden", s->hidden, "functions", (json_int_t)s->nfunctions,
                                 "lines", (json_int_t)s->nlines),
                       r, &s->c);
}

json_t *report_json(const report *r, size_t top)
{
    json_t *o = r->prediction ? json_pack("{s:o}", "prediction", prediction_json(r->prediction))
                              : json_pack("{s:[o]}", "runs", report_run_json(r->run));
    if (o &&
        json_object_update_new(
            o, json_pack("{s:o, s:o, s:o, s:I, s:o, s:I, s:o}", "caches",
                         report_caches_array_json(r->caches, r->ncaches), "total",
                         with_counts(json_object(), r, &r->total), "functions",
                         rows_json(r, r->functions, sizeof *r->functions, shown_rows(report_ranked_functions(r), top),
                                   function_json),
                         "function_count", (json_int_t)r->nfunctions, "lines",
                         rows_json(r, r->lines, sizeof *r->lines, shown_rows(report_ranked_lines(r), top), line_json),
                         "line_count", (json_int_t)r->nlines, "startup", startup_json(r))) == 0 &&
        (!r->prediction || json_object_set_new(o, "line_model_difference", line_gap_json(r, r->prediction)) == 0))
        return o;
    json_decref(o);
    return NULL;
}

int report_json_dump(json_t *j, FILE *out)
{
    if (!j)
        return -1;
    int rc = json_dumpf(j, out, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
    json_decref(j);
    if (rc == 0 && fputc('\n', out) == EOF)
        rc = -1;
    return rc;
}

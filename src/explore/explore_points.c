/* explore_points.c — what the C stages give at one evaluation point, for
 * the page: a run's measured counts (report_build, report_scope_counts)
 * and the machine models' values at a run (`augur report --machine`) or at
 * parameter values (`augur predict --machine`), taken from the very JSON
 * those commands print (prediction_json) and kept to the members the page
 * shows, so that the page and the commands cannot disagree. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explore/explore_internal.h"
#include "perf/perf.h"
#include "predict/predict_perf.h"
#include "predict/predict_run.h"

static int oom(char *err, size_t errlen)
{
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* ---- machine values ------------------------------------------------------------ */

/* A new object with the members `keys` of from that it has. */
static json_t *pick(json_t *from, const char *const *keys)
{
    json_t *o = json_object();
    for (size_t i = 0; o && keys[i]; i++) {
        json_t *v = json_object_get(from, keys[i]);
        if (v && json_object_set(o, keys[i], v) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

static const char *const total_keys[] = {"instructions", "reads", "writes", "misses", "misses_range", "tlb_misses",
                                         "cycles", "time_seconds", "bound", "page_faults", "mispredicts", NULL};
static const char *const function_keys[] = {"misses", "misses_range", "cycles", "time_seconds", "bound", NULL};
static const char *const loop_keys[] = {"scope", "misses", "misses_range", "cycles", "time_seconds", "bound", NULL};

/* A loop's entry: loop_keys, and of its terms the iterations and the
 * core and memory cycles. */
static json_t *loop_json(json_t *scope)
{
    json_t *o = pick(scope, loop_keys), *terms = json_object_get(scope, "terms");
    static const char *const term_keys[] = {"iterations", "core_cycles_per_iteration", "core_cycles",
                                            "memory_cycles", NULL};
    json_t *t = terms ? pick(terms, term_keys) : json_object();
    if (!o || !t || json_object_set_new(o, "terms", t) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* {total, functions: [{f, ...}], loops: [...]} from a prediction's JSON
 * document (report --machine's or predict --machine's). */
static json_t *compact(json_t *doc, explore_names *names)
{
    json_t *functions = json_array(), *loops = json_array(), *row;
    size_t i;
    int bad = !functions || !loops;
    json_array_foreach(json_object_get(doc, "functions"), i, row)
    {
        json_t *o = bad ? NULL : pick(row, function_keys);
        int f = o ? explore_function_index(names, json_string_value(json_object_get(row, "function")),
                                           json_string_value(json_object_get(row, "module")))
                  : -1;
        if (f < 0 || json_object_set_new(o, "f", json_integer(f)) != 0 || json_array_append_new(functions, o) != 0)
            bad = 1;
    }
    json_array_foreach(json_object_get(doc, "scopes"), i, row)
    {
        const char *kind = json_string_value(json_object_get(row, "kind"));
        if (!bad && kind && !strcmp(kind, "loop") && json_object_get(row, "cycles") &&
            json_array_append_new(loops, loop_json(row)) != 0)
            bad = 1;
    }
    json_t *out = bad ? NULL : json_pack("{s:o, s:O, s:O}", "total", pick(json_object_get(doc, "total"), total_keys),
                                         "functions", functions, "loops", loops);
    json_decref(functions);
    json_decref(loops);
    return out;
}

/* The compacted document of p and pp into *out. */
static int point_json(const prediction *p, const predict_perf *pp, explore_names *names, json_t **out, char *err,
                      size_t errlen)
{
    json_t *doc = prediction_json(p, pp, 0);
    *out = doc ? compact(doc, names) : NULL;
    json_decref(doc);
    return *out ? 0 : oom(err, errlen);
}

int explore_run_point(db *d, const db_run *run, const scope_tree *t, const machine *m, explore_names *names,
                      json_t **out, char *err, size_t errlen)
{
    prediction p;
    predict_perf_input in;
    predict_perf pp = {0};
    *out = NULL;
    int rc = predict_from_run(d, run, t, &p, &in, err, errlen);
    if (rc == 0)
        rc = predict_perf_evaluate(d, &p, m, &in, &pp, err, errlen);
    if (rc == 0)
        rc = point_json(&p, &pp, names, out, err, errlen);
    predict_perf_free(&pp);
    predict_run_free(&p, &in);
    return rc;
}

int explore_model_point(db *d, const db_model_set *set, const double *x, const machine *m, explore_names *names,
                        json_t **out, char *err, size_t errlen)
{
    prediction p;
    predict_perf pp = {0};
    *out = NULL;
    /* every row: the page ranks its own tables (show_startup) */
    int rc = predict(d, (const char *const *)set->params, x, set->nparams, NULL, 0, 1, NULL, &p, err, errlen);
    if (rc == 0)
        rc = predict_perf_eval(d, &p, m, &pp, err, errlen);
    if (rc == 0)
        rc = point_json(&p, &pp, names, out, err, errlen);
    predict_perf_free(&pp);
    prediction_free(&p);
    return rc;
}

/* ---- measured counts ---------------------------------------------------------- */

/* The fully-associative caches of the machines' levels whose line size the
 * run measured, each once, in order: the caches of the page's line
 * misses (docs/explore.md). */
size_t explore_caches(const machine *machines, size_t nmachines, report_cache *caches)
{
    size_t n = 0;
    for (size_t i = 0; i < nmachines; i++) {
        perf_level levels[PERF_MAX_LEVELS];
        size_t nl = perf_cache_levels(&machines[i], levels);
        for (size_t k = 0; k < nl; k++) {
            report_cache c = {.size = (uint64_t)(levels[k].sets * levels[k].ways) * levels[k].block,
                              .line = levels[k].block};
            size_t j = 0;
            while (j < n && (caches[j].size != c.size || caches[j].line != c.line))
                j++;
            if (j == n && n < REPORT_MAX_CACHES)
                caches[n++] = c;
        }
    }
    return n;
}

static int measured_block(const db_run *run, uint32_t line)
{
    for (int b = 0; b < run->nblock_sizes; b++)
        if (run->block_sizes[b] == line)
            return 1;
    return 0;
}

/* [misses of cache 0, ...] with null for a cache the run did not measure. */
static json_t *line_misses(const report_counts *c, const int *measured, size_t ncaches)
{
    json_t *a = json_array();
    for (size_t k = 0, j = 0; a && k < ncaches; k++)
        json_array_append_new(a, measured[k] ? json_real(c->misses[j++]) : json_null());
    return a;
}

static json_t *report_rows(const report *r, const int *measured, size_t ncaches, explore_names *names,
                           json_t **lines)
{
    json_t *functions = json_array();
    *lines = json_array();
    for (size_t i = 0; functions && *lines && i < r->nfunctions; i++) {
        const report_function *f = &r->functions[i];
        int fi = explore_function_index(names, f->function, f->module);
        if (fi < 0 || json_array_append_new(functions, json_pack("[i, I, I, I]", fi, (json_int_t)f->c.instructions,
                                                                 (json_int_t)f->c.reads, (json_int_t)f->c.writes)))
            goto fail;
    }
    for (size_t i = 0; functions && *lines && i < r->nlines; i++) {
        const report_line *l = &r->lines[i];
        int file = explore_file_index(names, l->file);
        if (file < 0)
            continue;
        int fi = explore_function_index(names, l->function, NULL);
        if (fi < 0 || json_array_append_new(*lines, json_pack("[i, i, i, I, I, I, o]", file, (int)l->line, fi,
                                                              (json_int_t)l->c.instructions, (json_int_t)l->c.reads,
                                                              (json_int_t)l->c.writes,
                                                              line_misses(&l->c, measured, ncaches))))
            goto fail;
    }
    if (functions && *lines)
        return functions;
fail:
    json_decref(functions);
    json_decref(*lines);
    *lines = NULL;
    return NULL;
}

/* [[scope, instructions, reads, writes, flops, headers, entries], ...]
 * for the executed scopes of t. */
static int scope_rows(db *d, int64_t run_id, const scope_tree *t, json_t **out, char *err, size_t errlen)
{
    *out = json_array();
    if (!*out)
        return oom(err, errlen);
    if (!t)
        return 0;
    scope_counts *c;
    if (report_scope_counts(d, run_id, t, &c, err, errlen) != 0)
        return -1;
    for (size_t s = 0; s < t->nscopes; s++) {
        if (c[s].instructions == 0)
            continue;
        uint64_t entries = c[s].headers > c[s].back ? c[s].headers - c[s].back : 0;
        if (json_array_append_new(*out, json_pack("[I, I, I, I, I, I, I]", (json_int_t)s,
                                                  (json_int_t)c[s].instructions, (json_int_t)c[s].reads,
                                                  (json_int_t)c[s].writes, (json_int_t)c[s].flops,
                                                  (json_int_t)c[s].headers, (json_int_t)entries)) != 0) {
            free(c);
            return oom(err, errlen);
        }
    }
    free(c);
    return 0;
}

int explore_run_counts(db *d, const db_run *run, const scope_tree *t, const machine *machines, size_t nmachines,
                       explore_names *names, json_t **out, char *err, size_t errlen)
{
    report_cache all[REPORT_MAX_CACHES], caches[REPORT_MAX_CACHES];
    int measured[REPORT_MAX_CACHES];
    size_t nall = explore_caches(machines, nmachines, all), n = 0;
    for (size_t k = 0; k < nall; k++)
        if ((measured[k] = measured_block(run, all[k].line)))
            caches[n++] = all[k];
    report rep = {0};
    json_t *lines = NULL, *functions = NULL, *scopes = NULL;
    *out = NULL;
    int rc = report_build(d, run, caches, n, &rep, err, errlen);
    if (rc == 0 && !(functions = report_rows(&rep, measured, nall, names, &lines)))
        rc = oom(err, errlen);
    if (rc == 0)
        rc = scope_rows(d, run->id, t, &scopes, err, errlen);
    if (rc == 0 && !(*out = json_pack("{s:O, s:O, s:O}", "functions", functions, "lines", lines, "scopes", scopes)))
        rc = oom(err, errlen);
    json_decref(functions);
    json_decref(lines);
    json_decref(scopes);
    report_free(&rep);
    return rc;
}

/* explore.c — the data document of `augur explore` (docs/explore.md,
 * "Data"): the runs with their measured counts and machine values, the
 * program's scopes and sources, the newest model set as data with the
 * machine models' values on a grid of parameter values, the machines and
 * the memspy report, gathered from the stages that print the same numbers
 * (explore.h lists the files). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explore/explore_internal.h"
#include "perf/perf.h"
#include "util/json_util.h"

static int oom(char *err, size_t errlen)
{
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* Append o to array a (stealing it); -1 when either is NULL or memory
 * runs out. */
static int append(json_t *a, json_t *o)
{
    return a && o && json_array_append_new(a, o) == 0 ? 0 : -1;
}

/* ---- runs ------------------------------------------------------------------------ */

static json_t *run_description(const db_run *r)
{
    json_t *params = json_object();
    for (size_t k = 0; params && k < r->nparams; k++)
        json_object_set_new(params, r->params[k].name, json_real(r->params[k].value));
    json_t *command = r->command ? json_loads(r->command, 0, NULL) : NULL;
    return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:i}", "id", (json_int_t)r->id, "params",
                     params ? params : json_null(), "command", command ? command : json_array(), "started",
                     json_string_lossy(r->started), "status", json_string_lossy(r->status), "status_detail",
                     json_string_lossy(r->status_detail), "exit_code", r->exit_code);
}

/* {"64": [...], ...}: the run's per-loop histograms at each block size of
 * the machines' levels that it measured. */
static int run_histograms(db *d, const db_run *r, const scope_tree *t, const explore_options *o, json_t **out,
                          char *err, size_t errlen)
{
    report_cache caches[REPORT_MAX_CACHES];
    size_t n = explore_caches(o->machines, o->nmachines, caches);
    *out = json_object();
    if (!*out)
        return oom(err, errlen);
    for (size_t k = 0; t && k < n; k++) {
        char key[16];
        snprintf(key, sizeof key, "%u", caches[k].line);
        int measured = 0;
        for (int b = 0; b < r->nblock_sizes; b++)
            measured |= r->block_sizes[b] == caches[k].line;
        if (!measured || json_object_get(*out, key))
            continue;
        json_t *h;
        if (explore_histograms(d, r->id, t, caches[k].line, &h, err, errlen) != 0)
            return -1;
        if (json_object_set_new(*out, key, h) != 0)
            return oom(err, errlen);
    }
    return 0;
}

/* The run's member of "runs": its description, measured counts, per
 * machine the machine models' values (null without its scope tree) and
 * its histograms. */
static int run_json(db *d, const explore_run *er, const explore_options *o, explore_names *names, json_t **out,
                    char *err, size_t errlen)
{
    db_run r;
    json_t *counts = NULL, *machines = json_array(), *hist = NULL;
    *out = NULL;
    int rc = db_get_run(d, er->id, &r, err, errlen) != 0 ? -1 : 0;
    if (rc == 0)
        rc = explore_run_counts(d, &r, er->tree, o->machines, o->nmachines, names, &counts, err, errlen);
    for (size_t m = 0; rc == 0 && m < o->nmachines; m++) {
        json_t *point = NULL;
        if (er->tree && (rc = explore_run_point(d, &r, er->tree, &o->machines[m], names, &point, err, errlen)) != 0)
            break;
        if (json_array_append_new(machines, point ? point : json_null()) != 0)
            rc = oom(err, errlen);
    }
    if (rc == 0)
        rc = run_histograms(d, &r, er->tree, o, &hist, err, errlen);
    if (rc == 0) {
        *out = run_description(&r);
        if (!*out || json_object_set(*out, "counts", counts) || json_object_set(*out, "machines", machines) ||
            json_object_set(*out, "histograms", hist))
            rc = oom(err, errlen);
    }
    json_decref(counts);
    json_decref(machines);
    json_decref(hist);
    db_run_free(&r);
    return rc;
}

/* ---- scopes ------------------------------------------------------------------------ */

/* The scopes of t that some run executed (the runs' counts name them),
 * with their parents: [{id, parent, kind, name, file, first_line,
 * last_line, call_file, call_line}], ascending id. */
static json_t *scopes_json(const scope_tree *t, json_t *runs)
{
    char *used = calloc(t->nscopes + 1, 1);
    json_t *a = used ? json_array() : NULL, *run, *row;
    size_t i, j;
    json_array_foreach(runs, i, run)
    {
        json_array_foreach(json_object_get(json_object_get(run, "counts"), "scopes"), j, row)
        {
            json_int_t s = json_integer_value(json_array_get(row, 0));
            for (; used && s >= 0 && (size_t)s < t->nscopes && !used[s]; s = t->scopes[s].parent)
                used[s] = 1;
        }
    }
    for (size_t s = 0; a && s < t->nscopes; s++) {
        const db_scope *sc = &t->scopes[s];
        if (used[s] && append(a, json_pack("{s:I, s:I, s:o, s:o, s:o, s:i, s:i, s:o, s:i}", "id", (json_int_t)sc->id,
                                           "parent", (json_int_t)sc->parent, "kind", json_string_lossy(sc->kind),
                                           "name", json_string_lossy(sc->name), "file", json_string_lossy(sc->file),
                                           "first_line", (int)sc->first_line, "last_line", (int)sc->last_line,
                                           "call_file", json_string_lossy(sc->call_file), "call_line",
                                           (int)sc->call_line)) != 0) {
            json_decref(a);
            a = NULL;
        }
    }
    free(used);
    return a;
}

/* ---- machines ------------------------------------------------------------------------ */

static json_t *machines_json(const explore_options *o, json_t **caches_out)
{
    report_cache caches[REPORT_MAX_CACHES];
    size_t nc = explore_caches(o->machines, o->nmachines, caches);
    json_t *a = json_array(), *caches_json = json_array();
    for (size_t k = 0; caches_json && k < nc; k++)
        append(caches_json, json_pack("{s:I, s:i}", "size", (json_int_t)caches[k].size, "line", (int)caches[k].line));
    for (size_t i = 0; a && i < o->nmachines; i++) {
        const machine *m = &o->machines[i];
        perf_level levels[PERF_MAX_LEVELS];
        size_t nl = perf_cache_levels(m, levels);
        json_t *lv = json_array();
        for (size_t k = 0; lv && k < nl; k++) {
            uint64_t size = (uint64_t)(levels[k].sets * levels[k].ways) * levels[k].block;
            size_t c = 0;
            while (c < nc && (caches[c].size != size || caches[c].line != levels[k].block))
                c++;
            append(lv, json_pack("{s:s, s:I, s:i, s:f, s:i}", "name", levels[k].name, "size", (json_int_t)size,
                                 "line", (int)levels[k].block, "ways", levels[k].ways, "cache", c < nc ? (int)c : -1));
        }
        if (append(a, json_pack("{s:s, s:o, s:f, s:o}", "name", m->name, "description",
                                json_string_lossy(m->description), "clock_ghz", m->clock_ghz, "levels",
                                lv ? lv : json_null())) != 0) {
            json_decref(a);
            a = NULL;
        }
    }
    *caches_out = caches_json;
    return a;
}

/* ---- the model set and its grid ------------------------------------------------------ */

/* The values of one parameter the grid holds: `n` points spread evenly in
 * log scale from the smallest fitted value to EXPLORE_GRID_REACH times the
 * largest, whole numbers when the fitted values are (duplicates dropped);
 * into v (room for n), returning how many. */
static size_t axis_values(double lo, double hi, size_t n, double *v)
{
    int whole = lo == floor(lo) && hi == floor(hi);
    double top = hi * EXPLORE_GRID_REACH;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        double x = lo > 0 ? lo * pow(top / lo, (double)i / (double)(n - 1)) : lo + (top - lo) * (double)i / (double)(n - 1);
        if (whole)
            x = round(x);
        if (k == 0 || x > v[k - 1])
            v[k++] = x;
    }
    return k;
}

/* One grid point: {x: [...], machines: [point or {error}]}.  A point a
 * model refuses (a domain error, a count too large) keeps its message. */
static int grid_point(db *d, const db_model_set *set, const double *x, const explore_options *o,
                      explore_names *names, json_t *points, char *err, size_t errlen)
{
    json_t *xs = json_array(), *machines = json_array();
    for (int k = 0; xs && k < set->nparams; k++)
        json_array_append_new(xs, json_real(x[k]));
    for (size_t m = 0; machines && m < o->nmachines; m++) {
        json_t *point;
        char why[1024];
        if (explore_model_point(d, set, x, &o->machines[m], names, &point, why, sizeof why) != 0)
            point = json_pack("{s:o}", "error", json_string_lossy(why));
        if (append(machines, point) != 0)
            return json_decref(xs), json_decref(machines), oom(err, errlen);
    }
    return append(points, json_pack("{s:o, s:o}", "x", xs ? xs : json_null(), "machines",
                                    machines ? machines : json_null())) == 0
               ? 0
               : oom(err, errlen);
}

/* The grid: each parameter along its axis, the others at their largest
 * fitted value (so for one parameter, a line of points). */
static int grid_json(db *d, const db_model_set *set, const explore_options *o, explore_names *names, json_t **out,
                     char *err, size_t errlen)
{
    *out = json_array();
    if (!*out)
        return oom(err, errlen);
    double values[EXPLORE_MAX_GRID];
    for (int k = 0; k < set->nparams; k++) {
        size_t n = axis_values(set->lo[k], set->hi[k], o->grid, values);
        for (size_t i = 0; i < n; i++) {
            double x[MODEL_MAX_PARAMS];
            memcpy(x, set->hi, sizeof x);
            x[k] = values[i];
            if (o->progress)
                fprintf(o->progress, "augur explore: machine models at %s=%g (%zu of %zu)\n", set->params[k], x[k],
                        i + 1, n);
            if (grid_point(d, set, x, o, names, *out, err, errlen) != 0)
                return -1;
        }
    }
    return 0;
}

static int models_json(db *d, const explore_options *o, explore_names *names, json_t *notes, json_t **out,
                       char *err, size_t errlen)
{
    db_model_set set;
    *out = NULL;
    int rc = db_model_set_newest(d, NULL, &set, err, errlen);
    if (rc == DB_NOT_FOUND) {
        char note[1024];
        snprintf(note, sizeof note,
                 "No models yet: fit them with `augur model --db %s` (over 3 or more runs per parameter, 5 "
                 "recommended), then write this page again; until then it shows the measured runs only.",
                 db_path(d));
        db_model_set_free(&set);
        *out = json_null();
        return append(notes, json_string_lossy(note)) == 0 ? 0 : oom(err, errlen);
    }
    report_cache caches[REPORT_MAX_CACHES];
    uint32_t blocks[REPORT_MAX_CACHES];
    size_t nc = explore_caches(o->machines, o->nmachines, caches);
    for (size_t k = 0; k < nc; k++)
        blocks[k] = caches[k].line;
    json_t *grid = NULL;
    if (rc == 0)
        rc = explore_models_json(d, &set, blocks, nc, names, out, err, errlen);
    if (rc == 0)
        rc = grid_json(d, &set, o, names, &grid, err, errlen);
    if (rc == 0 && json_object_set_new(*out, "grid", grid) != 0)
        rc = oom(err, errlen);
    else if (rc != 0)
        json_decref(grid);
    db_model_set_free(&set);
    return rc;
}

/* ---- the whole ---------------------------------------------------------------------- */

static const scope_tree *newest_tree(const explore_options *o)
{
    for (size_t i = o->nruns; i-- > 0;)
        if (o->runs[i].tree)
            return o->runs[i].tree;
    return NULL;
}

static int runs_json(db *d, const explore_options *o, explore_names *names, json_t **out, char *err, size_t errlen)
{
    *out = json_array();
    if (!*out)
        return oom(err, errlen);
    for (size_t i = 0; i < o->nruns; i++) {
        json_t *r;
        if (o->progress)
            fprintf(o->progress, "augur explore: run %lld (%zu of %zu)\n", (long long)o->runs[i].id, i + 1, o->nruns);
        if (run_json(d, &o->runs[i], o, names, &r, err, errlen) != 0)
            return -1;
        if (json_array_append_new(*out, r) != 0)
            return oom(err, errlen);
    }
    return 0;
}

int explore_build(db *d, const explore_options *o, json_t **out, char *err, size_t errlen)
{
    explore_names names;
    *out = NULL;
    if (explore_names_init(&names) != 0)
        return oom(err, errlen);
    int64_t *ids = malloc((o->nruns + 1) * sizeof *ids);
    json_t *notes = json_array(), *runs = NULL, *models = NULL, *caches = NULL;
    int rc = ids && notes ? 0 : oom(err, errlen);
    for (size_t i = 0; rc == 0 && i < o->nruns; i++) {
        ids[i] = o->runs[i].id;
        if (!o->runs[i].tree) {
            char note[256];
            snprintf(note, sizeof note,
                     "Run %lld: its program is gone or was rebuilt since, so its scopes, loops and machine times "
                     "are left out (collect it again).",
                     (long long)ids[i]);
            rc = append(notes, json_string(note)) == 0 ? 0 : oom(err, errlen);
        }
    }
    if (rc == 0)
        rc = explore_sources(d, ids, o->nruns, &names, err, errlen);
    if (rc == 0)
        rc = runs_json(d, o, &names, &runs, err, errlen);
    if (rc == 0)
        rc = models_json(d, o, &names, notes, &models, err, errlen);
    const scope_tree *t = newest_tree(o);
    json_t *machines = rc == 0 ? machines_json(o, &caches) : NULL;
    if (rc == 0) {
        *out = json_pack("{s:s, s:s, s:o, s:o, s:O, s:O, s:o, s:O, s:O, s:O, s:O, s:O, s:O}", "format", EXPLORE_FORMAT,
                         "augur_version", AUGUR_VERSION, "database", json_string_lossy(db_path(d)), "program",
                         t ? json_string_lossy(t->binary.path) : json_null(), "notes", notes, "runs", runs, "scopes",
                         t ? scopes_json(t, runs) : json_array(), "machines", machines, "caches", caches, "functions",
                         names.functions, "files", names.files, "models", models, "memspy",
                         o->memspy ? o->memspy : json_null());
        if (!*out)
            rc = oom(err, errlen);
    }
    json_decref(machines);
    json_decref(caches);
    json_decref(notes);
    json_decref(runs);
    json_decref(models);
    free(ids);
    explore_names_free(&names);
    return rc;
}

/* ---- memspy ------------------------------------------------------------------------ */

/* Keep of the memspy report what the page shows: the process, the
 * machine, the total and the first EXPLORE_MEMSPY_ROWS rows of each
 * ranking (most stall first), so that a large report stays small. */
static json_t *memspy_trim(json_t *report)
{
    static const char *const kept[] = {"program", "args", "machine", "total", "warnings", "sampling"};
    static const char *const ranked[] = {"pairs", "data_objects", "code_objects"};
    json_t *o = json_object();
    for (size_t i = 0; o && i < sizeof kept / sizeof *kept; i++)
        if (json_object_get(report, kept[i]))
            json_object_set(o, kept[i], json_object_get(report, kept[i]));
    for (size_t i = 0; o && i < sizeof ranked / sizeof *ranked; i++) {
        json_t *all = json_object_get(report, ranked[i]), *top = json_array();
        for (size_t k = 0; top && k < json_array_size(all) && k < EXPLORE_MEMSPY_ROWS; k++)
            json_array_append(top, json_array_get(all, k));
        if (json_object_set_new(o, ranked[i], top ? top : json_null()) != 0) {
            json_decref(o);
            o = NULL;
        }
    }
    return o;
}

int explore_memspy_load(const char *path, json_t **out, char *err, size_t errlen)
{
    json_error_t je;
    *out = json_load_file(path, 0, &je);
    if (!*out) {
        snprintf(err, errlen, "%s: not a memspy JSON report: %s (line %d); write one with augur memspy --format json "
                 "--output FILE.json",
                 path, je.text, je.line);
        return -1;
    }
    static const char *const needed[] = {"program", "total", "pairs", "data_objects", "code_objects"};
    for (size_t i = 0; i < sizeof needed / sizeof *needed; i++)
        if (!json_object_get(*out, needed[i])) {
            snprintf(err, errlen, "%s: not a memspy JSON report: it has no \"%s\" (write one with augur memspy "
                     "--format json --output FILE.json)",
                     path, needed[i]);
            json_decref(*out);
            *out = NULL;
            return -1;
        }
    json_t *trimmed = memspy_trim(*out);
    json_decref(*out);
    *out = trimmed;
    if (!trimmed)
        snprintf(err, errlen, "out of memory");
    return trimmed ? 0 : -1;
}

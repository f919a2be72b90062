/* modelset_runs.c — which runs a model set is fitted over and which of
 * their parameters it models, and the refusals for what cannot be modeled:
 * too few runs, a run without a modeled parameter, runs that differ in a
 * parameter left out, runs whose program is unknown.  Runs of several
 * builds are grouped by build here, the newest run's build first;
 * modelset_builds.c judges whether they are builds of one source. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "modelset/modelset.h"

/* The runs as db_get_run reads them, and the program each ran. */
typedef struct run_list {
    size_t n;
    db_run *runs;
    ms_program *progs;
} run_list;

static void program_free(ms_program *p)
{
    free(p->path), free(p->build_id);
    memset(p, 0, sizeof *p);
}

static void run_list_free(run_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        db_run_free(&l->runs[i]);
        if (l->progs)
            program_free(&l->progs[i]);
    }
    free(l->runs);
    free(l->progs);
}

static int load_runs(db *d, const modelset_options *o, run_list *l, char *err, size_t errlen)
{
    int64_t *ids = NULL;
    size_t n = o->nruns;
    if (o->runs) {
        if (!(ids = malloc((n + 1) * sizeof *ids)))
            return snprintf(err, errlen, "out of memory"), -1;
        memcpy(ids, o->runs, n * sizeof *ids);
    } else if (db_complete_runs(d, &ids, &n, err, errlen) != 0)
        return -1;
    l->runs = calloc(n + 1, sizeof *l->runs);
    l->progs = calloc(n + 1, sizeof *l->progs);
    int rc = l->runs && l->progs ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++, l->n++)
        rc = db_get_run(d, ids[i], &l->runs[i], err, errlen) != 0 ? -1 : 0;
    for (size_t i = 0; rc == 0 && o->progress && i < l->n; i++)
        if (*l->runs[i].counted) /* the models are of the part counted (docs/collector.md, "Regions") */
            fprintf(o->progress, "augur model: run %lld counted %s\n", (long long)l->runs[i].id, l->runs[i].counted);
    for (size_t i = 0; rc == 0 && o->progress && i < l->n; i++) { /* the histogram models are fitted to estimates */
        char sampled[160];
        if (*db_sampled_sentence(l->runs[i].sample_rd, sampled, sizeof sampled))
            fprintf(o->progress, "augur model: run %lld: %s\n", (long long)l->runs[i].id, sampled);
    }
    free(ids);
    return rc;
}

static const db_param *find_param(const db_run *r, const char *name)
{
    for (size_t i = 0; i < r->nparams; i++)
        if (!strcmp(r->params[i].name, name))
            return &r->params[i];
    return NULL;
}

/* Is parameter `name` the same (or absent) in every run? */
static int varies(const run_list *l, const char *name)
{
    const db_param *first = find_param(&l->runs[0], name);
    for (size_t i = 1; i < l->n; i++) {
        const db_param *p = find_param(&l->runs[i], name);
        if (!p != !first || (p && p->value != first->value))
            return 1;
    }
    return 0;
}

static int add_name(ms_runs *out, const char *name, char *err, size_t errlen)
{
    for (int k = 0; k < out->nparams; k++)
        if (!strcmp(out->names[k], name))
            return 0;
    if (out->nparams == MODEL_MAX_PARAMS) {
        snprintf(err, errlen, "more than %d parameters vary between the runs: choose at most %d with --param",
                 MODEL_MAX_PARAMS, MODEL_MAX_PARAMS);
        return -1;
    }
    return (out->names[out->nparams++] = strdup(name)) ? 0 : -1;
}

/* The modeled parameters: the ones asked for, else every one that varies. */
static int choose_params(const run_list *l, const modelset_options *o, ms_runs *out, char *err, size_t errlen)
{
    for (int k = 0; k < o->nparams; k++)
        if (add_name(out, o->params[k], err, errlen) != 0)
            return -1;
    for (size_t i = 0; !o->params && i < l->n; i++)
        for (size_t p = 0; p < l->runs[i].nparams; p++)
            if (varies(l, l->runs[i].params[p].name) && add_name(out, l->runs[i].params[p].name, err, errlen) != 0)
                return -1;
    if (out->nparams == 0) {
        snprintf(err, errlen,
                 "no parameter varies between the %zu runs: collect runs at several values of the problem size, "
                 "e.g. `augur collect --param N=32 -- ./prog 32`, then model",
                 l->n);
        return -1;
    }
    return 0;
}

/* Every run has every modeled parameter; the others are equal in all runs. */
static int check_params(const run_list *l, const ms_runs *out, char *err, size_t errlen)
{
    for (size_t i = 0; i < l->n; i++)
        for (int k = 0; k < out->nparams; k++)
            if (!find_param(&l->runs[i], out->names[k])) {
                snprintf(err, errlen,
                         "run %lld has no parameter %s: every run of a model needs it (collect it again with "
                         "--param %s=VALUE, or leave it out with --runs)",
                         (long long)l->runs[i].id, out->names[k], out->names[k]);
                return -1;
            }
    for (size_t i = 0; i < l->n; i++)
        for (size_t p = 0; p < l->runs[i].nparams; p++) {
            const char *name = l->runs[i].params[p].name;
            int modeled = 0;
            for (int k = 0; k < out->nparams; k++)
                modeled |= !strcmp(out->names[k], name);
            if (!modeled && varies(l, name)) {
                snprintf(err, errlen,
                         "the runs differ in parameter %s, which is not modeled: add --param %s, or choose runs "
                         "that agree on it with --runs",
                         name, name);
                return -1;
            }
        }
    return 0;
}

/* The program of every run (path and build-id of the main module, which
 * db_run_modules identifies and lists first) into l->progs; -1 with a
 * message when a run's program is unknown. */
static int find_programs(db *d, run_list *l, char *err, size_t errlen)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < l->n; i++) {
        db_run_module *m = NULL;
        size_t n = 0;
        if ((rc = db_run_modules(d, l->runs[i].id, &m, &n, err, errlen)) != 0)
            break;
        if (n == 0) {
            snprintf(err, errlen, "run %lld executed no instruction of a known module", (long long)l->runs[i].id);
            rc = -1;
        } else if (!m[0].is_program)
            rc = db_program_unknown(l->runs[i].id, err, errlen);
        else {
            l->progs[i] = (ms_program){.path = strdup(m[0].path), .build_id = strdup(m[0].build_id)};
            rc = l->progs[i].path && l->progs[i].build_id ? 0 : (snprintf(err, errlen, "out of memory"), -1);
        }
        db_run_modules_free(m, n);
    }
    return rc;
}

static int same_program(const ms_program *a, const ms_program *b)
{
    return !strcmp(a->path, b->path) && !strcmp(a->build_id, b->build_id);
}

/* The builds the kept runs ran, the newest run's first (the reference,
 * whose addresses and scopes a set across builds is stored in), each with
 * its modules.id, and each run's build. */
static int group_builds(db *d, run_list *l, ms_runs *out, char *err, size_t errlen)
{
    size_t newest = 0;
    for (size_t i = 1; i < l->n; i++)
        if (l->runs[i].id > l->runs[newest].id)
            newest = i;
    out->builds = calloc(l->n + 1, sizeof *out->builds);
    out->run_build = calloc(l->n + 1, sizeof *out->run_build);
    if (!out->builds || !out->run_build)
        return snprintf(err, errlen, "out of memory"), -1;
    out->builds[out->nbuilds++] = l->progs[newest]; /* moved: l->progs[newest] no longer owns it */
    memset(&l->progs[newest], 0, sizeof l->progs[newest]);
    for (size_t i = 0; i < l->n; i++) {
        if (i == newest)
            continue;
        size_t b = 0;
        while (b < out->nbuilds && !same_program(&out->builds[b], &l->progs[i]))
            b++;
        if (b == out->nbuilds) {
            out->builds[out->nbuilds++] = l->progs[i];
            memset(&l->progs[i], 0, sizeof l->progs[i]);
        }
        out->run_build[i] = b;
    }
    for (size_t b = 0; b < out->nbuilds; b++)
        if (db_module_id(d, out->builds[b].path, out->builds[b].build_id, &out->builds[b].module_id, err,
                         errlen) != 0)
            return -1;
    out->program = strdup(out->builds[0].path);
    out->program_module = out->builds[0].module_id;
    return out->program ? 0 : (snprintf(err, errlen, "out of memory"), -1);
}

/* The newest run at each distinct parameter point, ascending id. */
static void drop_repeats(run_list *l, const ms_runs *out, FILE *progress)
{
    size_t kept = 0;
    for (size_t i = 0; i < l->n; i++) {
        int repeated = 0;
        for (size_t j = i + 1; j < l->n && !repeated; j++) {
            repeated = 1;
            for (int k = 0; k < out->nparams; k++)
                repeated &= find_param(&l->runs[i], out->names[k])->value ==
                            find_param(&l->runs[j], out->names[k])->value;
            if (repeated && progress)
                fprintf(progress, "augur model: run %lld repeats the parameters of run %lld; using run %lld\n",
                        (long long)l->runs[i].id, (long long)l->runs[j].id, (long long)l->runs[j].id);
        }
        if (repeated) {
            db_run_free(&l->runs[i]);
            program_free(&l->progs[i]);
        } else {
            l->progs[kept] = l->progs[i];
            l->runs[kept++] = l->runs[i];
        }
    }
    l->n = kept;
}

/* Block sizes measured by every run. */
static void common_block_sizes(const run_list *l, ms_runs *out)
{
    out->nblock_sizes = 0;
    for (int b = 0; b < l->runs[0].nblock_sizes; b++) {
        uint32_t size = l->runs[0].block_sizes[b];
        int everywhere = 1;
        for (size_t i = 1; i < l->n; i++) {
            int has = 0;
            for (int c = 0; c < l->runs[i].nblock_sizes; c++)
                has |= l->runs[i].block_sizes[c] == size;
            everywhere &= has;
        }
        if (everywhere)
            out->block_sizes[out->nblock_sizes++] = size;
    }
}

static int fill_points(const run_list *l, ms_runs *out)
{
    out->n = l->n;
    out->ids = malloc((l->n + 1) * sizeof *out->ids);
    out->x = malloc((l->n * (size_t)out->nparams + 1) * sizeof *out->x);
    if (!out->ids || !out->x)
        return -1;
    for (int k = 0; k < out->nparams; k++)
        out->lo[k] = INFINITY, out->hi[k] = -INFINITY;
    for (size_t i = 0; i < l->n; i++) {
        out->ids[i] = l->runs[i].id;
        for (int k = 0; k < out->nparams; k++) {
            double v = find_param(&l->runs[i], out->names[k])->value;
            out->x[i * (size_t)out->nparams + (size_t)k] = v;
            out->lo[k] = fmin(out->lo[k], v);
            out->hi[k] = fmax(out->hi[k], v);
        }
    }
    return 0;
}

int ms_runs_select(db *d, const modelset_options *o, ms_runs *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    run_list l = {0};
    int rc = load_runs(d, o, &l, err, errlen);
    if (rc == 0 && l.n < 3) {
        snprintf(err, errlen,
                 "%zu complete run%s in %s: a model needs at least 3 runs at distinct parameter values (5 or more "
                 "recommended); add runs with `augur collect --param N=VALUE -- PROGRAM ...`",
                 l.n, l.n == 1 ? "" : "s", db_path(d));
        rc = -1;
    }
    if (rc == 0)
        rc = choose_params(&l, o, out, err, errlen);
    if (rc == 0)
        rc = check_params(&l, out, err, errlen);
    if (rc == 0)
        rc = find_programs(d, &l, err, errlen);
    if (rc == 0) {
        drop_repeats(&l, out, o->progress);
        common_block_sizes(&l, out);
        if (fill_points(&l, out) != 0) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        }
    }
    if (rc == 0)
        rc = group_builds(d, &l, out, err, errlen);
    if (rc == 0 && out->n < 3) {
        snprintf(err, errlen,
                 "the runs have %zu distinct parameter points: a model needs at least 3 (5 or more recommended)",
                 out->n);
        rc = -1;
    }
    run_list_free(&l);
    return rc;
}

void ms_runs_free(ms_runs *r)
{
    free(r->ids);
    free(r->x);
    for (int k = 0; k < r->nparams; k++)
        free(r->names[k]);
    free(r->program);
    for (size_t b = 0; r->builds && b < r->nbuilds; b++)
        program_free(&r->builds[b]);
    free(r->builds);
    free(r->run_build);
    memset(r, 0, sizeof *r);
}

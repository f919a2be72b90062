/* modelset_nests.c — the loops inside a count's subject whose iterations
 * times cost per iteration may model it (docs/models.md, "Loops:
 * iterations times cost per iteration"): the per-run counts of every scope
 * of the program's structure, read once for the scope models and for the
 * function rows, and the candidate loops of a function row or scope
 * (model_compose_nested).
 *
 * A loop nest whose outer loops have exact trips and whose innermost
 * exact loop holds a data-dependent part (snap's octant_sweep: 192 N^3
 * cell-angle updates, a fix-up repeated while new faces turn negative) is
 * a count that no normal form follows, while the structure knows it is the
 * count outside that loop, exact, plus the loop's iterations, exact, times
 * a bounded cost.  The candidates are the scope's own loop and the loops
 * under it that hold at least half of its count in every run (where its
 * work is; the others leave the outside inexact).  For a count whose
 * events all lie inside a loop (a reuse group's touches), the candidates
 * are that loop and the loops around it (ms_nests_enclosing). */
#include <stdlib.h>
#include <string.h>

#include "modelset/modelset.h"

#define NEST_SHARE 0.5 /* a candidate loop holds at least this share of the subject's count in every run */
#define MAX_NESTS 8    /* candidates per count, the outermost first */

/* How many loop levels lie inside each scope of t (the longest chain of
 * loops below it), into a new array; NULL when memory runs out.  Parents
 * come before their children, so one pass from the end settles them. */
static int *loop_levels_inside(const scope_tree *t)
{
    int *in = calloc(t->nscopes + 1, sizeof *in);
    for (size_t s = t->nscopes; in && s-- > 1;) {
        int64_t p = t->scopes[s].parent;
        int through = in[s] + !strcmp(t->scopes[s].kind, "loop");
        if (p >= 0 && (size_t)p < t->nscopes && through > in[p])
            in[p] = through;
    }
    return in;
}

/* The counts of run r per scope of the reference: a run of another build
 * counted in its own structure, moved to the reference's scopes it matches
 * (the others stay 0: they are not modeled).  -1 with a message. */
static int run_scope_counts(ms_fitter *f, size_t r, scope_counts **out)
{
    const ms_builds *bs = f->builds;
    size_t b = bs ? f->runs->run_build[r] : 0;
    if (!bs || b == 0)
        return report_scope_counts(f->d, f->runs->ids[r], f->program, out, f->err, f->errlen);
    return ms_counts_in_reference(f->d, f->runs->ids[r], &bs->b[b].tree, bs->b[b].of_ref, f->program->nscopes, out,
                                  f->err, f->errlen);
}

int ms_scopes_load(ms_fitter *f)
{
    const scope_tree *t = f->program;
    if (!t)
        return 0;
    size_t n = f->runs->n;
    f->scope_runs = calloc(n + 1, sizeof *f->scope_runs);
    f->levels = loop_levels_inside(t);
    if (!f->scope_runs || !f->levels)
        return snprintf(f->err, f->errlen, "out of memory"), -1;
    for (size_t r = 0; r < n; r++)
        if (run_scope_counts(f, r, &f->scope_runs[r]) != 0)
            return -1;
    return 0;
}

void ms_scopes_free(ms_fitter *f)
{
    for (size_t r = 0; f->scope_runs && r < f->runs->n; r++)
        free(f->scope_runs[r]);
    free(f->scope_runs), free(f->levels);
    f->scope_runs = NULL, f->levels = NULL;
}

/* The series of `metric` of scope s over the runs into y; -1 for a metric
 * scopes do not count. */
static int scope_metric_series(const ms_fitter *f, size_t s, const char *metric, double *y)
{
    for (size_t r = 0; r < f->runs->n; r++) {
        uint64_t v;
        if (ms_scope_metric(&f->scope_runs[r][s], metric, &v) != 0)
            return -1;
        y[r] = (double)v;
    }
    return 0;
}

/* Add loop s as a candidate of job j when its count of the job's metric
 * holds at least NEST_SHARE of the job's in every run.  0, or -1 when
 * memory runs out. */
static int add_nest(ms_fitter *f, ms_job *j, size_t s, int own)
{
    size_t n = f->runs->n;
    ms_nest k = {.trips = malloc(n * sizeof *k.trips),
                 .count = malloc(n * sizeof *k.count),
                 .degree = f->levels[s],
                 .own = own};
    ms_nest *grown = realloc(j->nests, (j->nnests + 1) * sizeof *grown);
    if (grown)
        j->nests = grown;
    if (!k.trips || !k.count || !grown) {
        free(k.trips), free(k.count);
        return snprintf(f->err, f->errlen, "out of memory"), -1;
    }
    int holds = scope_metric_series(f, s, j->metric, k.count) == 0 && scope_metric_series(f, s, "headers", k.trips) == 0;
    for (size_t r = 0; holds && r < n; r++)
        holds = k.count[r] >= NEST_SHARE * j->y[r] && k.trips[r] > 0;
    if (!holds) {
        free(k.trips), free(k.count);
        return 0;
    }
    j->nests[j->nnests++] = k;
    return 0;
}

/* The candidate loops of job j in the subtree of scope s (s itself when a
 * loop), outermost first; `own` when s is the job's subject. */
static int add_nests_under(ms_fitter *f, ms_job *j, size_t s, int own)
{
    const scope_tree *t = f->program;
    if (j->nnests >= MAX_NESTS)
        return 0;
    if (!strcmp(t->scopes[s].kind, "loop") && add_nest(f, j, s, own) != 0)
        return -1;
    for (uint32_t c = 0; c < t->count[s]; c++)
        if (add_nests_under(f, j, t->child[t->first[s] + c], 0) != 0)
            return -1;
    return 0;
}

int ms_nests_attach(ms_fitter *f, size_t job, size_t s)
{
    if (!f->scope_runs || f->runs->nparams != 1 || job >= f->njobs)
        return 0;
    return add_nests_under(f, &f->jobs[job], s, 1);
}

int ms_nests_attach_function(ms_fitter *f, size_t job, const char *function, const char *module)
{
    const scope_tree *t = f->program;
    if (!f->scope_runs || !function || !module || strcmp(module, t->binary.path) != 0)
        return 0;
    for (size_t s = 1; s < t->nscopes; s++)
        if (!strcmp(t->scopes[s].kind, "function") && t->scopes[s].name && !strcmp(t->scopes[s].name, function))
            return f->runs->nparams == 1 && job < f->njobs ? add_nests_under(f, &f->jobs[job], s, 0) : 0;
    return 0;
}

size_t ms_nests_enclosing(const ms_fitter *f, int64_t loop, double *trips, int *degree, size_t max)
{
    const scope_tree *t = f->program;
    size_t n = f->runs->n, k = 0;
    if (!f->scope_runs || f->runs->nparams != 1 || !t || loop <= 0 || (uint64_t)loop >= t->nscopes)
        return 0;
    for (int64_t s = loop; s > 0 && (uint64_t)s < t->nscopes && k < max; s = t->scopes[s].parent) {
        const char *kind = t->scopes[s].kind;
        if (strcmp(kind, "loop") != 0) {
            if (strcmp(kind, "inlined") != 0)
                break; /* its function: a count outside it is not the loops' */
            continue;
        }
        int entered = 1;
        for (size_t r = 0; r < n; r++)
            entered &= (trips[k * n + r] = (double)f->scope_runs[r][s].headers) > 0;
        if (!entered)
            break; /* a run never reached it, nor anything inside it */
        degree[k++] = f->levels[s];
    }
    return k;
}

unsigned char *ms_loops_inexact(const ms_fitter *f)
{
    const scope_tree *t = f->program;
    if (!f->scope_runs || !t || f->runs->nparams != 1)
        return NULL;
    size_t n = f->runs->n;
    unsigned char *out = calloc(t->nscopes + 1, 1);
    double *y = malloc((n + 1) * sizeof *y);
    model_options o = f->mo;
    o.integer_counts = 1, o.nonly = 0;
    for (size_t s = 1; out && y && s < t->nscopes; s++) {
        int entered = !strcmp(t->scopes[s].kind, "loop");
        for (size_t r = 0; entered && r < n; r++)
            entered = (y[r] = (double)f->scope_runs[r][s].headers) > 0;
        model_series trips = {.npoints = n, .nparams = 1, .x = f->runs->x, .y = y};
        model m;
        out[s] = entered && model_fit(&trips, &o, &m, NULL, 0) == 0 && !model_exact_trips(&m);
    }
    if (!y)
        free(out), out = NULL;
    free(y);
    return out;
}

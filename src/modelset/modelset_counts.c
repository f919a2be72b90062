/* modelset_counts.c — count models: the program's total, every function
 * (name, module) and source line (file, line, function) as `augur report`
 * groups them, every block, and every scope of the program's structure
 * (instructions, accesses, flops, executions per instruction class, loop
 * header executions and entries).
 *
 * A block here is a maximal run of instructions at consecutive addresses of
 * one function that executed equally often in every run: the basic blocks
 * of the CFG, merged where the runs cannot tell them apart.
 *
 * Series that are 0 in every run are not stored: a missing model means 0.
 *
 * A function whose paths change with the size (modelset_paths.c: of a
 * library, or with instructions some runs did not execute) is modeled as
 * calls times work per call where that cross-validates better, its calls
 * are stored (metric "calls"), a library function's bytes too (metrics
 * "bytes_read", "bytes_written", on whole powers), its counts are its bytes
 * times the largest run's counts per byte when its path changed between
 * the runs (ms_path_fn.per_byte), and when its instructions model is
 * neither exact nor constant its lines and blocks are its models shared as
 * its largest run mixed them (docs/models.md, "Library routines: work per
 * call").
 *
 * A function row and a scope whose model is neither exact nor constant
 * may be the count outside a loop they hold plus that loop's iterations
 * times its cost per iteration (choose_composed; the candidate loops from
 * modelset_nests.c).
 *
 * The series of each kind are queued (ms_fit_put), then fitted on
 * f->opts->jobs threads and stored in the order they were queued
 * (ms_fit_flush, util/parallel.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "modelset/modelset.h"
#include "report/static_check.h"
#include "util/array.h"
#include "util/parallel.h"

/* The powers of the parameter tried for a path function's work per call
 * (model_compose's degree): a routine's work grows with the length it is
 * given, and lengths of arrays and their sections (a row, a plane, a
 * volume) up to the cube of a size. */
#define PATH_DEGREE 3

int ms_fit_put(ms_fitter *f, const db_model_subject *s, const char *metric, const double *y)
{
    size_t n = f->runs->n;
    int zero = 1;
    for (size_t r = 0; r < n; r++)
        zero &= y[r] == 0;
    if (zero)
        return 0;
    ms_job *jobs = array_grow(f->jobs, f->njobs, &f->cap, sizeof *jobs);
    if (!jobs)
        return snprintf(f->err, f->errlen, "out of memory"), -1;
    f->jobs = jobs;
    ms_job *j = &f->jobs[f->njobs];
    *j = (ms_job){.subject = *s, .metric = strdup(metric), .y = malloc(n * sizeof *j->y)};
    if (!j->metric || !j->y) {
        free(j->metric), free(j->y);
        return snprintf(f->err, f->errlen, "out of memory"), -1;
    }
    memcpy(j->y, y, n * sizeof *y);
    f->njobs++;
    return 0;
}

int ms_fit_put_model(ms_fitter *f, const db_model_subject *s, const char *metric, const model *m)
{
    size_t before = f->njobs, n = f->runs->n;
    double *zeros = calloc(n + 1, sizeof *zeros);
    if (!zeros)
        return snprintf(f->err, f->errlen, "out of memory"), -1;
    zeros[0] = 1; /* not skipped as a zero series: the model is what is stored */
    int rc = ms_fit_put(f, s, metric, zeros);
    free(zeros);
    if (rc == 0 && f->njobs > before)
        f->jobs[before].m = *m, f->jobs[before].preset = 1, f->jobs[before].fitted = 1;
    return rc;
}

int ms_fit_put_loop(ms_fitter *f, const db_model_subject *s, const char *metric, const double *y,
                    const double *trips, int degree)
{
    size_t before = f->njobs, n = f->runs->n;
    if (ms_fit_put(f, s, metric, y) != 0 || f->njobs == before)
        return f->njobs == before ? 0 : -1;
    ms_job *j = &f->jobs[before];
    if (!(j->trips = malloc(n * sizeof *j->trips)))
        return snprintf(f->err, f->errlen, "out of memory"), -1;
    memcpy(j->trips, trips, n * sizeof *trips);
    j->degree = degree;
    return 0;
}

/* Replace job j's direct model by iterations times cost per iteration when
 * that cross-validates at least as well: of the calls of a path function
 * (j->trips), or of a loop of the subject with the count outside it exact
 * (j->nests, outermost first: the innermost that qualifies wins, its cost
 * the most constrained, by the fewest loop levels inside).  A loop inside
 * the subject qualifies only with exact trips: through a data-dependent
 * loop the product would carry its trips' free fit (dataloop.c's fix-up
 * passes, about 1.4 N^3, fitted as 1.39 N^(5/2) log2 N: -13% at 4x).  A
 * loop whose trips are exact may cross-validate up to twice the direct
 * fit's error (the forms the runs cannot tell apart, model_fit's spread):
 * of those, the one the structure knows, the direct fit kept in its
 * spread.  An exact or constant direct model stays. */
static void choose_composed(const ms_fitter *f, ms_job *j, const model_series *direct)
{
    if (j->m.method == MODEL_EXACT || j->m.method == MODEL_CONSTANT)
        return;
    model d = j->m, c, trips_m;
    model_series trips = *direct;
    trips.y = j->trips;
    if (j->trips && model_compose(&trips, j->y, j->degree, &f->mo, &c, NULL, 0) == 0 && c.cv_smape <= j->m.cv_smape)
        j->m = c;
    for (size_t k = 0; k < j->nnests; k++) {
        trips.y = j->nests[k].trips;
        if (model_compose_nested(&trips, j->y, j->nests[k].count, j->nests[k].degree, &f->mo, &c, &trips_m, NULL,
                                 0) != 0)
            continue;
        int exact = model_exact_trips(&trips_m);
        double bar = exact ? 2 * d.cv_smape + 1e-6 : d.cv_smape;
        if ((exact || j->nests[k].own) && c.cv_smape <= bar)
            j->m = c;
    }
    if (j->m.method == MODEL_COMPOSED)
        model_keep_alternative(&j->m, &d, direct);
}

/* The options of job j's fit: f's, on whole powers only for the bytes of
 * a path function.  The vector paths' head and tail stores overlap the
 * loop's (memset of 816 bytes stores 1,000), a share that falls as 1/length
 * and drew the PMNF search to N^(7/4)*log2(N), 12% low at 4x on ssor. */
static model_options job_options(const ms_fitter *f, const ms_job *j)
{
    model_options o = f->mo;
    if (!j->whole_powers || f->runs->nparams != 1)
        return o;
    o.nonly = 0;
    for (int e = 1; e <= PATH_DEGREE; e++)
        o.only[o.nonly++] = (model_term){.coef = 1, .nfactors = 1, .factors = {{0, e, 0}}};
    return o;
}

/* Replace job j's model by the bytes of its path function times its count
 * per byte in the function's largest run (ms_path_per_byte): the bytes are
 * fitted as the stored bytes rows are (put_bytes).  An exact or constant
 * model stays: it holds the largest run's path already (memset's reads, 2
 * a call: its `ret` and its load of rep_stosb_threshold). */
static void choose_per_byte(const ms_fitter *f, ms_job *j, const model_series *direct)
{
    if (j->m.method == MODEL_EXACT || j->m.method == MODEL_CONSTANT)
        return;
    size_t n = f->runs->n;
    double *bytes = malloc(n * sizeof *bytes);
    ms_job b = {.y = bytes, .trips = j->trips, .degree = j->degree, .whole_powers = 1};
    model_series series = *direct;
    series.y = bytes;
    model_options o = job_options(f, &b);
    if (bytes && ms_path_bytes(j->per_byte, n, bytes) == 0 && model_fit(&series, &o, &b.m, NULL, 0) == 0) {
        if (b.trips)
            choose_composed(f, &b, &series);
        ms_path_per_byte(j->per_byte, n, &b.m, j->y[j->per_byte->largest], &j->m);
    }
    free(bytes);
}

/* par_work_fn: fit job i (on any thread: it writes only the job). */
static void fit_job(void *ctx, size_t i)
{
    ms_fitter *f = ctx;
    ms_job *j = &f->jobs[i];
    model_series series = {.npoints = f->runs->n, .nparams = f->runs->nparams, .x = f->runs->x, .y = j->y};
    if (j->preset)
        return;
    char why[512];
    model_options o = job_options(f, j);
    j->fitted = model_fit(&series, &o, &j->m, why, sizeof why) == 0;
    j->direct_cv = j->m.cv_smape;
    if (j->fitted && (j->trips || j->nnests))
        choose_composed(f, j, &series);
    if (j->fitted && j->per_byte)
        choose_per_byte(f, j, &series);
    if (j->fitted && j->st)
        ms_static_choose(f, j, &series);
    if (!j->fitted)
        j->why = strdup(why);
}

/* par_take_fn: store job i's model (on the calling thread, in order). */
static int store_job(void *ctx, size_t i)
{
    ms_fitter *f = ctx;
    ms_job *j = &f->jobs[i];
    if (!j->fitted && !j->why)
        return snprintf(f->err, f->errlen, "out of memory"), -1;
    if (!j->fitted)
        return ms_fail_count(f, &j->subject, j->metric, j->why);
    if (db_model_put(f->w, &j->subject, j->metric, &j->m, NULL, f->err, f->errlen) != 0)
        return -1;
    if (j->keep)
        *j->keep = j->m; /* a function's model, for its lines and blocks */
    f->models++;
    return 0;
}

int ms_fit_flush(ms_fitter *f)
{
    int rc = par_ordered(f->njobs, f->opts->jobs, fit_job, store_job, f);
    ms_fit_clear(f);
    return rc;
}

void ms_fit_clear(ms_fitter *f)
{
    for (size_t i = 0; i < f->njobs; i++) {
        ms_job *j = &f->jobs[i];
        for (size_t k = 0; k < j->nnests; k++)
            free(j->nests[k].trips), free(j->nests[k].count);
        free(j->metric), free(j->y), free(j->trips), free(j->why), free(j->nests), model_static_free(j->st);
    }
    f->njobs = 0;
}

/* ---- grouping locations ---------------------------------------------------- */

#define NKEYS 3

typedef struct keyed_loc {
    int64_t key[NKEYS];
    size_t loc;
} keyed_loc;

static int compare_keyed(const void *pa, const void *pb)
{
    const keyed_loc *a = pa, *b = pb;
    for (int k = 0; k < NKEYS; k++)
        if (a->key[k] != b->key[k])
            return a->key[k] < b->key[k] ? -1 : 1;
    return a->loc < b->loc ? -1 : a->loc > b->loc;
}

typedef void (*key_fn)(const ms_loc *l, int64_t key[NKEYS]);

static void total_key(const ms_loc *l, int64_t key[NKEYS])
{
    (void)l;
    memset(key, 0, NKEYS * sizeof *key);
}

static void function_key(const ms_loc *l, int64_t key[NKEYS])
{
    key[0] = l->function_id, key[1] = l->module_id, key[2] = 0;
}

static void line_key(const ms_loc *l, int64_t key[NKEYS])
{
    key[0] = l->file_id, key[1] = l->line, key[2] = l->function_id;
}

/* The report row kinds, each a key and what names its subject. */
typedef struct row_kind {
    const char *kind;
    key_fn key;
    int function, file, module; /* which names the subject carries */
} row_kind;

static const row_kind row_kinds[] = {
    {"total", total_key, 0, 0, 0},
    {"function", function_key, 1, 0, 1},
    {"line", line_key, 1, 1, 0},
};

static const char *const row_metrics[3] = {"instructions", "reads", "writes"};

/* Queue the three metrics of a row (sums: each metric's series, one after
 * the other); with a path function fn, the function's own: as calls times
 * work per call where that cross-validates better, its models kept in fn
 * for its lines and blocks. */
static int put_metrics(ms_fitter *f, const db_model_subject *subj, const double *sums, ms_path_fn *fn)
{
    size_t n = f->runs->n, before = f->njobs;
    for (int m = 0; m < 3; m++) {
        const double *y = sums + (size_t)m * n;
        int rc = fn && ms_path_called(fn, n) ? ms_fit_put_loop(f, subj, row_metrics[m], y, fn->calls, PATH_DEGREE)
                                             : ms_fit_put(f, subj, row_metrics[m], y);
        if (rc == 0 && f->njobs > before && !strcmp(subj->kind, "function"))
            rc = ms_nests_attach_function(f, before, subj->function, subj->module);
        if (rc != 0)
            return -1;
        if (fn && f->njobs > before) {
            f->jobs[f->njobs - 1].keep = &fn->kept[m];
            f->jobs[f->njobs - 1].per_byte = fn->per_byte ? fn : NULL;
        }
        before = f->njobs;
    }
    return 0;
}

/* A path function's bytes read and written, each as its counts are (for
 * predict's widening of a path beyond the training sizes). */
static int put_bytes(ms_fitter *f, const db_model_subject *subj, const ms_path_fn *fn)
{
    static const char *const metric[2] = {"bytes_read", "bytes_written"};
    size_t n = f->runs->n;
    for (int k = 0; fn->bytes && k < 2; k++) {
        const double *y = fn->bytes + (size_t)k * n;
        size_t before = f->njobs;
        if ((ms_path_called(fn, n) ? ms_fit_put_loop(f, subj, metric[k], y, fn->calls, PATH_DEGREE)
                                   : ms_fit_put(f, subj, metric[k], y)) != 0)
            return -1;
        if (f->njobs > before)
            f->jobs[before].whole_powers = 1;
    }
    return 0;
}

/* A path function's row: its three metrics, its bytes and its calls. */
static int put_path_function(ms_fitter *f, const db_model_subject *subj, ms_path_fn *fn, const double *sums)
{
    if (put_metrics(f, subj, sums, fn) != 0 || put_bytes(f, subj, fn) != 0)
        return -1;
    return ms_path_called(fn, f->runs->n) ? ms_fit_put(f, subj, "calls", fn->calls) : 0;
}

/* A line of a path function that distributes: each metric's share of the
 * function's model, part[m] being the line's count in the largest run
 * (nothing for a share of 0: a missing model means 0). */
static int put_shares(ms_fitter *f, const db_model_subject *subj, const ms_path_fn *fn, const double *part)
{
    for (int m = 0; m < 3; m++) {
        model share;
        if (part[m] > 0 && ms_path_share(fn, m, part[m], &share) == 0 &&
            ms_fit_put_model(f, subj, row_metrics[m], &share) != 0)
            return -1;
    }
    return 0;
}

/* Sum the series of locations k[first..end) and store the three metrics. */
static int put_group(ms_fitter *f, const row_kind *rk, const keyed_loc *k, size_t first, size_t end, double *sums)
{
    const ms_series *s = f->series;
    size_t n = s->runs->n;
    memset(sums, 0, 3 * n * sizeof *sums);
    for (size_t i = first; i < end; i++)
        for (size_t r = 0; r < n; r++) {
            size_t v = k[i].loc * n + r;
            sums[r] += s->exec[v];
            sums[n + r] += s->reads[v];
            sums[2 * n + r] += s->writes[v];
        }
    size_t l = k[first].loc;
    db_model_subject subj = {.kind = rk->kind,
                             .function = rk->function ? s->function[l] : NULL,
                             .file = rk->file ? s->file[l] : NULL,
                             .module = rk->module ? s->module[l] : NULL,
                             .line = rk->file ? s->locs[l].line : 0,
                             .scope = -1};
    ms_path_fn *fn = rk->function ? ms_paths_find(f->paths, &s->locs[l]) : NULL;
    if (!fn)
        return put_metrics(f, &subj, sums, NULL);
    if (!strcmp(rk->kind, "function"))
        return put_path_function(f, &subj, fn, sums);
    if (!ms_path_distributes(fn))
        return put_metrics(f, &subj, sums, NULL);
    double part[3];
    for (int m = 0; m < 3; m++)
        part[m] = sums[(size_t)m * n + fn->largest];
    return put_shares(f, &subj, fn, part);
}

static int fit_rows(ms_fitter *f, const row_kind *rk)
{
    const ms_series *s = f->series;
    keyed_loc *k = malloc((s->nlocs + 1) * sizeof *k);
    double *sums = malloc((3 * s->runs->n + 1) * sizeof *sums);
    if (!k || !sums) {
        free(k), free(sums);
        return snprintf(f->err, f->errlen, "out of memory"), -1;
    }
    for (size_t i = 0; i < s->nlocs; i++) {
        rk->key(&s->locs[i], k[i].key);
        k[i].loc = i;
    }
    qsort(k, s->nlocs, sizeof *k, compare_keyed);
    int rc = 0;
    for (size_t first = 0, end; rc == 0 && first < s->nlocs; first = end) {
        for (end = first + 1; end < s->nlocs && !memcmp(k[end].key, k[first].key, sizeof k->key); end++)
            ;
        rc = put_group(f, rk, k, first, end, sums);
    }
    free(k), free(sums);
    return rc;
}

/* ---- blocks ---------------------------------------------------------------- */

/* Does location i continue the block of location i - 1? */
static int same_block(const ms_series *s, size_t i)
{
    const ms_loc *a = &s->locs[i - 1], *b = &s->locs[i];
    size_t n = s->runs->n;
    return b->addr < MS_UNMATCHED_ADDR && a->module_id == b->module_id && a->function_id == b->function_id && a->addr + a->len == b->addr &&
           !memcmp(&s->exec[(i - 1) * n], &s->exec[i * n], n * sizeof *s->exec);
}

/* The "block" subject of locations [first, end) of s. */
static db_model_subject block_subject(const ms_series *s, size_t first, size_t end)
{
    const ms_loc *l = &s->locs[first], *last = &s->locs[end - 1];
    return (db_model_subject){.kind = "block",
                              .module = s->module[first],
                              .function = s->function[first],
                              .file = s->file[first],
                              .line = l->line,
                              .scope = -1,
                              .addr = l->addr,
                              .end_addr = last->addr + last->len};
}

/* The taken count of every conditional branch of locations [first, end)
 * that jumped in some run: a "block" subject of the one instruction, metric
 * "taken" (for the branch-misprediction model of predict --machine). */
static int fit_taken(ms_fitter *f, size_t first, size_t end)
{
    const ms_series *s = f->series;
    int rc = 0;
    for (size_t i = first; rc == 0 && i < end; i++) {
        db_model_subject subj = block_subject(s, i, i + 1);
        rc = ms_fit_put(f, &subj, "taken", &s->taken[i * s->runs->n]); /* all-zero series are skipped */
    }
    return rc;
}

/* The block [first, end) of a path function that distributes: its
 * executions, and its branches' taken counts, as shares of the function's
 * instructions model by their instructions in its largest run (the block's
 * executions times its length, the branch's taken times 1), so that the
 * blocks add up to the function (ms_path_share). */
static int put_block_shares(ms_fitter *f, const ms_path_fn *fn, size_t first, size_t end)
{
    const ms_series *s = f->series;
    size_t n = s->runs->n;
    model share;
    db_model_subject subj = block_subject(s, first, end);
    double executions = s->exec[first * n + fn->largest];
    if (executions > 0 && ms_path_share(fn, 0, executions, &share) == 0 &&
        ms_fit_put_model(f, &subj, "executions", &share) != 0)
        return -1;
    for (size_t i = first; i < end; i++) {
        double taken = s->taken[i * n + fn->largest];
        subj = block_subject(s, i, i + 1);
        if (taken > 0 && ms_path_share(fn, 0, taken, &share) == 0 && ms_fit_put_model(f, &subj, "taken", &share) != 0)
            return -1;
    }
    return 0;
}

static int fit_blocks(ms_fitter *f)
{
    const ms_series *s = f->series;
    int rc = 0;
    for (size_t first = 0, end; rc == 0 && first < s->nlocs; first = end) {
        for (end = first + 1; end < s->nlocs && same_block(s, end); end++)
            ;
        if (s->locs[first].addr >= MS_UNMATCHED_ADDR)
            continue; /* code not matched across builds: no address to give a block */
        db_model_subject subj = block_subject(s, first, end);
        const ms_path_fn *fn = ms_paths_find(f->paths, &s->locs[first]);
        if (fn && ms_path_distributes(fn)) {
            rc = put_block_shares(f, fn, first, end);
            continue;
        }
        rc = ms_fit_put(f, &subj, "executions", &s->exec[first * s->runs->n]);
        if (rc == 0)
            rc = fit_taken(f, first, end);
    }
    return rc;
}

int ms_fit_counts(ms_fitter *f)
{
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < sizeof row_kinds / sizeof *row_kinds; k++) {
        if (f->opts->progress)
            fprintf(f->opts->progress, "augur model: fitting %s counts\n", row_kinds[k].kind);
        rc = fit_rows(f, &row_kinds[k]);
        if (rc == 0)
            rc = ms_fit_flush(f);
    }
    if (rc == 0 && f->opts->progress)
        fprintf(f->opts->progress, "augur model: fitting block counts\n");
    if (rc == 0)
        rc = fit_blocks(f);
    if (rc == 0)
        rc = ms_fit_flush(f);
    return rc;
}

/* ---- scopes ---------------------------------------------------------------- */

/* The series of one scope counter: get(c) in every run. */
typedef uint64_t (*counter_fn)(const scope_counts *c, int cls);

static uint64_t c_instructions(const scope_counts *c, int cls) { return (void)cls, c->instructions; }
static uint64_t c_reads(const scope_counts *c, int cls) { return (void)cls, c->reads; }
static uint64_t c_writes(const scope_counts *c, int cls) { return (void)cls, c->writes; }
static uint64_t c_flops(const scope_counts *c, int cls) { return (void)cls, c->flops; }
static uint64_t c_headers(const scope_counts *c, int cls) { return (void)cls, c->headers; }
static uint64_t c_entries(const scope_counts *c, int cls)
{
    (void)cls;
    return c->headers > c->back ? c->headers - c->back : 0;
}
static uint64_t c_class(const scope_counts *c, int cls) { return c->cls[cls]; }

/* The series get(c) of scope s in every run into y. */
static void scope_series(const ms_fitter *f, scope_counts **per_run, size_t s, counter_fn get, int cls, double *y)
{
    for (size_t r = 0; r < f->runs->n; r++)
        y[r] = (double)get(&per_run[r][s], cls);
}

static int put_scope_metric(ms_fitter *f, const db_model_subject *subj, const char *metric, scope_counts **per_run,
                            size_t s, counter_fn get, int cls, double *y)
{
    scope_series(f, per_run, s, get, cls, y);
    return ms_fit_put(f, subj, metric, y);
}

/* The scope counters modeled, by metric name; loops also have the last
 * two, every scope a "class:NAME" per instruction class. */
static const struct {
    const char *metric;
    counter_fn get;
} scope_counters[] = {{"instructions", c_instructions}, {"reads", c_reads}, {"writes", c_writes},
                      {"flops", c_flops}, {"headers", c_headers}, {"entries", c_entries}};
#define PLAIN_COUNTERS 4 /* of every scope; the rest are loops' */
#define CLASS_PREFIX "class:"

int ms_scope_metric(const scope_counts *c, const char *metric, uint64_t *v)
{
    for (size_t k = 0; k < sizeof scope_counters / sizeof *scope_counters; k++)
        if (!strcmp(metric, scope_counters[k].metric))
            return *v = scope_counters[k].get(c, 0), 0;
    for (int cls = 0; !strncmp(metric, CLASS_PREFIX, strlen(CLASS_PREFIX)) && cls < ST_CLASS_COUNT; cls++)
        if (!strcmp(metric + strlen(CLASS_PREFIX), st_class_name((enum st_class)cls)))
            return *v = c_class(c, cls), 0;
    return -1;
}

/* The counts of a scope that scale with its loops' iterations, modeled as
 * them times a cost per iteration where that cross-validates better
 * (ms_nests_attach): the first COMPOSED_COUNTERS of scope_counters. */
#define COMPOSED_COUNTERS PLAIN_COUNTERS

static int put_scope(ms_fitter *f, size_t s, double *y)
{
    const db_scope *sc = &f->program->scopes[s];
    scope_counts **per_run = f->scope_runs;
    db_model_subject subj = {.kind = "scope",
                             .module = f->program->binary.path,
                             .function = sc->name,
                             .file = sc->file,
                             .line = sc->first_line,
                             .scope = (int64_t)s,
                             .scope_kind = sc->kind};
    size_t ncounters = !strcmp(sc->kind, "loop") ? sizeof scope_counters / sizeof *scope_counters : PLAIN_COUNTERS;
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < ncounters; k++) {
        size_t before = f->njobs;
        rc = put_scope_metric(f, &subj, scope_counters[k].metric, per_run, s, scope_counters[k].get, 0, y);
        if (rc == 0 && k < COMPOSED_COUNTERS && f->njobs > before)
            rc = ms_nests_attach(f, before, s);
    }
    for (int c = 0; rc == 0 && c < ST_CLASS_COUNT; c++) {
        char metric[64];
        snprintf(metric, sizeof metric, CLASS_PREFIX "%s", st_class_name((enum st_class)c));
        rc = put_scope_metric(f, &subj, metric, per_run, s, c_class, c, y);
    }
    return rc;
}

int ms_fit_scopes(ms_fitter *f)
{
    const scope_tree *t = f->program;
    if (!t)
        return 0;
    if (f->opts->progress)
        fprintf(f->opts->progress, "augur model: fitting scope counts of %s\n", t->binary.path);
    double *y = malloc((f->runs->n + 1) * sizeof *y);
    int rc = y && f->scope_runs ? 0 : -1;
    static_checks sc = {0};
    if (rc != 0)
        snprintf(f->err, f->errlen, "out of memory");
    if (rc == 0 && f->opts->static_basis)
        rc = ms_static_load(f, &sc);
    for (size_t s = 1; rc == 0 && s < t->nscopes; s++) { /* scope 0 is the module: the function rows cover it */
        size_t first = f->njobs;
        if (!f->builds || f->builds->modeled[s])
            rc = put_scope(f, s, y);
        if (rc == 0 && sc.have)
            rc = ms_static_attach(f, &sc, s, first);
    }
    if (rc == 0)
        rc = ms_fit_flush(f);
    static_checks_free(&sc);
    free(y);
    return rc;
}

/* predict.c — evaluating a model set into a report: the count models of
 * every function and of every line give the counts (the total is the sum
 * of the functions'), every
 * reuse-distance group whose block size is a cache's line gives its misses
 * (rd_model_misses at the cache's capacity in lines), shared among the
 * group's member instructions by their share of its touches and added to
 * their lines and functions; scope models give the scope section.  What is
 * refused (predict_check.h) is refused here with a message naming the row;
 * the rows' keys are in predict_keys.c, their errors in predict_errors.c
 * and predict_miss_errors.c, the capacity crossings in predict_crossing.c,
 * the nesting of scopes in predict_scopes.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predict/predict.h"
#include "predict/predict_check.h"
#include "predict/predict_internal.h"

void predict_params_text(const prediction *p, char *buf, size_t len)
{
    buf[0] = 0;
    for (int k = 0; k < p->set.nparams; k++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s=%.10g", k ? ", " : "", p->set.params[k], p->x[k]);
}

/* What a model row is about, for messages: "function multiply (matmul)",
 * "line matmul.c:12", "loop at matmul.c:12", "the program's total". */
static void row_subject(const db_model_row *row, char *buf, size_t len)
{
    if (!strcmp(row->kind, "function"))
        snprintf(buf, len, "function %s (%s)", row->function ?: "(unknown)",
                 report_base_name(row->module) ?: "no module");
    else if (!strcmp(row->kind, "line"))
        snprintf(buf, len, "line %s:%u", report_base_name(row->file) ?: "?", row->line);
    else if (!strcmp(row->kind, "scope") && row->scope_kind && !strcmp(row->scope_kind, "loop"))
        snprintf(buf, len, "%s", row->function ?: "loop");
    else if (!strcmp(row->kind, "scope"))
        snprintf(buf, len, "%s %s", row->scope_kind ?: "scope", row->function ?: "?");
    else
        snprintf(buf, len, "the program's %s", row->kind);
}

/* What a reuse-distance group is about, for messages: "the reuse-distance
 * group of multiply (matmul)", by its first member's function. */
static void group_subject(const db_rd_group *g, char *buf, size_t len)
{
    snprintf(buf, len, "the reuse-distance group of %s (%s)", g->nmembers ? g->members[0].function ?: "?" : "?",
             report_base_name(g->module) ?: "?");
}

/* The message of a value that does not fit a count. */
static int too_large(const prediction *p, const char *subject, const char *metric, double v, char *err,
                     size_t errlen)
{
    char params[256];
    predict_params_text(p, params, sizeof params);
    snprintf(err, errlen,
             "the prediction at %s does not fit in a count: the %s of %s would be %.4g, %s 2^63 (%.4g), "
             "the largest count augur reports; predict at smaller parameters",
             params, metric, subject, v, isfinite(v) ? "at or above" : "not a finite number below",
             PREDICT_COUNT_LIMIT);
    return -1;
}

/* A count model's value as a count (predict_count); -1 with a message
 * naming the row, its value and the limit when it does not fit. */
static int row_count(const prediction *p, const db_model_row *row, uint64_t *out, char *err, size_t errlen)
{
    double v = model_eval(row->m, p->x);
    if (predict_count(v, out) == 0)
        return 0;
    char subject[512];
    row_subject(row, subject, sizeof subject);
    return too_large(p, subject, row->metric, v, err, errlen);
}

/* Set metric's count in c to v, and its range to v (1 -+ doubt). */
static void add_metric(report_counts *c, const char *metric, uint64_t v, double doubt)
{
    static const char *const names[3] = {"instructions", "reads", "writes"};
    uint64_t *slots[3] = {&c->instructions, &c->reads, &c->writes};
    for (int k = 0; k < 3; k++)
        if (!strcmp(metric, names[k])) {
            *slots[k] = v;
            c->count_low[k] = (double)v * fmax(1 - doubt, 0);
            c->count_high[k] = (double)v * (1 + doubt);
        }
}

double predict_count_doubt(const model *m, double reach)
{
    double g = 1 + log2(fmax(reach, 1));
    return fmax(model_spread_at(m, reach), m->cv_smape / 100 * g);
}

static int oom(char *err, size_t errlen)
{
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* ---- parameters ------------------------------------------------------------ */

static int set_params(prediction *p, const char *const *names, const double *values, int n, char *err,
                      size_t errlen)
{
    const db_model_set *s = &p->set;
    char list[512] = "";
    for (int k = 0; k < s->nparams; k++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", s->params[k]);
    int given[MODEL_MAX_PARAMS] = {0};
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < s->nparams && strcmp(s->params[k], names[i]))
            k++;
        if (k == s->nparams) {
            snprintf(err, errlen, "the models have no parameter %s: they are functions of %s", names[i], list);
            return -1;
        }
        p->x[k] = values[i];
        given[k] = 1;
    }
    for (int k = 0; k < s->nparams; k++)
        if (!given[k]) {
            snprintf(err, errlen, "give every parameter of the models (%s): --param %s=VALUE is missing", list,
                     s->params[k]);
            return -1;
        }
    return 0;
}

int predict_add_warning(prediction *p, const char *text)
{
    for (size_t i = 0; i < p->info.nwarnings; i++)
        if (!strcmp(p->info.warnings[i], text))
            return 0; /* each warning once */
    char **grown = realloc(p->info.warnings, (p->info.nwarnings + 1) * sizeof *grown);
    if (!grown)
        return -1;
    p->info.warnings = grown;
    return (grown[p->info.nwarnings++] = strdup(text)) ? 0 : -1;
}

/* Note every parameter outside the range the models were fitted on. */
static int warn_extrapolation(prediction *p)
{
    const db_model_set *s = &p->set;
    for (int k = 0; k < s->nparams; k++) {
        char text[256];
        double v = p->x[k];
        if (v > s->hi[k] && s->hi[k] > 0)
            snprintf(text, sizeof text, "%s=%.10g is %.3gx the largest fitted value (%.10g): an extrapolation",
                     s->params[k], v, v / s->hi[k], s->hi[k]);
        else if (v < s->lo[k])
            snprintf(text, sizeof text, "%s=%.10g is below the smallest fitted value (%.10g): an extrapolation",
                     s->params[k], v, s->lo[k]);
        else
            continue;
        if (predict_add_warning(p, text) != 0)
            return -1;
    }
    return 0;
}

static int check_caches(const prediction *p, const report_cache *caches, size_t ncaches, char *err, size_t errlen)
{
    for (size_t c = 0; c < ncaches; c++) {
        int ok = 0;
        for (int b = 0; b < p->set.nblock_sizes; b++)
            ok |= p->set.block_sizes[b] == caches[c].line;
        if (!ok) {
            char sizes[128] = "";
            for (int b = 0; b < p->set.nblock_sizes; b++)
                snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%u", b ? ", " : "",
                         p->set.block_sizes[b]);
            snprintf(err, errlen,
                     "the models have no reuse distances for %u-byte lines: the runs measured block sizes %s (use "
                     "one of them as LINE in SIZE:LINE)",
                     caches[c].line, sizes);
            return -1;
        }
    }
    return 0;
}

/* ---- the domain of the terms ------------------------------------------------ */

/* The message of a parameter outside a term's domain, naming the term and
 * what it was found in. */
static int outside(const prediction *p, const char *subject, const char *metric, const char *formula,
                   const char *term, const char *need, char *err, size_t errlen)
{
    char params[256];
    predict_params_text(p, params, sizeof params);
    snprintf(err, errlen,
             "%s is outside the domain of the models: the term %s in the %s model of %s%s%s%s needs %s (a power or "
             "log2 of a parameter is defined for values > 0); predict at %s",
             params, term, metric, subject, formula ? " (" : "", formula ? formula : "", formula ? ")" : "", need,
             need);
    return -1;
}

/* -1 with a message when a count model has a term undefined at p->x. */
static int check_domain(const prediction *p, char *err, size_t errlen)
{
    const char *const *names = (const char *const *)p->set.params;
    for (size_t i = 0; i < p->nrows; i++) {
        char term[128], need[128], subject[512];
        if (!predict_term_outside(p->rows[i].m, p->x, names, term, sizeof term, need, sizeof need))
            continue;
        row_subject(&p->rows[i], subject, sizeof subject);
        return outside(p, subject, p->rows[i].metric, p->rows[i].formula, term, need, err, errlen);
    }
    return 0;
}

/* -1 with a message when a reuse-distance group's model has a term
 * undefined at p->x. */
int predict_check_groups(const prediction *p, const db_rd_group *groups, size_t n, char *err, size_t errlen)
{
    const char *const *names = (const char *const *)p->set.params;
    for (size_t i = 0; i < n; i++) {
        char term[128], need[128], subject[512];
        if (!predict_rd_term_outside(groups[i].m, p->x, names, term, sizeof term, need, sizeof need))
            continue;
        group_subject(&groups[i], subject, sizeof subject);
        return outside(p, subject, "histogram", NULL, term, need, err, errlen);
    }
    return 0;
}

/* ---- rows: functions and lines ------------------------------------------------ */

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* A line's accesses (reads + writes, each below the limit) must fit too:
 * -1 with a message when one does not.  Functions' are checked with their
 * sum in sum_functions. */
static int check_line_accesses(const prediction *p, char *err, size_t errlen)
{
    for (size_t i = 0; i < p->rep.nlines; i++) {
        const report_line *l = &p->rep.lines[i];
        double a = (double)l->c.reads + (double)l->c.writes;
        if (a >= PREDICT_COUNT_LIMIT) {
            char subject[512];
            snprintf(subject, sizeof subject, "line %s:%u", report_base_name(l->file) ?: "?", l->line);
            return too_large(p, subject, "accesses", a, err, errlen);
        }
    }
    return 0;
}

/* Make one row per distinct subject of the function and line models,
 * sorted by key, with their counts.  -1 with a message when a count does
 * not fit (row_count) or memory runs out. */
static int build_rows(prediction *p, char *err, size_t errlen)
{
    report *r = &p->rep;
    r->functions = calloc(p->nrows + 1, sizeof *r->functions);
    r->lines = calloc(p->nrows + 1, sizeof *r->lines);
    if (!r->functions || !r->lines)
        return oom(err, errlen);
    for (size_t i = 0; i < p->nrows; i++) {
        const db_model_row *row = &p->rows[i];
        uint64_t v;
        int is_function = !strcmp(row->kind, "function"), is_line = !strcmp(row->kind, "line");
        if (!is_function && !is_line)
            continue; /* the total is the sum of the functions': see sum_functions */
        if (row_count(p, row, &v, err, errlen) != 0)
            return -1;
        double doubt = predict_count_doubt(row->m, predict_reach(p));
        if (is_function) {
            report_function *f = &r->functions[r->nfunctions];
            if (r->nfunctions == 0 || predict_cmp_function(f - 1, row->function, row->module)) {
                *f = (report_function){.function = dup_or_null(row->function), .module = dup_or_null(row->module)};
                r->nfunctions++;
            } else
                f--;
            add_metric(&f->c, row->metric, v, doubt);
        } else {
            report_line *l = &r->lines[r->nlines];
            if (r->nlines == 0 || predict_cmp_line(l - 1, row->file, row->line, row->function)) {
                *l = (report_line){.file = dup_or_null(row->file), .line = row->line,
                                   .function = dup_or_null(row->function)};
                r->nlines++;
            } else
                l--;
            add_metric(&l->c, row->metric, v, doubt);
        }
    }
    /* Models of one subject are stored together; sorting by key makes
     * the rows searchable for the misses. */
    predict_sort_rows(r);
    return check_line_accesses(p, err, errlen);
}

/* The total as the sum of the functions' models (seed 000's hierarchical
 * models): a program total mixes exact polynomial parts with library noise
 * (digits printed, allocator paths) that keeps it from fitting any one
 * form, while each part does.  Summed in doubles first: -1 with a message
 * when a sum does not fit a count, where the integers would wrap. */
static int sum_functions(const prediction *p, report *r, char *err, size_t errlen)
{
    double sums[3] = {0};
    for (size_t i = 0; i < r->nfunctions; i++) {
        sums[0] += (double)r->functions[i].c.instructions;
        sums[1] += (double)r->functions[i].c.reads;
        sums[2] += (double)r->functions[i].c.writes;
    }
    static const char *const metrics[] = {"instructions", "reads", "writes"};
    for (int k = 0; k < 3; k++)
        if (sums[k] >= PREDICT_COUNT_LIMIT)
            return too_large(p, "the program", metrics[k], sums[k], err, errlen);
    if (sums[1] + sums[2] >= PREDICT_COUNT_LIMIT)
        return too_large(p, "the program", "accesses", sums[1] + sums[2], err, errlen);
    for (size_t i = 0; i < r->nfunctions; i++) {
        r->total.instructions += r->functions[i].c.instructions;
        r->total.reads += r->functions[i].c.reads;
        r->total.writes += r->functions[i].c.writes;
        for (int k = 0; k < 3; k++) {
            r->total.count_low[k] += r->functions[i].c.count_low[k];
            r->total.count_high[k] += r->functions[i].c.count_high[k];
        }
    }
    return 0;
}

/* ---- misses ---------------------------------------------------------------------- */

/* Add share of a group's misses of cache c (m: the misses, lo and hi
 * their range) to the counts rc. */
static void add_share(report_counts *rc, size_t c, const double m[3], double share)
{
    rc->misses[c] += share * m[0];
    rc->misses_low[c] += share * m[1];
    rc->misses_high[c] += share * m[2];
}

static void add_member_misses(report *r, const db_rd_group *g, const struct db_rd_member_row *mb, size_t c,
                              const double m[3])
{
    report_line lkey = {.file = mb->file, .line = mb->line, .function = mb->function};
    report_line *l = predict_find_line(r, &lkey);
    if (l)
        add_share(&l->c, c, m, mb->share);
    report_function fkey = {.function = mb->function, .module = g->module};
    report_function *f = predict_find_function(r, &fkey);
    if (f)
        add_share(&f->c, c, m, mb->share);
}

double predict_reach(const prediction *p)
{
    double reach = 1;
    for (int k = 0; k < p->set.nparams; k++) {
        double v = p->x[k], lo = p->set.lo[k], hi = p->set.hi[k];
        if (hi > 0 && v > hi)
            reach = fmax(reach, v / hi);
        else if (v > 0 && v < lo)
            reach = fmax(reach, lo / v);
    }
    return reach;
}

/* Add a group's misses of each cache of its line size, and their range,
 * to the total and its members' lines and functions; -1 with a message
 * when the model gives no finite number of misses. */
static int add_group_misses(prediction *p, const db_rd_group *g, char *err, size_t errlen)
{
    report *r = &p->rep;
    double reach = predict_reach(p);
    for (size_t c = 0; c < r->ncaches; c++) {
        if (r->caches[c].line != g->block_size)
            continue;
        uint64_t capacity = r->caches[c].size / r->caches[c].line;
        double m[3] = {rd_model_misses(g->m, p->x, capacity)};
        if (!isfinite(m[0])) {
            char subject[512];
            group_subject(g, subject, sizeof subject);
            return too_large(p, subject, "misses", m[0], err, errlen);
        }
        rd_model_misses_range(g->m, p->x, capacity, reach, m + 1);
        add_share(&r->total, c, m, 1);
        for (size_t k = 0; k < g->nmembers; k++)
            add_member_misses(r, g, &g->members[k], c, m);
    }
    return 0;
}

/* Misses above the accesses of their row lowered to them: the two come
 * from separate models (reuse-distance groups shared by share, count
 * models of each row), which far from the training sizes can disagree, but
 * a cache cannot miss more often than it is accessed.  Adds what it took
 * away, per cache, to lowered. */
static void clamp_misses(report_counts *c, size_t ncaches, double *lowered)
{
    double accesses = (double)c->reads + (double)c->writes;
    for (size_t k = 0; k < ncaches; k++) {
        if (c->misses[k] > accesses) {
            lowered[k] += c->misses[k] - accesses;
            c->misses[k] = accesses;
        }
        c->misses_low[k] = fmin(c->misses_low[k], c->misses[k]);
        c->misses_high[k] = fmax(fmin(c->misses_high[k], accesses), c->misses[k]);
    }
}

/* clamp_misses over the total, functions and lines, with a warning when
 * the functions' misses lowered exceed 0.1% of a cache's total: below it,
 * the lowering is of fractional misses on rows predicted with no accesses,
 * noise of every prediction. */
static int clamp_all_misses(prediction *p)
{
    report *r = &p->rep;
    double lowered[REPORT_MAX_CACHES] = {0}, ignored[REPORT_MAX_CACHES] = {0}, before[REPORT_MAX_CACHES];
    memcpy(before, r->total.misses, sizeof before);
    for (size_t i = 0; i < r->nfunctions; i++)
        clamp_misses(&r->functions[i].c, r->ncaches, lowered);
    for (size_t i = 0; i < r->nlines; i++)
        clamp_misses(&r->lines[i].c, r->ncaches, ignored);
    clamp_misses(&r->total, r->ncaches, lowered);
    for (size_t k = 0; k < r->ncaches; k++) {
        if (lowered[k] <= 1e-3 * before[k])
            continue;
        char text[384], label[64];
        report_cache_label(&r->caches[k], label, sizeof label);
        snprintf(text, sizeof text,
                 "misses %s: %.4g predicted misses (%.3g%%) were above their rows' predicted accesses and were "
                 "lowered to them (the miss and count models are fitted separately; they disagree here)",
                 label, lowered[k], 100 * lowered[k] / before[k]);
        if (predict_add_warning(p, text) != 0)
            return -1;
    }
    return 0;
}

/* The groups of the model set with their models checked at p->x, into
 * *groups (none without caches: nothing to predict); -1 with a message. */
static int load_groups(db *d, const prediction *p, db_rd_group **groups, size_t *n, char *err, size_t errlen)
{
    if (p->rep.ncaches == 0)
        return 0;
    int rc = db_rd_groups_load(d, &p->set, groups, n, err, errlen);
    return rc == 0 ? predict_check_groups(p, *groups, *n, err, errlen) : rc;
}

/* The function and line rows (sorted by key) and the total at p->x:
 * counts from the count models, misses from the groups, lowered to the
 * accesses (clamp_all_misses, which warns in p->info). */
static int evaluate_rows(prediction *p, const db_rd_group *groups, size_t n, char *err, size_t errlen)
{
    int rc = build_rows(p, err, errlen);
    if (rc == 0)
        rc = predict_widen_paths(p);
    if (rc == 0)
        rc = sum_functions(p, &p->rep, err, errlen);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = add_group_misses(p, &groups[i], err, errlen);
    if (rc == 0 && clamp_all_misses(p) != 0)
        rc = oom(err, errlen);
    return rc;
}

int predict_rows_at(const prediction *p, const double *x, const db_rd_group *groups, size_t n, report *out,
                    char *err, size_t errlen)
{
    /* q borrows p's set and models; only its report and warnings are its own. */
    prediction q = {.set = p->set, .rows = p->rows, .nrows = p->nrows};
    /* x holds the set's parameters only (a row of train_x), not a full q.x */
    memcpy(q.x, x, (size_t)p->set.nparams * sizeof *x);
    q.rep.ncaches = p->rep.ncaches;
    memcpy(q.rep.caches, p->rep.caches, sizeof q.rep.caches);
    int rc = evaluate_rows(&q, groups, n, err, errlen);
    for (size_t i = 0; i < q.info.nwarnings; i++)
        free(q.info.warnings[i]);
    free(q.info.warnings);
    *out = q.rep;
    return rc;
}

/* ---- scopes ------------------------------------------------------------------------ */

static void scope_metric(predict_scope *s, const char *metric, double v)
{
    static const char cls_prefix[] = "class:";
    if (!strncmp(metric, cls_prefix, sizeof cls_prefix - 1)) {
        for (int c = 0; c < ST_CLASS_COUNT; c++)
            if (!strcmp(metric + sizeof cls_prefix - 1, st_class_name((enum st_class)c)))
                s->cls[c] = v;
        return;
    }
    static const char *const names[] = {"instructions", "reads", "writes", "flops", "headers", "entries"};
    double *slots[] = {&s->instructions, &s->reads, &s->writes, &s->flops, &s->headers, &s->entries};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (!strcmp(metric, names[k]))
            *slots[k] = v;
}

/* One predicted scope per scope of the models, ascending id.  -1 with a
 * message when a count does not fit (row_count) or memory runs out. */
static int build_scopes(prediction *p, char *err, size_t errlen)
{
    p->scopes = calloc(p->nrows + 1, sizeof *p->scopes);
    if (!p->scopes)
        return oom(err, errlen);
    for (size_t i = 0; i < p->nrows; i++) {
        const db_model_row *row = &p->rows[i];
        if (strcmp(row->kind, "scope"))
            continue;
        predict_scope *s = &p->scopes[p->nscopes];
        if (p->nscopes == 0 || s[-1].scope != row->scope) {
            *s = (predict_scope){.kind = row->scope_kind, .name = row->function, .file = row->file,
                                 .line = row->line, .scope = row->scope};
            p->nscopes++;
        } else
            s--;
        uint64_t v;
        if (row_count(p, row, &v, err, errlen) != 0)
            return -1;
        scope_metric(s, row->metric, (double)v);
        predict_error_metric(&s->err, row->metric, row->m->cv_smape);
        if (!strcmp(row->metric, "instructions"))
            s->doubt = predict_count_doubt(row->m, predict_reach(p));
    }
    return 0;
}

/* One warning when function rows' instruction models are exact
 * polynomials with no run to spare (model_unconfirmed), naming the one
 * with the most instructions and the widest relative range among them.
 * -1 when memory runs out. */
static int warn_unconfirmed(prediction *p)
{
    size_t n = 0;
    const db_model_row *largest = NULL;
    double v = 0, widest = 0, reach = predict_reach(p);
    for (size_t i = 0; i < p->nrows; i++) {
        const db_model_row *row = &p->rows[i];
        if (strcmp(row->kind, "function") || strcmp(row->metric, "instructions") || !model_unconfirmed(row->m))
            continue;
        n++;
        double here = model_eval(row->m, p->x);
        widest = fmax(widest, predict_count_doubt(row->m, reach));
        if (!largest || here > v)
            largest = row, v = here;
    }
    if (n == 0)
        return 0;
    char text[768];
    snprintf(text, sizeof text,
             "the instructions of %zu function%s (largest: %s) rest on exact polynomials through as many runs "
             "as they have coefficients (%zu): collect one more size to confirm them; until then their ranges "
             "hold the other forms that fit the runs (up to %.2g%% here). A model needs 3 runs per parameter, "
             "an exact polynomial of degree d needs d + 2 to be confirmed; 5 are recommended",
             n, n == 1 ? "" : "s", largest->function ? largest->function : "?", largest->m->npoints,
             100 * widest);
    return predict_add_warning(p, text);
}

/* ---- the whole ---------------------------------------------------------------------- */

int predict(db *d, const char *const *names, const double *values, int n, const report_cache *caches,
            size_t ncaches, int show_startup, const char *phase, prediction *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (ncaches > REPORT_MAX_CACHES) {
        snprintf(err, errlen, "too many caches (%zu): at most %d", ncaches, REPORT_MAX_CACHES);
        return -1;
    }
    int rc = db_model_set_newest(d, phase, &out->set, err, errlen) != 0 ? -1 : 0;
    if (rc == 0)
        rc = db_model_set_phases(d, phase ? out->set.parent_id : out->set.id, &out->phases, &out->nphases, err,
                                 errlen);
    if (rc == 0)
        rc = set_params(out, names, values, n, err, errlen);
    if (rc == 0)
        rc = check_caches(out, caches, ncaches, err, errlen);
    if (rc == 0 && warn_extrapolation(out) != 0)
        rc = oom(err, errlen);
    if (rc == 0)
        rc = db_models_load(d, &out->set, &out->rows, &out->nrows, err, errlen);
    out->info = (report_prediction){.set_id = out->set.id, .runs = out->set.runs, .nparams = out->set.nparams,
                                    .names = (const char *const *)out->set.params, .values = out->x,
                                    .nwarnings = out->info.nwarnings, .warnings = out->info.warnings,
                                    .phase = out->set.phase, .parent_set = out->set.parent_id,
                                    .phases = (const char *const *)out->phases, .nphases = out->nphases};
    out->rep.prediction = &out->info;
    out->rep.ncaches = ncaches;
    if (ncaches) /* caches may be NULL then, which memcpy must not be given */
        memcpy(out->rep.caches, caches, ncaches * sizeof *caches);
    db_rd_group *groups = NULL;
    size_t ngroups = 0;
    if (rc == 0)
        rc = check_domain(out, err, errlen);
    if (rc == 0)
        rc = load_groups(d, out, &groups, &ngroups, err, errlen);
    if (rc == 0)
        rc = build_scopes(out, err, errlen);
    if (rc == 0)
        rc = evaluate_rows(out, groups, ngroups, err, errlen);
    if (rc == 0)
        rc = predict_load_training(d, out, err, errlen);
    out->info.train = out->train_runs, out->info.ntrain = out->ntrain;
    if (rc == 0)
        rc = predict_nest_scopes(d, out, err, errlen);
    if (rc == 0)
        rc = predict_static_checks(d, out, err, errlen);
    if (rc == 0)
        rc = report_hide_startup(&out->rep, !show_startup, err, errlen); /* sorts the rows */
    if (rc == 0 && (predict_warn_wide(out) != 0 || predict_warn_forms(out) != 0 || warn_unconfirmed(out) != 0))
        rc = oom(err, errlen);
    if (rc == 0 && predict_line_gap(out) != 0)
        rc = oom(err, errlen);
    if (rc == 0 && predict_attach_errors(out) != 0)
        rc = oom(err, errlen);
    if (rc == 0)
        rc = predict_attach_miss_errors(d, out, groups, ngroups, err, errlen);
    db_rd_groups_free(groups, ngroups);
    return rc;
}

void prediction_free(prediction *p)
{
    report_free(&p->rep);
    for (size_t i = 0; i < p->info.nwarnings; i++)
        free(p->info.warnings[i]);
    free(p->info.warnings);
    predict_line_gap_free(&p->info);
    free(p->scopes);
    free(p->function_errors);
    free(p->line_errors);
    free(p->function_miss_errors);
    free(p->line_miss_errors);
    for (size_t i = 0; i < p->ntrain; i++)
        db_run_free(&p->train_runs[i]);
    free(p->train_runs);
    free(p->train_x);
    predict_static_free(p);
    db_model_rows_free(p->rows, p->nrows);
    db_model_set_free(&p->set);
    db_strings_free(p->phases, p->nphases);
    memset(p, 0, sizeof *p);
}

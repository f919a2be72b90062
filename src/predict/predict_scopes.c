/* predict_scopes.c — predicted scopes kept consistent with their nesting.
 * Each scope's models (a loop, its outer loop, its function) are fitted
 * separately, so far from the training sizes an inner scope can come out
 * above the scope that holds it: an impossible number, since a scope's
 * counts include its inner scopes'.  Walking the program's structure from
 * the outside in (parents have smaller ids), every count of a scope above
 * its nearest predicted ancestor's (for a function, its module's: the sum
 * of the module's function rows) is lowered to it, as misses above their
 * accesses are (docs/models.md, "Nested scopes"), with a warning when the
 * largest lowering is more than 0.1% of the program's instructions.  The structure is the one
 * stored for the program the model set was fitted on (path and build-id of
 * the newest training run's main module: the reference build of a set
 * across builds); without it nothing is lowered. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predict/predict_internal.h"

int predict_program_binary(db *d, int64_t run_id, int64_t *binary_id, char **path, char *err, size_t errlen)
{
    db_run_module *m = NULL;
    size_t nm = 0;
    int rc = db_run_modules(d, run_id, &m, &nm, err, errlen);
    if (rc == 0 && (nm == 0 || !m[0].is_program))
        rc = 1;
    if (rc == 0) {
        char key[4200];
        db_binary_key(m[0].path, m[0].build_id, key, sizeof key);
        rc = db_find_binary(d, key, binary_id, err, errlen);
        if (rc == DB_NOT_FOUND && *m[0].build_id) /* the file replaced since: the build's stored structure */
            rc = db_binary_of_build(d, m[0].build_id, binary_id, err, errlen);
        rc = rc == DB_NOT_FOUND ? 1 : rc;
    }
    if (rc == 0 && path && !(*path = strdup(m[0].path))) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    db_run_modules_free(m, nm);
    return rc;
}

/* The stored scopes of the program of training run `run_id` into *out
 * (ascending id), its module's path into *path (free() it); 1 when the
 * database holds no structure of that build. */
static int program_scopes(db *d, int64_t run_id, db_scope **out, size_t *n, char **path, char *err, size_t errlen)
{
    int64_t binary_id = 0;
    int rc = predict_program_binary(d, run_id, &binary_id, path, err, errlen);
    return rc == 0 ? db_get_scopes(d, binary_id, out, n, err, errlen) : rc;
}

/* Lower *v to limit if above it; adds what was taken to *taken. */
static int lower(double *v, double limit, double *taken)
{
    if (*v <= limit)
        return 0;
    *taken += *v - limit;
    *v = limit;
    return 1;
}

/* Lower child's nested counts to parent's; 1 if any was lowered.  Header
 * executions and entries are not nested counts (an inner loop's header
 * runs more often than its outer loop's): they are bounded by the child's
 * own counts instead, as every header execution runs at least one of the
 * loop's instructions and every entry runs the header. */
static int lower_to(predict_scope *child, const predict_scope *parent, double *instructions_taken)
{
    double other = 0;
    int any = lower(&child->instructions, parent->instructions, instructions_taken);
    any |= lower(&child->reads, parent->reads, &other);
    any |= lower(&child->writes, parent->writes, &other);
    any |= lower(&child->flops, parent->flops, &other);
    for (int c = 0; c < ST_CLASS_COUNT; c++)
        any |= lower(&child->cls[c], parent->cls[c], &other);
    any |= lower(&child->headers, child->instructions, &other);
    any |= lower(&child->entries, child->headers, &other);
    return any;
}

/* A scope as the warning names it: a loop by its name, which already says
 * "loop at FILE:LINE"; any other as "KIND NAME at FILE:LINE". */
static void scope_label(const predict_scope *s, char *buf, size_t len)
{
    char name[REPORT_NAME_WIDTH + 1];
    st_short_name(s->name ? s->name : "?", REPORT_NAME_WIDTH, name, sizeof name);
    if (s->kind && !strcmp(s->kind, "loop"))
        snprintf(buf, len, "%s", name);
    else
        snprintf(buf, len, "%s %s at %s:%u", s->kind ? s->kind : "scope", name,
                 s->file ? report_base_name(s->file) : "?", s->line);
}

/* The warning: how many scopes were lowered, and the one lowered most,
 * from `before` instructions to its parent's (as a ratio: a wild model can
 * exceed its parent, or the whole program, many times over). */
static int warn(prediction *p, size_t count, const predict_scope *worst, double before)
{
    char params[256], label[REPORT_NAME_WIDTH + 512], text[1024];
    predict_params_text(p, params, sizeof params);
    scope_label(worst, label, sizeof label);
    snprintf(text, sizeof text,
             "scopes: %zu predicted scope%s exceeded the scope holding %s and %s lowered to it; most: %s, %.4g "
             "instructions predicted, %.3g times its parent's %.4g: the models of nested scopes are fitted "
             "separately and disagree at %s",
             count, count == 1 ? "" : "s", count == 1 ? "it" : "them", count == 1 ? "was" : "were", label, before,
             worst->instructions > 0 ? before / worst->instructions : 0.0, worst->instructions, params);
    return predict_add_warning(p, text);
}

/* The module scope's counts (the root of the structure, with no model of
 * its own): the sum of the predicted function rows of the program's module
 * `path`, the bound of its functions' scopes.  Only instructions, reads and
 * writes: the rows have no flops or classes, so those stay unbounded, as
 * does everything when no row is of that module (nothing to bound by). */
static predict_scope module_counts(const prediction *p, const char *path)
{
    predict_scope m = {.instructions = HUGE_VAL, .reads = HUGE_VAL, .writes = HUGE_VAL, .flops = HUGE_VAL};
    for (int c = 0; c < ST_CLASS_COUNT; c++)
        m.cls[c] = HUGE_VAL;
    int found = 0;
    for (size_t i = 0; i < p->rep.nfunctions; i++) {
        const report_function *f = &p->rep.functions[i];
        if (!f->module || strcmp(f->module, path))
            continue;
        if (!found++)
            m.instructions = m.reads = m.writes = 0;
        m.instructions += (double)f->c.instructions;
        m.reads += (double)f->c.reads;
        m.writes += (double)f->c.writes;
    }
    return m;
}

/* The index in p->scopes of the nearest ancestor of scope s (ids of
 * `scopes`) that has a prediction, or -1; at[id] maps ids to indices. */
static long predicted_ancestor(const db_scope *scopes, size_t n, const long *at, int64_t s)
{
    for (int64_t a = scopes[s].parent; a >= 0 && (size_t)a < n; a = scopes[a].parent)
        if (at[a] >= 0)
            return at[a];
    return -1;
}

int predict_nest_scopes(db *d, prediction *p, char *err, size_t errlen)
{
    if (p->nscopes == 0 || p->ntrain == 0)
        return 0;
    db_scope *scopes = NULL;
    size_t n = 0;
    char *path = NULL;
    int rc = program_scopes(d, predict_newest_run(p->train_runs, p->ntrain), &scopes, &n, &path, err, errlen);
    if (rc != 0) {
        free(path);
        return rc == 1 ? 0 : -1;
    }
    long *at = malloc((n + 1) * sizeof *at);
    if (!at) {
        free(path);
        db_scopes_free(scopes, n);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        at[i] = -1;
    for (size_t i = 0; i < p->nscopes; i++)
        if (p->scopes[i].scope >= 0 && (size_t)p->scopes[i].scope < n)
            at[p->scopes[i].scope] = (long)i;
    const predict_scope module = module_counts(p, path);
    free(path);
    size_t count = 0;
    double worst_taken = 0, worst_before = 0;
    const predict_scope *worst = NULL;
    for (size_t s = 1; s < n; s++) { /* parents first: a lowered parent lowers its children */
        if (at[s] < 0)
            continue;
        long parent = predicted_ancestor(scopes, n, at, (int64_t)s);
        predict_scope *c = &p->scopes[at[s]];
        double before = c->instructions, took = 0;
        if (!lower_to(c, parent < 0 ? &module : &p->scopes[parent], &took))
            continue;
        c->lowered = 1;
        count++;
        if (!worst || took > worst_taken) {
            worst = c, worst_taken = took, worst_before = before;
        }
    }
    rc = 0;
    if (worst && worst_taken > 0.001 * (double)p->rep.total.instructions)
        rc = warn(p, count, worst, worst_before);
    free(at);
    db_scopes_free(scopes, n);
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    return rc;
}

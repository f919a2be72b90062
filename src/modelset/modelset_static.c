/* modelset_static.c — `augur model --basis static`: where the static model
 * stored for the program's build (augur static --db) has a function or a
 * loop that pairs with a scope of the binary (static/match.h), the
 * scope's counts are also fitted on the static formulas of that source
 * scope: the iterations in the run of its loop, of the loop around it and
 * of the loops inside it (or of a function's loops), each a term with a
 * coefficient fitted from the runs, and the fit is kept where it
 * cross-validates at least as well as the PMNF search's model
 * (docs/models.md, "Static basis"). */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "modelset/modelset.h"
#include "report/static_check.h"

int ms_static_load(ms_fitter *f, static_checks *c)
{
    const scope_tree *t = f->program;
    if (static_checks_load(f->d, &t->binary, t->scopes, t->nscopes, c, f->err, f->errlen) != 0)
        return -1;
    if (c->have)
        return 0;
    snprintf(f->err, f->errlen,
             "--basis static: %s holds no static model of %s (build-id %s): store one with `augur static --db %s "
             "%s`, or leave --basis static out",
             db_path(f->d), t->binary.path, t->binary.build_id, db_path(f->d), t->binary.path);
    return -1;
}

/* Is static scope k inside loop `outer` (a descendant through parents)? */
static int inside(const db_static_model *m, size_t k, size_t outer)
{
    for (int p = m->scopes[k].parent; p >= 0; p = m->scopes[p].parent)
        if ((size_t)p == outer)
            return 1;
    return 0;
}

/* The source scopes whose iterations are the terms of static scope `at`:
 * a loop's own, its parent's and its inner loops'; a function's loops'.
 * Their positions into out, how many. */
static size_t term_scopes(const db_static_model *m, size_t at, size_t *out)
{
    size_t n = 0;
    if (!strcmp(m->scopes[at].kind, "function")) {
        for (size_t k = at + 1; k < m->nscopes && !strcmp(m->scopes[k].kind, "loop"); k++)
            out[n++] = k;
        return n;
    }
    out[n++] = at;
    if (m->scopes[at].parent >= 0)
        out[n++] = (size_t)m->scopes[at].parent;
    for (size_t k = at + 1; k < m->nscopes && !strcmp(m->scopes[k].kind, "loop"); k++)
        if (inside(m, k, at))
            out[n++] = k;
    return n;
}

/* Does term k of st take values at every run that no term before it
 * takes, and not 0 everywhere?  (A term that repeats another, or a loop
 * that never runs, adds nothing to the fit but a singular column.) */
static int distinct_term(const ms_fitter *f, const model_static *st, int k)
{
    const ms_runs *r = f->runs;
    int zero = 1;
    for (size_t i = 0; i < r->n; i++) {
        double v = model_static_term(st, k, r->x + i * (size_t)r->nparams);
        if (!isfinite(v))
            return 0;
        zero &= v == 0;
    }
    for (int j = 0; j < k && !zero; j++) {
        int same = 1;
        for (size_t i = 0; same && i < r->n; i++)
            same = model_static_term(st, k, r->x + i * (size_t)r->nparams) ==
                   model_static_term(st, j, r->x + i * (size_t)r->nparams);
        if (same)
            return 0;
    }
    return !zero;
}

/* Drop the last term of st (it repeated another or had no value). */
static void drop_last(model_static *st)
{
    st->nterms--;
    json_decref(st->forms[st->nterms]);
    free(st->labels[st->nterms]);
}

/* Add the iterations of static scope k to st as a term labelled
 * "loop at FILE:LINE"; 0, or -1 when memory runs out.  A term without a
 * value at a run, or one that repeats another, is not kept. */
static int add_term(const ms_fitter *f, model_static *st, const db_static_scope *k)
{
    json_t *forms = json_loads(k->forms, 0, NULL), *form = json_object_get(forms, "program_iterations");
    const char *base = strrchr(k->file, '/');
    char label[512];
    snprintf(label, sizeof label, "loop at %s:%d", base ? base + 1 : k->file, k->first_line);
    int rc = 0;
    if (form) {
        int i = model_static_add(st, form, label);
        if (i < 0 && st->nterms < MODEL_MAX_TERMS)
            rc = -1;
        else if (i >= 0 && !distinct_term(f, st, i))
            drop_last(st);
    }
    json_decref(forms);
    return rc;
}

/* The static terms of binary scope s, or NULL when it pairs with no source
 * scope, or none of its terms has a value at every run; *oom on failure. */
static model_static *scope_terms(const ms_fitter *f, const static_checks *c, size_t s, int *oom)
{
    *oom = 0;
    if (s >= c->nscopes || c->pair[s] < 0)
        return NULL;
    size_t *ks = malloc((c->m.nscopes + 1) * sizeof *ks);
    model_static *st = ks ? model_static_new(f->runs->nparams, f->runs->names) : NULL;
    size_t n = st ? term_scopes(&c->m, (size_t)c->pair[s], ks) : 0;
    for (size_t i = 0; st && i < n && st->nterms < MODEL_MAX_TERMS; i++)
        if (add_term(f, st, &c->m.scopes[ks[i]]) != 0)
            *oom = 1;
    free(ks);
    if (!st || *oom || st->nterms == 0 || n > MODEL_MAX_TERMS) { /* more terms than a model holds: not tried */
        *oom |= !st;
        model_static_free(st);
        return NULL;
    }
    return st;
}

int ms_static_attach(ms_fitter *f, const static_checks *c, size_t s, size_t first)
{
    for (size_t i = first; i < f->njobs; i++) {
        int oom;
        if (!f->jobs[i].preset && !(f->jobs[i].st = scope_terms(f, c, s, &oom)) && oom)
            return snprintf(f->err, f->errlen, "out of memory"), -1;
    }
    return 0;
}

void ms_static_choose(const ms_fitter *f, ms_job *j, const model_series *series)
{
    (void)f;
    model s;
    if (j->m.method == MODEL_EXACT || j->m.method == MODEL_CONSTANT)
        return;
    if (model_fit_static(series, j->st, &s) == 0 && s.cv_smape <= j->m.cv_smape && s.cv_smape <= j->direct_cv)
        j->m = s;
}

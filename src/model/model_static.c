/* model_static.c — counts modeled on static formulas (model.h, "static
 * terms"): the terms of the source's form, from the static model that
 * `augur static --db` stored, with coefficients fitted from the runs by
 * GSL's least squares (docs/models.md, "Static basis"). */
#include <gsl/gsl_multifit.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "static/form.h"

model_static *model_static_new(int nnames, char *const *names)
{
    model_static *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->nnames = nnames;
    for (int k = 0; k < nnames; k++)
        if (!(st->names[k] = strdup(names[k]))) {
            model_static_free(st);
            return NULL;
        }
    return st;
}

int model_static_add(model_static *st, json_t *form, const char *label)
{
    if (st->nterms == MODEL_MAX_TERMS || !(st->labels[st->nterms] = strdup(label)))
        return -1;
    st->forms[st->nterms] = json_incref(form);
    st->coef[st->nterms] = 0;
    return st->nterms++;
}

void model_static_free(model_static *st)
{
    if (!st)
        return;
    for (int k = 0; k < st->nterms; k++) {
        json_decref(st->forms[k]);
        free(st->labels[k]);
    }
    for (int k = 0; k < st->nnames; k++)
        free(st->names[k]);
    free(st);
}

/* The coordinates by name, for sa_form_eval. */
typedef struct coords {
    const model_static *st;
    const double *x;
} coords;

static int coordinate(const char *name, double *v, void *ctx)
{
    const coords *c = ctx;
    for (int k = 0; k < c->st->nnames; k++)
        if (!strcmp(c->st->names[k], name))
            return *v = c->x[k], 0;
    return -1;
}

double model_static_term(const model_static *st, int k, const double *x)
{
    coords c = {st, x};
    double v;
    const char *missing;
    return sa_form_eval(st->forms[k], coordinate, &c, &v, &missing) == 0 ? v : NAN;
}

/* Least squares of y ~ c0 + sum c_k F[i][k] over the points i != skip,
 * each row weighted by 1/|y_i| (1 where y_i = 0), into c[0..K].  0, or -1. */
static int solve(const double *F, const double *y, size_t n, int K, size_t skip, double *c)
{
    size_t rows = n - (skip < n), cols = (size_t)K + 1;
    gsl_matrix *X = gsl_matrix_alloc(rows, cols), *cov = gsl_matrix_alloc(cols, cols);
    gsl_vector *yv = gsl_vector_alloc(rows), *cv = gsl_vector_alloc(cols);
    gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(rows, cols);
    int rc = X && cov && yv && cv && w ? 0 : -1;
    for (size_t i = 0, r = 0; rc == 0 && i < n; i++) {
        if (i == skip)
            continue;
        double wt = y[i] != 0 ? 1 / fabs(y[i]) : 1;
        gsl_matrix_set(X, r, 0, wt);
        for (int k = 0; k < K; k++)
            gsl_matrix_set(X, r, (size_t)k + 1, F[i * (size_t)K + (size_t)k] * wt);
        gsl_vector_set(yv, r++, y[i] * wt);
    }
    double chisq;
    size_t rank;
    if (rc == 0 && gsl_multifit_linear_tsvd(X, yv, 1e-12, cv, cov, &chisq, &rank, w) != 0)
        rc = -1;
    for (size_t k = 0; rc == 0 && k < cols; k++)
        c[k] = gsl_vector_get(cv, k);
    gsl_multifit_linear_free(w);
    gsl_vector_free(cv), gsl_vector_free(yv);
    gsl_matrix_free(cov), gsl_matrix_free(X);
    return rc;
}

static double value_at(const double *F, int K, size_t i, const double *c)
{
    double v = c[0];
    for (int k = 0; k < K; k++)
        v += c[k + 1] * F[i * (size_t)K + (size_t)k];
    return v;
}

/* x as a simple fraction k/d (d <= 12) when it is one but for rounding
 * noise (least squares leave 1e-14 where a coefficient is 0 or 6). */
static double snapped(double x)
{
    for (int d = 1; d <= 12; d++) {
        double r = round(x * d) / d;
        if (fabs(r - x) <= 1e-9 * fmax(1, fabs(x)))
            return r;
    }
    return x;
}

/* c with its coefficients snapped to simple fractions when the snapped
 * model still gives every point back (to 1e-9 of it): an exact fit reads
 * "8 + 6*{loop at k.c:18}", not "8.0000000000001 + ...". */
static void snap(const double *F, int K, const model_series *s, double *c)
{
    double r[MODEL_MAX_TERMS + 1];
    for (int k = 0; k <= K; k++)
        r[k] = snapped(c[k]);
    for (size_t i = 0; i < s->npoints; i++)
        if (fabs(value_at(F, K, i, r) - s->y[i]) > 1e-9 * fmax(1, fabs(s->y[i])))
            return;
    memcpy(c, r, ((size_t)K + 1) * sizeof *c);
}

/* Remove st's terms whose coefficient is 0. */
static void drop_zero_terms(model_static *st)
{
    int n = 0;
    for (int k = 0; k < st->nterms; k++) {
        if (st->coef[k] == 0) {
            json_decref(st->forms[k]);
            free(st->labels[k]);
            continue;
        }
        st->coef[n] = st->coef[k], st->forms[n] = st->forms[k], st->labels[n] = st->labels[k];
        n++;
    }
    st->nterms = n;
}

int model_fit_static(const model_series *s, model_static *st, model *out)
{
    size_t n = s->npoints;
    int K = st->nterms;
    if (n < (size_t)K + 2)
        return -1;
    double *F = malloc(n * (size_t)(K ? K : 1) * sizeof *F), c[MODEL_MAX_TERMS + 1] = {0}, cl[MODEL_MAX_TERMS + 1];
    int rc = F ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++)
        for (int k = 0; k < K; k++)
            if (!isfinite(F[i * (size_t)K + (size_t)k] = model_static_term(st, k, s->x + i * (size_t)s->nparams)))
                rc = -1;
    if (rc == 0)
        rc = solve(F, s->y, n, K, n, c);
    if (rc == 0)
        snap(F, K, s, c);
    *out = (model){.method = MODEL_STATIC, .constant = c[0], .npoints = n, .st = st};
    double fit = 0, cv = 0, max_rel = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        double f = value_at(F, K, i, c);
        fit += model_smape_point(f, s->y[i]);
        if (s->y[i] != 0)
            max_rel = fmax(max_rel, fabs(f - s->y[i]) / fabs(s->y[i]));
        else if (f != 0)
            max_rel = INFINITY;
        rc = solve(F, s->y, n, K, i, cl);
        cv += model_smape_point(value_at(F, K, i, cl), s->y[i]);
    }
    free(F);
    if (rc != 0)
        return -1;
    for (int k = 0; k < K; k++)
        st->coef[k] = c[k + 1];
    drop_zero_terms(st);
    out->fit_smape = fit / (double)n;
    out->cv_smape = cv / (double)n;
    out->fit_max_rel = max_rel;
    return 0;
}

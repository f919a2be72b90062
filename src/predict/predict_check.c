/* predict_check.c — the domain of a model's terms and the range of a
 * count (predict_check.h): the checks that refuse a prediction instead of
 * printing a number that is not what the models say. */
#include <math.h>
#include <stdio.h>

#include "predict/predict_check.h"

/* The factor as a formula ("log2(N)", "N^2*log2(N)"), by model_format on a
 * one-term model so that it reads as `augur model --show` writes it. */
static void factor_name(const model_factor *f, const char *const *names, char *buf, size_t len)
{
    model one = {.nterms = 1, .terms = {{.coef = 1, .nfactors = 1, .factors = {*f}}}};
    model_format(&one, names, buf, len);
}

/* The first factor of m at a parameter <= 0 (with a log2 when with_log),
 * or NULL. */
static const model_factor *factor_outside(const model *m, const double *x, int with_log)
{
    for (int t = 0; t < m->nterms; t++)
        for (int f = 0; f < m->terms[t].nfactors; f++) {
            const model_factor *mf = &m->terms[t].factors[f];
            int used = mf->exponent != 0 || mf->log_exponent != 0;
            if (used && x[mf->param] <= 0 && (!with_log || mf->log_exponent != 0))
                return mf;
        }
    return NULL;
}

int predict_term_outside(const model *m, const double *x, const char *const *names, char *term, size_t termlen,
                         char *need, size_t needlen)
{
    const model_factor *f = factor_outside(m, x, 1);
    if (!f)
        f = factor_outside(m, x, 0);
    if (!f)
        return 0;
    factor_name(f, names, term, termlen);
    snprintf(need, needlen, "%s > 0", names[f->param]);
    return 1;
}

int predict_rd_term_outside(const rd_model *m, const double *x, const char *const *names, char *term,
                            size_t termlen, char *need, size_t needlen)
{
    if (predict_term_outside(&m->cold, x, names, term, termlen, need, needlen) ||
        predict_term_outside(&m->touches, x, names, term, termlen, need, needlen))
        return 1;
    for (size_t i = 0; i < m->nlead; i++)
        if (predict_term_outside(&m->lead[i].fraction, x, names, term, termlen, need, needlen))
            return 1;
    for (size_t i = 0; i < m->nbins; i++) {
        const rd_model_bin *b = &m->bins[i];
        if (predict_term_outside(&b->low, x, names, term, termlen, need, needlen) ||
            predict_term_outside(&b->high, x, names, term, termlen, need, needlen) ||
            predict_term_outside(&b->mean, x, names, term, termlen, need, needlen))
            return 1;
    }
    return 0;
}

int predict_count(double v, uint64_t *out)
{
    if (!isfinite(v) || v >= PREDICT_COUNT_LIMIT)
        return -1;
    /* llround is defined below 2^63; values rounding up to it are refused
     * above, so the result fits. */
    *out = v > 0 ? (uint64_t)llround(v) : 0;
    return 0;
}

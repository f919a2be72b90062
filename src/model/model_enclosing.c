/* model_enclosing.c — a count whose events all lie inside a chain of
 * nested loops, modelled as the iterations of the innermost of them whose
 * trips are exact times its cost per iteration (model.h,
 * model_compose_enclosing; docs/models.md, "Reuse-distance histogram
 * models"), and the two rules that choice shares with the count models of
 * functions and scopes (modelset_counts.c): which trips are exact, and the
 * direct fit kept in the spread.
 *
 * A reuse group's touches are its members' accesses: in a loop whose trip
 * count the data decide (md's scan of the atoms of a bin, whose count per
 * bin steps with the bins per side, floor(1.1997 N)), a free fit of them
 * bends the steps into growth (203290 + 178.8 N^3 log2(N)^2 at N = 5..9,
 * +184% at N = 36), while the loop around it runs exactly 1380 N^3 times
 * and the touches per iteration of that loop are a bounded mix.  The
 * function's own instructions were composed through the same loop
 * (modelset_nests.c: +17% at N = 36); so are the touches. */
#include <math.h>

#include "model.h"

int model_exact_trips(const model *m)
{
    return m->method == MODEL_CONSTANT || (m->method == MODEL_EXACT && !model_unconfirmed(m));
}

void model_keep_alternative(model *m, const model *alt, const model_series *s)
{
    if (alt->cv_smape > 2 * m->cv_smape + 1e-6)
        return;
    double xmax = s->x[0];
    for (size_t i = 1; i < s->npoints; i++)
        xmax = fmax(xmax, s->x[i]);
    for (int k = 0; k < MODEL_SPREAD_POINTS; k++) {
        double x = ldexp(xmax, k + 1), v = model_eval(m, &x), a = model_eval(alt, &x);
        if (v != 0 && isfinite(a))
            m->spread[k] = fmax(m->spread[k], fabs(a - v) / fabs(v));
    }
}

/* Loop k of the chain as the trips series over s's points. */
static model_series trips_series(const model_series *s, const double *trips)
{
    model_series t = *s;
    t.y = trips;
    return t;
}

int model_compose_enclosing(const model_series *s, size_t nloops, const double *const *trips, const int *degree,
                            const model_options *o, model *m)
{
    if (m->method == MODEL_EXACT || m->method == MODEL_CONSTANT || s->nparams != 1)
        return -1;
    double bar = 2 * m->cv_smape + 1e-6; /* forms the runs cannot tell apart: the structure decides */
    for (size_t k = 0; k < nloops; k++) {
        model_series t = trips_series(s, trips[k]);
        model c, trips_m;
        if (model_compose_nested(&t, s->y, s->y, degree[k], o, &c, &trips_m, NULL, 0) != 0 ||
            !model_exact_trips(&trips_m))
            continue; /* through a data-dependent loop the product would carry its trips' free fit */
        if (!(c.cv_smape <= bar))
            continue;
        model direct = *m;
        *m = c;
        model_keep_alternative(m, &direct, s);
        return (int)k;
    }
    return -1;
}

/* form_eval.c — the value of a formula's form (form.h) at values of its
 * unknowns: what `augur report`, `model` and `predict` use to read the
 * static model stored in the database, without PolyLib. */
#include "static/form.h"

#include <math.h>

/* Does every row of one conjunction hold at p? */
static int conj_holds(const json_t *conj, const double *p, size_t np)
{
    size_t r;
    const json_t *row;
    json_array_foreach(conj, r, row)
    {
        double s = json_number_value(json_array_get(row, np + 1));
        for (size_t k = 0; k < np; k++)
            s += json_number_value(json_array_get(row, k + 1)) * p[k];
        if (json_integer_value(json_array_get(row, 0)) == 0 ? s != 0 : s < 0)
            return 0;
    }
    return 1;
}

static int where_holds(const json_t *where, const double *p, size_t np)
{
    size_t i;
    const json_t *conj;
    json_array_foreach(where, i, conj)
    if (conj_holds(conj, p, np))
        return 1;
    return 0;
}

/* One flattened term [NUM, DEN, EXP, MOD, RES] at p (0 where a residue differs). */
static long double poly_term(const json_t *t, const double *p, size_t np)
{
    const json_t *exp = json_array_get(t, 2), *mod = json_array_get(t, 3), *res = json_array_get(t, 4);
    long double v = (long double)json_integer_value(json_array_get(t, 0)) /
                    (long double)json_integer_value(json_array_get(t, 1));
    for (size_t k = 0; k < np; k++) {
        json_int_t m = json_integer_value(json_array_get(mod, k));
        long long x = llround(p[k]);
        if (m > 1 && ((x % m) + m) % m != json_integer_value(json_array_get(res, k)))
            return 0;
        for (json_int_t e = json_integer_value(json_array_get(exp, k)); e > 0; e--)
            v *= p[k];
    }
    return v;
}

/* The count of a term at p: its first chamber that holds, else 0. */
static long double count_at(const json_t *chambers, const double *p, size_t np)
{
    size_t i;
    const json_t *ch;
    json_array_foreach(chambers, i, ch)
    {
        if (!where_holds(json_object_get(ch, "where"), p, np))
            continue;
        long double v = 0;
        size_t j;
        const json_t *t;
        json_array_foreach(json_object_get(ch, "poly"), j, t)
        v += poly_term(t, p, np);
        return roundl(v); /* a number of points: 2/3 + n/3 in floating point may come out 0.999... */
    }
    return 0;
}

/* The values of the names in `names` into v[]; -1 with *missing when one has none. */
static int values_of(const json_t *names, sa_form_lookup *get, void *ctx, double *v, const char **missing)
{
    size_t k;
    const json_t *n;
    json_array_foreach(names, k, n)
    if (get(json_string_value(n), &v[k], ctx) != 0) {
        *missing = json_string_value(n);
        return -1;
    }
    return 0;
}

int sa_form_eval(const json_t *f, sa_form_lookup *get, void *ctx, double *out, const char **missing)
{
    const json_t *terms = json_object_get(f, "terms"), *t;
    size_t i;
    long double sum = 0;
    *missing = NULL;
    if (!json_is_array(terms))
        return -1;
    json_array_foreach(terms, i, t)
    {
        const json_t *w = json_object_get(t, "weight"), *factors = json_object_get(t, "factors"),
                     *params = json_object_get(t, "params"), *chambers = json_object_get(t, "chambers");
        size_t nf = json_array_size(factors), np = json_array_size(params);
        double fv[nf + 1], pv[np + 1];
        if (values_of(factors, get, ctx, fv, missing) != 0 || values_of(params, get, ctx, pv, missing) != 0)
            return -1;
        long double v = json_is_null(chambers) ? 1 : count_at(chambers, pv, np);
        v = v * (long double)json_integer_value(json_array_get(w, 0)) /
            (long double)json_integer_value(json_array_get(w, 1));
        for (size_t k = 0; k < nf; k++)
            v *= fv[k];
        sum += v;
    }
    *out = (double)sum;
    return 0;
}

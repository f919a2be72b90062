/* rd_growth.c — the growth bound of a reuse-distance group's slice edges
 * beyond the training range, from the run's footprint
 * (rd_models_bound_growth; the bound is applied in rd_model.c,
 * slice_edges_at).
 *
 * A reuse distance counts the distinct blocks touched between two touches
 * of one block, so it never exceeds the distinct blocks the process
 * touches, the footprint: the sum of its groups' first touches (cold
 * models).  Where the footprint grows as p^2 (a matrix), no distance
 * grows as p^3; but five training runs over a factor of two of p cannot
 * always tell p^3 from p^2 plus noise: a matrix product's column reuse,
 * N^2/8 + 3N/8 blocks, cross-validated best as 8.4e-4 N^3 + 0.93 N log2 N
 * (79,000 blocks at N = 448, where the run measured 25,300); Cholesky's
 * row reuse, about N^2/32, as 3.9e-4 N^3 (105,000 at N = 640 against
 * 13,300).  Such an edge keeps its fit inside the training range, and
 * beyond it grows as p^k from its value at the largest training point,
 * k the footprint's power: 413 * 8^2 = 26,400 for the matrix product.
 * Edges of powers up to k are left alone (a linear edge with a negative
 * constant grows faster than p from its value there, legitimately).
 * Excluding the higher powers from the fit instead refits the slices that
 * move between distance groups within the training sizes (Floyd-Warshall's
 * rows: a slice at 5 lines at N = 40 and at N^2/16 from N = 50 on, whose
 * N^3 fit put it past the L1 and the footprint's N^2 fits at a constant
 * 7: -22% L1 misses).
 *
 * The footprint's power is rounded up to a whole one: over a factor of two
 * the search takes a 3-D grid's N^3 footprint plus its constant for
 * N^(11/4) log2 N, and a matrix's N^2 at 4 KiB pages for N^(3/2) (its rows
 * share pages), while the distances' terms are whole powers. */
#include "model/model.h"

#include <math.h>

/* A power within this of a whole one is that one. */
#define POWER_SLACK 0.01

/* Contract in model.h. */
double model_power(const model *m)
{
    double power = 0;
    for (int t = 0; t < m->nterms; t++)
        for (int f = 0; f < m->terms[t].nfactors; f++)
            if (m->terms[t].coef > 0 && isfinite(m->terms[t].coef) && m->terms[t].factors[f].param == 0)
                power = fmax(power, m->terms[t].factors[f].exponent);
    return power;
}

/* Contract in model.h. */
void rd_models_bound_growth(rd_model *const *ms, size_t n, double top)
{
    double power = 0;
    for (size_t i = 0; i < n; i++)
        power = fmax(power, model_power(&ms[i]->cold));
    power = power > 0 ? ceil(power - POWER_SLACK) : 0;
    for (size_t i = 0; i < n; i++) {
        ms[i]->max_power = isfinite(top) && top > 0 ? power : 0;
        ms[i]->top = top;
    }
}

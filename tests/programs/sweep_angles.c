/* sweep_angles.c — a recurrence an outer loop carries through the memory
 * of its inner loop (issue 21 item 3; tests/integration/test_parent_recurrence.sh):
 * the shape of a discrete-ordinates sweep (SNAP's psii(m, j, k)), where
 * cell i reads, for each angle m, the face value psi[m] that cell i - 1
 * stored, and stores its own outflow there for cell i + 1.
 *
 * For each cell the angles' chains (load psi[m], multiply, add, divide,
 * add, subtract, store) are independent of each other, so the ANGLES
 * chains of a cell run side by side and a cell costs about one chain's
 * latency while that is above the angles' own work (natively, gcc -O1 on
 * a Zen 3 guest: 35 cycles per cell at 1 angle, 18 per angle at 2, 9 at
 * 4, 5 at 8, where the divider's throughput takes over).
 *
 * Usage: sweep_angles CELLS ANGLES REPS.  Prints the sum of the cells'
 * scalar fluxes. */
#include <stdio.h>
#include <stdlib.h>

/* Sweep the cells `reps` times with `angles` face values psi, each cell's
 * source q[i] and total cross section s[i], adding the cell's angular
 * fluxes into phi[i]. */
static void sweep(long cells, long angles, long reps, const double *q, const double *s, const double *h, double *psi,
                  double *phi)
{
    for (long r = 0; r < reps; r++) {
        for (long m = 0; m < angles; m++)
            psi[m] = 0.0;
        for (long i = 0; i < cells; i++) { /* LOOP:cells */
            double sum = phi[i];
            for (long m = 0; m < angles; m++) { /* LOOP:angles */
                double cell = (q[i] + h[m] * psi[m]) / (s[i] + h[m]);
                psi[m] = 2.0 * cell - psi[m];
                sum += cell;
            }
            phi[i] = sum;
        }
    }
}

int main(int argc, char **argv)
{
    long cells = argc > 3 ? atol(argv[1]) : 0, angles = argc > 3 ? atol(argv[2]) : 0,
         reps = argc > 3 ? atol(argv[3]) : 0;
    if (cells < 1 || angles < 1 || reps < 1)
        return fprintf(stderr, "usage: sweep_angles CELLS ANGLES REPS (each at least 1)\n"), 2;
    double *q = malloc(sizeof *q * (size_t)cells), *s = malloc(sizeof *s * (size_t)cells),
           *phi = calloc((size_t)cells, sizeof *phi), *h = malloc(sizeof *h * (size_t)angles),
           *psi = malloc(sizeof *psi * (size_t)angles);
    if (!q || !s || !phi || !h || !psi)
        return fprintf(stderr, "sweep_angles: out of memory\n"), 1;
    for (long i = 0; i < cells; i++) {
        q[i] = 1.0 + (double)(i % 7) * 0.125;
        s[i] = 2.0 + (double)(i % 5) * 0.25;
    }
    for (long m = 0; m < angles; m++)
        h[m] = 0.5 + 0.25 * (double)m;
    sweep(cells, angles, reps, q, s, h, psi, phi);
    double total = 0;
    for (long i = 0; i < cells; i++)
        total += phi[i];
    printf("%.6e\n", total);
    free(q), free(s), free(phi), free(h), free(psi);
    return 0;
}

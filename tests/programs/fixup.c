/* fixup.c — a loop repeated by a data-dependent condition whose total trips
 * are a known polynomial (issue 21 item 1, tests/integration/test_compose.sh).
 *
 * A transport-like sweep over an N x N x N grid, from the corner (0,0,0):
 * each cell's outgoing value is computed from its upwind neighbours and a
 * source (strong inside a ball at the centre), limited where it exceeds a
 * bound (a data-dependent branch: near the inflow faces and in the ball),
 * and a negative result is "fixed up" by sweeping the cell again (the
 * `goto again` of Sweep3D's negative-flux fix-up).  The cells of odd
 * i + j + k start with a deficit that makes their first pass negative, so
 * the fix-up loop runs exactly 3N^3/2 times for even N; the share of the
 * passes that take the limiter falls towards the ball's volume as the grid
 * grows (about 3.2/N + 0.155), which no normal form of the loop's total
 * instructions follows, while its cost per pass tends to a constant.
 *
 * Usage: fixup N   (N even).  Prints N, the passes of the fix-up loop and
 * the passes that took the limiter, then a checksum. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 16;
    if (n < 2 || n % 2)
        return fprintf(stderr, "usage: fixup N (an even N >= 2)\n"), 2;
    long n3 = n * n * n;
    double *psi = malloc(sizeof *psi * (size_t)n3);
    if (!psi)
        return 1;
    double r2 = (double)(n * n) / 9.0, h = 0.5 * (double)(n - 1);
    long passes = 0, limited = 0;
    double sum = 0;
    for (long k = 0; k < n; k++)
        for (long j = 0; j < n; j++)
            for (long i = 0; i < n; i++) {
                long c = (k * n + j) * n + i;
                double x = (double)i - h, y = (double)j - h, z = (double)k - h;
                double q = x * x + y * y + z * z < r2 ? 4.0 : 0.1;
                double in = (i ? psi[c - 1] : 3.0) + (j ? psi[c - n] : 3.0) + (k ? psi[c - n * n] : 3.0);
                double deficit = (double)((i + j + k) & 1);
                double out;
            again:
                passes++;
                out = (q + in) * 0.25 - deficit * 1e6;
                if (out > 0.7) { /* the limiter */
                    out = 0.7 + (out - 0.7) / (1.0 + (out - 0.7) * (out - 0.7));
                    limited++;
                }
                if (out < 0) { /* negative: fix up, sweep the cell again */
                    deficit -= 1.0;
                    goto again;
                }
                psi[c] = out;
                sum += out;
            }
    printf("%ld %ld %ld\n%.6g\n", n, passes, limited, sum);
    free(psi);
    return 0;
}

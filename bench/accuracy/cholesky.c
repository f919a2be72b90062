/* cholesky.c — Cholesky factorisation A = L L^T of an N x N symmetric positive
 * definite matrix, unblocked, in the dot-product ("jki", left-looking) form of
 * LAPACK's dpotf2 (UPLO = 'L': the diagonal element after a dot product of row
 * j of L with itself, then the column below it by dot products of rows i and j;
 * Golub & Van Loan, Matrix Computations, 4th ed., Alg. 4.2.1 "gaxpy Cholesky"),
 * written for row-major storage so that the rows of L are contiguous.  Then a
 * solve A x = b by forward and back substitution (LAPACK dpotrs).
 * Matrix: the Hilbert matrix 1/(i+j+1) plus N on the diagonal (strictly
 * diagonally dominant, hence SPD).  Work ~ N^3/3 multiply-adds; data 8 N^2 bytes.
 * usage: cholesky N      prints "cholesky N residual-checksum" */
#include <math.h>

#define KERNEL_NAME "cholesky"
#include "kernel.h"

/* make_spd: fills a (n x n, row-major) with the shifted Hilbert matrix. */
__attribute__((noinline)) static void make_spd(long n, double *a)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            a[i * n + j] = 1.0 / (double)(i + j + 1) + (i == j ? (double)n : 0.0);
}

/* potf2: overwrites the lower triangle of a with L (a = L L^T); returns the
 * first j whose pivot is not positive, or -1 when a is positive definite. */
__attribute__((noinline)) static long potf2(long n, double *a)
{
    for (long j = 0; j < n; j++) {
        double *aj = a + j * n;
        double s = aj[j];
        for (long k = 0; k < j; k++)
            s -= aj[k] * aj[k];
        if (s <= 0.0)
            return j;
        double ljj = sqrt(s);
        aj[j] = ljj;
        for (long i = j + 1; i < n; i++) {
            double *ai = a + i * n;
            double t = ai[j];
            for (long k = 0; k < j; k++)
                t -= ai[k] * aj[k];
            ai[j] = t / ljj;
        }
    }
    return -1;
}

/* potrs: solves L L^T x = b in place (b becomes x), L in a's lower triangle. */
__attribute__((noinline)) static void potrs(long n, const double *a, double *b)
{
    for (long i = 0; i < n; i++) {          /* L y = b, row by row */
        double t = b[i];
        for (long k = 0; k < i; k++)
            t -= a[i * n + k] * b[k];
        b[i] = t / a[i * n + i];
    }
    for (long i = n - 1; i >= 0; i--) {     /* L^T x = y, column sweeps of L */
        b[i] /= a[i * n + i];
        for (long k = 0; k < i; k++)
            b[k] -= a[i * n + k] * b[i];
    }
}

int main(int argc, char **argv)
{
    long n = size_arg(argc, argv, 1, 40000);
    double *a = alloc(n * n, sizeof *a), *b = alloc(n, sizeof *b);
    make_spd(n, a);
    long bad = potf2(n, a);
    if (bad >= 0) {
        fprintf(stderr, "cholesky: not positive definite at column %ld\n", bad);
        return 1;
    }
    for (long i = 0; i < n; i++)
        b[i] = 1.0;
    potrs(n, a, b);
    printf("cholesky %ld %.6e\n", n, weighted_sum(n, b));
    free(a);
    free(b);
    return 0;
}

/* lu.c — LU factorisation with partial pivoting, P A = L U, of an N x N matrix:
 * the unblocked right-looking algorithm of LAPACK's dgetf2 (for each column:
 * idamax finds the pivot, dswap exchanges the rows, dscal scales the column
 * below the diagonal, dger makes the rank-1 update of the trailing matrix;
 * Golub & Van Loan, Matrix Computations, 4th ed., Alg. 3.4.1), row-major, then
 * a solve A x = b with the factors (LAPACK dgetrs).  Matrix: uniform values in
 * [-1, 1) from a fixed-seed LCG (kernel.h).  Work ~ 2N^3/3
 * flops; data 8 N^2 bytes.
 * usage: lu N            prints "lu N checksum" */
#include <math.h>

#define KERNEL_NAME "lu"
#include "kernel.h"

/* idamax: the index in [k, n) of the largest |a[i][k]| (first of equals). */
__attribute__((noinline)) static long idamax(long n, const double *a, long k)
{
    long p = k;
    double best = fabs(a[k * n + k]);
    for (long i = k + 1; i < n; i++) {
        double v = fabs(a[i * n + k]);
        if (v > best) {
            best = v;
            p = i;
        }
    }
    return p;
}

/* dswap: exchanges rows r and s of a (n x n). */
__attribute__((noinline)) static void dswap(long n, double *a, long r, long s)
{
    for (long j = 0; j < n; j++) {
        double t = a[r * n + j];
        a[r * n + j] = a[s * n + j];
        a[s * n + j] = t;
    }
}

/* dger: scales column k below the diagonal by 1/a[k][k] and subtracts the
 * rank-1 product of it and row k from the trailing matrix a[k+1:, k+1:]. */
__attribute__((noinline)) static void dger(long n, double *a, long k)
{
    const double *ak = a + k * n;
    double r = 1.0 / ak[k];
    for (long i = k + 1; i < n; i++) {
        double *ai = a + i * n;
        double l = ai[k] * r;
        ai[k] = l;
        for (long j = k + 1; j < n; j++)
            ai[j] -= l * ak[j];
    }
}

/* getrs: solves A x = b in place from the factors in a and the pivots piv. */
__attribute__((noinline)) static void getrs(long n, const double *a, const long *piv, double *b)
{
    for (long k = 0; k < n; k++) {
        double t = b[k];
        b[k] = b[piv[k]];
        b[piv[k]] = t;
    }
    for (long i = 0; i < n; i++)
        for (long k = 0; k < i; k++)
            b[i] -= a[i * n + k] * b[k];
    for (long i = n - 1; i >= 0; i--) {
        for (long k = i + 1; k < n; k++)
            b[i] -= a[i * n + k] * b[k];
        b[i] /= a[i * n + i];
    }
}

int main(int argc, char **argv)
{
    long n = size_arg(argc, argv, 1, 40000);
    double *a = alloc(n * n, sizeof *a), *b = alloc(n, sizeof *b);
    long *piv = alloc(n, sizeof *piv);
    fill_uniform(n * n, a, 12345);
    for (long k = 0; k < n; k++) {
        piv[k] = idamax(n, a, k);
        if (a[piv[k] * n + k] == 0.0) {
            fprintf(stderr, "lu: singular at column %ld\n", k);
            return 1;
        }
        if (piv[k] != k)
            dswap(n, a, k, piv[k]);
        dger(n, a, k);
    }
    for (long i = 0; i < n; i++)
        b[i] = (double)(i % 3) - 1.0;
    getrs(n, a, piv, b);
    double sum = 0.0;
    for (long i = 0; i < n; i++)
        sum += fabs(b[i]);
    printf("lu %ld %.6e\n", n, sum);
    free(a);
    free(b);
    free(piv);
    return 0;
}

/* bench_kernels.c — the kernels of bench/static_bench.sh: `augur static`'s
 * counts and cycle formulas against `augur collect`, `augur predict
 * --machine` and native time, on arrays of any size (heap, row stride n) so
 * that a run can be timed.  Usage: bench_kernels K N REPS runs kernel K (0-12,
 * the order of main's dispatch) REPS times on size N; main's guards `k == K`
 * are affine, so the static model of the whole run is exact with --param
 * k=K n=N reps=REPS (and threads=T for the OpenMP kernel). */
#include <stdio.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define NOINLINE __attribute__((noinline))

/* dense matrix product c += a b, n x n: n^3 */
NOINLINE void matmul(int n, double *restrict c, const double *restrict a, const double *restrict b)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                c[i * n + j] += a[i * n + k] * b[k * n + j];
}

/* dense matrix-vector product y = a x, n x n: n^2 */
NOINLINE void matvec(int n, double *restrict y, const double *restrict a, const double *restrict x)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += a[i * n + j] * x[j];
        y[i] = s;
    }
}

/* 1-D three-point stencil: n - 2 */
NOINLINE void stencil3(int n, double *restrict y, const double *restrict x)
{
    for (int i = 1; i < n - 1; i++)
        y[i] = 0.25 * x[i - 1] + 0.5 * x[i] + 0.25 * x[i + 1];
}

/* 2-D five-point Jacobi sweep: (n - 2)^2 */
NOINLINE void jacobi2d(int n, double *restrict b, const double *restrict a)
{
    for (int i = 1; i <= n - 2; i++)
        for (int j = 1; j <= n - 2; j++)
            b[i * n + j] = 0.2 * (a[i * n + j] + a[(i - 1) * n + j] + a[(i + 1) * n + j] +
                                  a[i * n + j - 1] + a[i * n + j + 1]);
}

/* lower-triangular solve l x = b, forward substitution: n(n-1)/2 */
NOINLINE void trisolve(int n, double *restrict x, const double *restrict l, const double *restrict b)
{
    for (int i = 0; i < n; i++) {
        double s = b[i];
        for (int j = 0; j < i; j++)
            s -= l[i * n + j] * x[j];
        x[i] = s / l[i * n + i];
    }
}

/* trapezoid: rows of i + 8 elements: n(n-1)/2 + 8n */
NOINLINE void trapezoid(int n, double *restrict y, const double *restrict x)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i + 8; j++)
            y[j] += x[i] * 0.5;
}

/* an affine guard: the update runs where j > i + 2 of an upper triangle */
NOINLINE void guarded(int n, double *restrict y, const double *restrict x)
{
    for (int i = 0; i < n; i++)
        for (int j = i; j < n; j++) {
            if (j > i + 2)
                y[j] = y[j] + x[i] * x[j];
        }
}

/* a modulo guard, by the complement rule: 3 of every 4 elements */
NOINLINE void modulo(int n, double *restrict y, const double *restrict x)
{
    for (int i = 0; i < n; i++)
        if (i % 4 != 0)
            y[i] = y[i] * 0.5 + x[i];
}

/* min/max bounds: a band of half-width 3 over all n rows */
NOINLINE void band(int n, double *restrict y, const double *restrict x)
{
    for (int i = 0; i < n; i++)
        for (int j = MAX(0, i - 3); j < MIN(n, i + 4); j++)
            y[i] += x[j] * 0.25;
}

/* y += s x over m elements */
NOINLINE void axpy(int m, double s, double *restrict y, const double *restrict x)
{
    for (int k = 0; k < m; k++)
        y[k] += s * x[k];
}

/* calls with affine arguments: sum over i < n of (n - i) = n(n+1)/2 */
NOINLINE void calls(int n, double *restrict y, const double *restrict x)
{
    for (int i = 0; i < n; i++)
        axpy(n - i, 1.5, y + i, x);
}

/* bounds read from memory: the annotations give them (lo[0] = 1, hi[0] = n - 1) */
NOINLINE void annotated(int n, const int *lo, const int *hi, double *restrict y, const double *restrict x)
{
    (void)n; /* used by the annotations only */
#pragma augur loop iterations(n - 1)
    for (int i = lo[0]; i <= hi[0]; i++)
        y[i] = y[i - 1] * 0.5 + x[i];
}

/* constant steps: ceil(n/3) up, ceil(n/2) down */
NOINLINE void strided(int n, double *restrict y, const double *restrict x)
{
    for (int i = 0; i < n; i += 3)
        y[i] = y[i] * 3.0 + x[i];
    for (int i = n - 1; i >= 0; i -= 2)
        y[i] = y[i] - x[i];
}

/* an OpenMP parallel loop (a triad), its iterations split over the threads */
NOINLINE void triad_omp(int n, double *restrict a, const double *restrict b, const double *restrict c)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++)
        a[i] = b[i] + 3.0 * c[i];
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: bench_kernels K N REPS (K 0-12, N >= 8, REPS >= 0)\n");
        return 2;
    }
    int k = atoi(argv[1]), n = atoi(argv[2]), reps = atoi(argv[3]);
#pragma augur branch ratio(0)
    if (k < 0 || k > 12 || n < 8 || n > 100000000 || reps < 0) {
        fprintf(stderr, "bench_kernels: K must be 0-12, N 8 to 100000000, REPS >= 0\n");
        return 2;
    }
    /* the 2-D kernels (0-3) take n x n arrays, the others n + 8 elements */
    size_t len = k < 4 ? (size_t)n * n : (size_t)n + 8;
    double *a = calloc(len, sizeof *a), *b = calloc(len, sizeof *b), *c = calloc(len, sizeof *c);
#pragma augur branch ratio(0)
    if (!a || !b || !c) {
        fprintf(stderr, "bench_kernels: no memory for 3 x %zu doubles\n", len);
        return 1;
    }
    for (size_t i = 0; i < len; i++)
        b[i] = 1.0 + (double)(i % 7);
    int lo = 1, hi = n - 1;
    for (int r = 0; r < reps; r++) {
        if (k == 0) matmul(n, c, a, b);
        if (k == 1) matvec(n, c, b, a);
        if (k == 2) jacobi2d(n, c, b);
        if (k == 3) trisolve(n, c, b, a);
        if (k == 4) trapezoid(n, c, b);
        if (k == 5) stencil3(n, c, b);
        if (k == 6) guarded(n, c, b);
        if (k == 7) modulo(n, c, b);
        if (k == 8) band(n, c, b);
        if (k == 9) calls(n, c, b);
        if (k == 10) annotated(n, &lo, &hi, c, b);
        if (k == 11) triad_omp(n, a, b, c);
        if (k == 12) strided(n, c, b);
    }
    printf("bench_kernels %d %d %g\n", k, n, c[1] + a[1]);
    free(a);
    free(b);
    free(c);
    return 0;
}

/* kernels.c — the loop shapes `augur static` counts (tests/integration/
 * test_static.sh): each kernel's loops have trip counts known in closed
 * form in n, checked against the static formulas and against what
 * `augur collect` measures at -O0 and -O2.  Usage: kernels N (N >= 8). */
#include <stdio.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define NOINLINE __attribute__((noinline))

static double A[64][64], B[64][64], C[64][64];

/* dense product: n^3 */
NOINLINE void dense(int n)
{
    for (int i = 0; i < n; i++)             /* LOOP:dense_i */
        for (int j = 0; j < n; j++)         /* LOOP:dense_j */
            for (int k = 0; k < n; k++)     /* LOOP:dense_k */
                C[i][j] += A[i][k] * B[k][j];
}

/* 1-D three-point stencil: n - 2 */
NOINLINE void stencil1(int n, double *restrict y, const double *restrict x)
{
    for (int i = 1; i < n - 1; i++)         /* LOOP:stencil1 */
        y[i] = 0.25 * x[i - 1] + 0.5 * x[i] + 0.25 * x[i + 1];
}

/* 2-D five-point stencil: (n - 2)^2 */
NOINLINE void stencil2(int n)
{
    for (int i = 1; i <= n - 2; i++)        /* LOOP:stencil2_i */
        for (int j = 1; j <= n - 2; j++)    /* LOOP:stencil2_j */
            B[i][j] = A[i][j] - 0.25 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
}

/* triangular: n(n-1)/2 */
NOINLINE void triangular(int n)
{
    for (int i = 0; i < n; i++)             /* LOOP:tri_i */
        for (int j = i + 1; j < n; j++)     /* LOOP:tri_j */
            A[i][j] = A[j][i] * 2.0;
}

/* trapezoidal: sum over i < n of (i + 4) = n(n-1)/2 + 4n */
NOINLINE void trapezoid(int n, double *x)
{
    for (int i = 0; i < n; i++)             /* LOOP:trap_i */
        for (int j = 0; j < i + 4; j++)     /* LOOP:trap_j */
            x[j] += 1.0;
}

/* steps: ceil(n/3) up, ceil(n/2) down */
NOINLINE void strided(int n, double *x)
{
    for (int i = 0; i < n; i += 3)          /* LOOP:stride3 */
        x[i] = x[i] * 3.0;
    for (int i = n - 1; i >= 0; i -= 2)     /* LOOP:stride_down */
        x[i] = x[i] - 1.0;
}

/* an affine guard: the then-part runs for j >= 5 */
NOINLINE void guarded(int n, double *x)
{
    for (int i = 1; i <= n; i++)            /* LOOP:guard_i */
        for (int j = i; j <= n; j++) {      /* LOOP:guard_j */
            if (j > 4)
                x[j] = x[j] + x[i];
        }
}

/* a modulo guard, by the complement rule */
NOINLINE void modulo(int n, double *x)
{
    for (int i = 0; i < n; i++)             /* LOOP:mod_i */
        if (i % 4 != 0)
            x[i] = x[i] * 0.5;
}

/* min/max bounds: min(n, 10) rows of a band of width up to 5 */
NOINLINE void band(int n, double *x)
{
    for (int i = 0; i < MIN(n, 10); i++)                    /* LOOP:band_i */
        for (int j = MAX(0, i - 2); j < MIN(n, i + 3); j++) /* LOOP:band_j */
            x[j] += x[i];
}

/* y += a x over m elements */
NOINLINE void axpy(int m, double a, double *y, const double *x)
{
    for (int k = 0; k < m; k++)             /* LOOP:axpy */
        y[k] += a * x[k];
}

/* calls with affine arguments: sum over i < n of (n - i) = n(n+1)/2 */
NOINLINE void calls(int n, double *y, const double *x)
{
    for (int i = 0; i < n; i++)             /* LOOP:calls_i */
        axpy(n - i, 2.0, y + i, x);
}

/* bounds read from memory: annotations give them (first[0] = 1, last[0] = n) */
NOINLINE void annotated(int n, const int *first, const int *last, double *x)
{
    (void)n; /* used by the annotations only */
#pragma @Annotation {lp_init:1, lp_cond:n}
    for (int i = first[0]; i <= last[0]; i++) /* LOOP:annot_lp */
        x[i] *= 2.0;
#pragma augur loop iterations(n - 1)
    for (int i = first[0]; i < last[0]; i++)  /* LOOP:annot_iter */
        x[i] += x[i - 1];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 16;
    if (n < 8 || n > 62) {
        fprintf(stderr, "usage: kernels N (8 <= N <= 62)\n");
        return 2;
    }
    double *x = calloc((size_t)n + 8, sizeof *x), *y = calloc((size_t)n + 8, sizeof *y);
    int first = 1, last = n;
    dense(n);
    stencil1(n, y, x);
    stencil2(n);
    triangular(n);
    trapezoid(n, x);
    strided(n, x);
    guarded(n, x);
    modulo(n, x);
    band(n, x);
    calls(n, y, x);
    annotated(n, &first, &last, x);
    printf("%g\n", x[1] + y[1] + C[1][1] + B[1][1] + A[1][1]);
    free(x);
    free(y);
    return 0;
}

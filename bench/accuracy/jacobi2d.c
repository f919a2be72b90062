/* jacobi2d.c — Jacobi iteration for the 2-D Poisson problem -lap u = f on the
 * unit square, zero boundary, on an N x N grid with the 5-point operator
 * (Saad, Iterative Methods for Sparse Linear Systems, 2nd ed., §4.1 and
 * §2.2.1; the loop of the classic OpenMP example jacobi.c, J. Robicheaux /
 * Dieter an Mey, 1998): u_new = (u_W + u_E + u_S + u_N + h^2 f) / 4 over the
 * interior, SWEEPS sweeps between two grids, then the residual's norm.
 * Work ~ 6 SWEEPS N^2 flops; data 3 * 8 N^2 bytes.
 * usage: jacobi2d N      prints "jacobi2d N residual-norm" */
#include <math.h>

#define KERNEL_NAME "jacobi2d"
#include "kernel.h"

#define SWEEPS 10

/* set_rhs: f = 2((1-x^2) + (1-y^2)) (the usual test right-hand side) on the
 * n x n grid; u and v zero. */
__attribute__((noinline)) static void set_rhs(long n, double *f, double *u, double *v)
{
    double h = 1.0 / (double)(n - 1);
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            double x = -1.0 + 2.0 * h * (double)i, y = -1.0 + 2.0 * h * (double)j;
            f[i * n + j] = 2.0 * ((1.0 - x * x) + (1.0 - y * y));
            u[i * n + j] = v[i * n + j] = 0.0;
        }
}

/* sweep: one Jacobi sweep, v's interior from u. */
__attribute__((noinline)) static void sweep(long n, double h2, const double *f, const double *u, double *v)
{
    for (long i = 1; i < n - 1; i++)
        for (long j = 1; j < n - 1; j++)
            v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] +
                                   u[i * n + j + 1] + h2 * f[i * n + j]);
}

/* residual: || f - A u ||_2 over the interior, A the 5-point operator / h^2. */
__attribute__((noinline)) static double residual(long n, double h2, const double *f, const double *u)
{
    double s = 0.0;
    for (long i = 1; i < n - 1; i++)
        for (long j = 1; j < n - 1; j++) {
            double r = f[i * n + j] - (4.0 * u[i * n + j] - u[(i - 1) * n + j] - u[(i + 1) * n + j] -
                                       u[i * n + j - 1] - u[i * n + j + 1]) / h2;
            s += r * r;
        }
    return sqrt(s);
}

int main(int argc, char **argv)
{
    long n = size_arg(argc, argv, 3, 100000);
    double *f = alloc(n * n, sizeof *f), *u = alloc(n * n, sizeof *u), *v = alloc(n * n, sizeof *v);
    set_rhs(n, f, u, v);
    double h = 2.0 / (double)(n - 1), h2 = h * h;
    for (int s = 0; s < SWEEPS; s++) {
        sweep(n, h2, f, u, v);
        double *t = u;
        u = v;
        v = t;
    }
    printf("jacobi2d %ld %.6e\n", n, residual(n, h2, f, u));
    free(f);
    free(u);
    free(v);
    return 0;
}

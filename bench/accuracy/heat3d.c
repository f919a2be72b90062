/* heat3d.c — the 3-D heat equation u_t = lap u by explicit time steps (FTCS)
 * with the 7-point Laplacian on an N x N x N grid, boundary held at zero:
 * u' = u + r (u_W + u_E + u_S + u_N + u_B + u_T - 6u), r = 1/8 (stable below
 * 1/6); the 7-point Jacobi stencil of the Parboil "stencil" benchmark
 * (Stratton et al., IMPACT-TR-12-01, 2012) and of Datta et al., "Stencil
 * computation optimization and auto-tuning on state-of-the-art multicore
 * architectures", SC 2008.  STEPS steps between two grids; initial value a hot
 * cube in the centre.  Work ~ 8 STEPS N^3 flops; data 2 * 8 N^3 bytes.
 * usage: heat3d N        prints "heat3d N total-heat" */
#define KERNEL_NAME "heat3d"
#include "kernel.h"

#define STEPS 4

/* init: u = v = 1 inside the central cube of side n/2, 0 elsewhere. */
__attribute__((noinline)) static void init(long n, double *u, double *v)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            for (long k = 0; k < n; k++) {
                int hot = i >= n / 4 && i < 3 * n / 4 && j >= n / 4 && j < 3 * n / 4 && k >= n / 4 && k < 3 * n / 4;
                u[(i * n + j) * n + k] = v[(i * n + j) * n + k] = hot ? 1.0 : 0.0;
            }
}

/* step: one time step, v's interior from u. */
__attribute__((noinline)) static void step(long n, const double *u, double *v)
{
    const double r = 0.125;
    long nn = n * n;
    for (long i = 1; i < n - 1; i++)
        for (long j = 1; j < n - 1; j++)
            for (long k = 1; k < n - 1; k++) {
                long c = i * nn + j * n + k;
                v[c] = u[c] + r * (u[c - 1] + u[c + 1] + u[c - n] + u[c + n] + u[c - nn] + u[c + nn] - 6.0 * u[c]);
            }
}

/* total: the sum of u over the grid. */
__attribute__((noinline)) static double total(long n, const double *u)
{
    double s = 0.0;
    for (long c = 0; c < n * n * n; c++)
        s += u[c];
    return s;
}

int main(int argc, char **argv)
{
    long n = size_arg(argc, argv, 3, 2000);
    double *u = alloc(n * n * n, sizeof *u), *v = alloc(n * n * n, sizeof *v);
    init(n, u, v);
    for (int s = 0; s < STEPS; s++) {
        step(n, u, v);
        double *t = u;
        u = v;
        v = t;
    }
    printf("heat3d %ld %.6e\n", n, total(n, u));
    free(u);
    free(v);
    return 0;
}

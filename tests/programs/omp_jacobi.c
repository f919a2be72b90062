/* omp_jacobi.c — an OpenMP Jacobi sweep for test_openmp_jacobi.sh: a first
 * OpenMP user's program, built with -fopenmp (tests/CMakeLists.txt).
 *
 * usage: omp_jacobi N   (N >= 3)
 * Closed forms: the init loop writes u and v, N^2 each; 3 sweeps of the
 * (N-2)^2 interior, parallel over rows, each store once and read 4 times
 * the other array (u and v swap after each sweep: the block first stored
 * in u is read 8 (N-2)^2 times and written (N-2)^2, the one in v read
 * 4 (N-2)^2 and written 2 (N-2)^2); then a parallel reduction reads the
 * last result, N^2 elements. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 0;
    if (n < 3) {
        fprintf(stderr, "usage: omp_jacobi N (N >= 3)\n");
        return 2;
    }
    double *u = malloc(sizeof(double) * n * n);
    double *v = malloc(sizeof(double) * n * n);
    if (!u || !v)
        return 1;
    for (int i = 0; i < n * n; i++)
        u[i] = i % 7, v[i] = 0;
    for (int it = 0; it < 3; it++) {
#pragma omp parallel for
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
        double *t = u;
        u = v;
        v = t;
    }
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < n * n; i++)
        s += u[i];
    printf("%.1f\n", s);
    free(u);
    free(v);
    return 0;
}

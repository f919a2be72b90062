/* kernels.c — loop shapes for the tests of `augur structure` and the scope
 * view, built at -O0, -O2 and -O3 (tests/CMakeLists.txt).  Each kernel's
 * floating-point work has a closed form in N (test_structure.sh):
 *
 *   matmul      N^3 fp adds and N^3 fp muls          perfect 3-deep nest
 *   triangular  N(N+1)/2 fp adds                     inner bound depends on i
 *   imperfect   N^2 fp adds, N fp muls               statements around the inner loop
 *   inlined     N^2 fp adds                          a loop inside an inlined function
 *   vector      N fp adds (N odd: vector + remainder) vectorised at -O3
 *   unrolled    N fp adds                            unrolled by 4 (N odd: remainder)
 *   dispatch    N iterations through a 9-case switch (a jump table at -O2)
 *   recursion   fib(N) calls, no loop
 *
 * Markers "LOOP:name" tag the line of each loop statement; the test finds
 * them with grep.  Usage: kernels N (N >= 2; runs every kernel). */
#include <stdio.h>
#include <stdlib.h>

static double *A, *B, *C, *X, *Y;

__attribute__((noinline)) static void matmul(int n)
{
    for (int i = 0; i < n; i++) /* LOOP:matmul_i */
        for (int j = 0; j < n; j++) /* LOOP:matmul_j */
            for (int k = 0; k < n; k++) /* LOOP:matmul_k */
                C[i * n + j] += A[i * n + k] * B[k * n + j];
}

__attribute__((noinline)) static double triangular(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) /* LOOP:tri_i */
        for (int j = 0; j <= i; j++) /* LOOP:tri_j */
            s += X[j];
    return s;
}

__attribute__((noinline)) static void imperfect(int n)
{
    for (int i = 0; i < n; i++) { /* LOOP:imp_i */
        double t = 0;
        for (int j = 0; j < n; j++) /* LOOP:imp_j */
            t += A[i * n + j];
        Y[i] = t * 0.5;
    }
}

static inline double row_sum(const double *row, int n)
{
    double t = 0;
    for (int j = 0; j < n; j++) /* LOOP:inl_j */
        t += row[j];
    return t;
}

__attribute__((noinline)) static void inlined(int n)
{
    for (int i = 0; i < n; i++) /* LOOP:inl_i */
        X[i] = row_sum(&B[i * n], n);
}

__attribute__((noinline)) static void vector(int n)
{
    for (int i = 0; i < n; i++) /* LOOP:vec */
        Y[i] = X[i] + B[i];
}

__attribute__((noinline)) static void unrolled(int n)
{
#pragma GCC unroll 4
    for (int i = 0; i < n; i++) /* LOOP:unr */
        X[i] = Y[i] + 1.0;
}

__attribute__((noinline)) static long dispatch(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++) { /* LOOP:sw */
        switch (i % 9) {
        case 0: s += 3; break;
        case 1: s ^= 5; break;
        case 2: s *= 7; break;
        case 3: s -= 11; break;
        case 4: s += i; break;
        case 5: s >>= 1; break;
        case 6: s |= 64; break;
        case 7: s += 2 * i; break;
        default: s -= 1; break;
        }
    }
    return s;
}

__attribute__((noinline)) static long fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static double *array(size_t n)
{
    double *p = calloc(n, sizeof *p);
    if (!p) {
        perror("calloc");
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        p[i] = (double)(i % 5);
    return p;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 0;
    if (n < 2) {
        fprintf(stderr, "usage: kernels N   (N >= 2)\n");
        return 2;
    }
    A = array((size_t)n * n), B = array((size_t)n * n), C = array((size_t)n * n);
    X = array((size_t)n), Y = array((size_t)n);
    matmul(n);
    double t = triangular(n);
    imperfect(n);
    inlined(n);
    vector(n);
    unrolled(n);
    long d = dispatch(n);
    long f = fib(n < 20 ? n : 20);
    printf("%g %g %ld %ld\n", C[n + 1] + t + Y[1] + X[1], Y[n - 1], d, f);
    return 0;
}

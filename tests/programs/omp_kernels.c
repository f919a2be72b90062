/* omp_kernels.c — OpenMP kernels for augur's acceptance tests of libgomp
 * programs (tests/integration/test_openmp.sh).
 *
 * usage: omp_kernels N [padded]   (run with OMP_NUM_THREADS=2)
 *   - SWEEPS Jacobi sweeps over the interior of two N x N grids of doubles,
 *     `#pragma omp parallel for` over the rows (schedule static):
 *     (N-2)^2 stores per sweep, rows split in two halves between threads;
 *   - a dot product of two N^2 vectors with reduction(+:dot);
 *   - per-thread partial sums in an array partial[] indexed by the thread
 *     number: adjacent longs of one line (false sharing), or with `padded`
 *     a line apart.
 * The exit status is 0 when the results equal their closed forms.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define SWEEPS 2
#define LINE_LONGS 8 /* longs per 64-byte line */

struct partials {
    long v[2 * LINE_LONGS];
} __attribute__((aligned(64)));

struct partials partial;

/* jacobi: SWEEPS sweeps of the 4-point average from a into b and back;
 * rows 1 .. n-2 are divided among the threads. */
static void jacobi(double *a, double *b, long n)
{
    for (int s = 0; s < SWEEPS; s++) {
#pragma omp parallel for schedule(static)
        for (long i = 1; i < n - 1; i++)
            for (long j = 1; j < n - 1; j++)
                b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + /* STORE:jacobi */
                                       a[i * n + j - 1] + a[i * n + j + 1]);
        double *t = a;
        a = b;
        b = t;
    }
}

/* dot: the dot product of x and y (m doubles each), in parallel. */
static double dot(const double *x, const double *y, long m)
{
    double sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (long k = 0; k < m; k++)
        sum += x[k] * y[k];
    return sum;
}

/* count_partial: each thread adds 1 to partial.v[its number * stride] for
 * its share of m iterations; returns the sum of the partials. */
static long count_partial(long m, int stride)
{
#pragma omp parallel
    {
        volatile long *mine = &partial.v[omp_get_thread_num() * stride];
#pragma omp for schedule(static)
        for (long k = 0; k < m; k++)
            *mine += 1; /* STORE:partial */
    }
    long total = 0;
    for (int t = 0; t < 2 * LINE_LONGS; t++)
        total += partial.v[t];
    return total;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200;
    int stride = argc > 2 && !strcmp(argv[2], "padded") ? LINE_LONGS : 1;
    if (n < 3 || omp_get_max_threads() > 2)
        return 2; /* a grid needs an interior; partial[] has room for 2 threads */
    double *grid = malloc(n * n * sizeof *grid);
    double *next = malloc(n * n * sizeof *next);
    if (!grid || !next)
        return 2;
    for (long k = 0; k < n * n; k++)
        grid[k] = next[k] = 1.0;
    jacobi(grid, next, n);
    double d = dot(grid, next, n * n); /* all ones: n^2 */
    long c = count_partial(n * n, stride);
    int ok = d == (double)(n * n) && c == n * n;
    free(grid);
    free(next);
    return ok ? 0 : 1;
}

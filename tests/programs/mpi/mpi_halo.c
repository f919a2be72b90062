/* mpi_halo.c — a 1-D halo exchange, an MPI program whose counts and
 * messages have closed forms (test_mpi.sh: MPI runs of augur collect).
 *
 * usage: mpi_halo N STEPS [crash-rank]
 * Only the steps are inside CALLGRIND_START/STOP_INSTRUMENTATION (collect
 * with --instr-at-start no): MPI_Init and MPI_Finalize, millions of
 * instructions under Valgrind, then run uninstrumented.
 * Each of the P ranks holds a block of N rows of N doubles with a halo
 * row above and below (weak scaling: the grid is N*P rows).  Each step:
 *   exchange: rank r > 0 swaps its first row with rank r - 1, and rank
 *             r < P - 1 its last row with rank r + 1, each by one
 *             MPI_Sendrecv: 8N bytes sent and 8N received per neighbour
 *   relax:    every interior cell (N - 2 columns of N rows) becomes the
 *             mean of its four neighbours in the other array: its
 *             statement (the two lines from the one marked `cell`) reads
 *             4N(N-2) + 1 times (the four neighbours, and the constant
 *             0.25 once per call) and writes N(N-2) times per step
 *   residual: one MPI_Allreduce of one double: 8 bytes out and in
 * With a third argument, that rank dies of SIGSEGV after the steps, before
 * MPI_Finalize (the others are then killed by mpirun). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <valgrind/callgrind.h>

__attribute__((noinline)) static void exchange(double *g, int n, int rank, int size)
{
    if (rank > 0)
        MPI_Sendrecv(g + n, n, MPI_DOUBLE, rank - 1, 0, g, n, MPI_DOUBLE, rank - 1, 0, MPI_COMM_WORLD, /* up */
                     MPI_STATUS_IGNORE);
    if (rank < size - 1) /* down: */
        MPI_Sendrecv(g + (size_t)n * n, n, MPI_DOUBLE, rank + 1, 0, g + (size_t)(n + 1) * n, n, MPI_DOUBLE, rank + 1,
                     0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

__attribute__((noinline)) static void relax(const double *restrict g, double *restrict h, int n)
{
    for (int i = 1; i <= n; i++)
        for (int j = 1; j < n - 1; j++)
            h[(size_t)i * n + j] = 0.25 * (g[(size_t)(i - 1) * n + j] + g[(size_t)(i + 1) * n + j] + /* cell */
                                           g[(size_t)i * n + j - 1] + g[(size_t)i * n + j + 1]);
}

__attribute__((noinline)) static double residual(const double *g, int n)
{
    double local = g[(size_t)n * n / 2], sum = 0;
    MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* residual */
    return sum;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 2 ? atoi(argv[1]) : 0, steps = argc > 2 ? atoi(argv[2]) : 0;
    int crash = argc > 3 ? atoi(argv[3]) : -1;
    if (n < 3 || steps < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: mpi_halo N STEPS [crash-rank] (N >= 3, STEPS >= 1)\n");
        MPI_Finalize();
        return 2;
    }
    double *g = calloc((size_t)(n + 2) * n, sizeof *g), *h = calloc((size_t)(n + 2) * n, sizeof *h);
    if (!g || !h)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int j = 0; j < n; j++)
        g[(size_t)n + j] = rank + 1;
    double r = 0;
    CALLGRIND_START_INSTRUMENTATION;
    for (int s = 0; s < steps; s++) {
        exchange(g, n, rank, size);
        relax(g, h, n);
        double *t = g;
        g = h;
        h = t;
        r = residual(g, n);
    }
    CALLGRIND_STOP_INSTRUMENTATION;
    if (rank == crash)
        raise(SIGSEGV);
    if (rank == 0)
        printf("residual %g\n", r);
    free(g);
    free(h);
    MPI_Finalize();
    return 0;
}

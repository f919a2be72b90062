/* stencil_spmv.c — y = A x with A the 27-point operator of an NX x NY x NZ
 * grid in CSR form (HPCCG's HPC_sparsemv), for the cache model of an
 * indirect access that still sweeps lines (tests/integration/
 * test_indirect_sweep.sh): x[col[j]] depends on loaded data, yet two of
 * three of its deltas are 8 bytes (the row's three neighbours along x),
 * and the lines of x a row reads come back NX rows later, a distance of
 * about 5.8 NX lines (the rows' values, indices and x between).
 *
 * usage: stencil_spmv NX NY NZ REPS      prints the sum of y */
#include <stdio.h>
#include <stdlib.h>

/* The matrix in CSR form: row i's entries are [ptr[i], ptr[i + 1]). */
typedef struct csr {
    long nrow, *ptr;
    int *col;
    double *val;
} csr;

static void *alloc_or_die(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p) {
        fprintf(stderr, "stencil_spmv: out of memory\n");
        exit(1);
    }
    return p;
}

/* The 27-point operator (27 on the diagonal, -1 beside it) of an
 * nx x ny x nz grid, x fastest, into a. */
__attribute__((noinline)) static void make_matrix(long nx, long ny, long nz, csr *a)
{
    a->nrow = nx * ny * nz;
    a->ptr = alloc_or_die(a->nrow + 1, sizeof *a->ptr);
    a->col = alloc_or_die(27 * a->nrow, sizeof *a->col);
    a->val = alloc_or_die(27 * a->nrow, sizeof *a->val);
    long nnz = 0;
    for (long row = 0; row < a->nrow; row++) {
        long ix = row % nx, iy = row / nx % ny, iz = row / (nx * ny);
        a->ptr[row] = nnz;
        for (long c = 0; c < 27; c++) {
            long cx = ix + c % 3 - 1, cy = iy + c / 3 % 3 - 1, cz = iz + c / 9 - 1;
            if (cx < 0 || cx >= nx || cy < 0 || cy >= ny || cz < 0 || cz >= nz)
                continue;
            long at = (cz * ny + cy) * nx + cx;
            a->col[nnz] = (int)at;
            a->val[nnz++] = at == row ? 27.0 : -1.0;
        }
    }
    a->ptr[a->nrow] = nnz;
}

/* y = A x. */
__attribute__((noinline)) static void spmv(const csr *a, const double *x, double *y)
{
    for (long i = 0; i < a->nrow; i++) {
        double sum = 0.0;
        for (long j = a->ptr[i]; j < a->ptr[i + 1]; j++)
            sum += a->val[j] * x[a->col[j]]; /* LOAD:spmv */
        y[i] = sum;
    }
}

int main(int argc, char **argv)
{
    if (argc != 5)
        return 2;
    long nx = atol(argv[1]), ny = atol(argv[2]), nz = atol(argv[3]), reps = atol(argv[4]);
    if (nx < 1 || ny < 1 || nz < 1 || reps < 1)
        return 2;
    csr a;
    make_matrix(nx, ny, nz, &a);
    double *x = alloc_or_die(a.nrow, sizeof *x), *y = alloc_or_die(a.nrow, sizeof *y);
    for (long i = 0; i < a.nrow; i++)
        x[i] = 1.0 + (double)(i % 7);
    for (long r = 0; r < reps; r++)
        spmv(&a, x, y);
    double s = 0;
    for (long i = 0; i < a.nrow; i++)
        s += y[i];
    printf("%.6g\n", s);
    free(a.ptr), free(a.col), free(a.val), free(x), free(y);
    return 0;
}

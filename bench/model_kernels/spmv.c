/* spmv.c — sparse matrix-vector product y = A x in CSR, N x N, 5 to 9 nonzeros
 * per row at columns from a fixed LCG (uniform over all N columns, so x[col[j]]
 * is an indirect, cache-unfriendly access), 10 repetitions (x <- y scaled
 * between them).  Work ~ 10 * 7 N multiply-adds; working set ~ N * (7 * 12 + 24)
 * bytes.
 * usage: spmv N          prints a checksum of the final vector */
#include <stdio.h>
#include <stdlib.h>

#define REPS 10

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s N\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]);
    if (n < 1) {
        fprintf(stderr, "spmv: N must be >= 1\n");
        return 2;
    }
    long *rowptr = malloc((n + 1) * sizeof *rowptr);
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    if (!rowptr || !x || !y) {
        fprintf(stderr, "spmv: out of memory\n");
        return 1;
    }
    unsigned long long s = 987654321;
#define LCG() (s = s * 6364136223846793005ULL + 1442695040888963407ULL, s >> 33)
    rowptr[0] = 0;
    for (long i = 0; i < n; i++)
        rowptr[i + 1] = rowptr[i] + 5 + (long)(LCG() % 5);
    long nnz = rowptr[n];
    int *col = malloc(nnz * sizeof *col);
    double *val = malloc(nnz * sizeof *val);
    if (!col || !val) {
        fprintf(stderr, "spmv: out of memory\n");
        return 1;
    }
    for (long i = 0; i < n; i++)
        for (long j = rowptr[i]; j < rowptr[i + 1]; j++) {
            col[j] = (int)(LCG() % (unsigned long long)n);
            val[j] = (double)(LCG() % 1000) / 1000.0 - 0.3;
        }
    for (long i = 0; i < n; i++)
        x[i] = 1.0 + (double)(i % 10) / 10.0;
    for (int r = 0; r < REPS; r++) {
        for (long i = 0; i < n; i++) {
            double t = 0.0;
            for (long j = rowptr[i]; j < rowptr[i + 1]; j++)
                t += val[j] * x[col[j]];
            y[i] = t;
        }
        for (long i = 0; i < n; i++)
            x[i] = 0.5 * y[i] + 1.0;
    }
    double sum = 0.0;
    for (long i = 0; i < n; i++)
        sum += x[i] * (double)(i % 7 + 1);
    printf("spmv %ld %.6e\n", n, sum);
    free(rowptr);
    free(x);
    free(y);
    free(col);
    free(val);
    return 0;
}

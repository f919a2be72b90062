/* hpccg.c — the conjugate-gradient mini-app HPCCG (M. A. Heroux, Mantevo
 * project, Sandia, 2007; serial form): generate_matrix builds the 27-point
 * operator of a 3-D chimney of nx x ny x nz points (27 on the diagonal, -1 for
 * each neighbour present) in compressed sparse rows, with b = A * ones and
 * x0 = 0; then unpreconditioned CG (Saad, Iterative Methods for Sparse Linear
 * Systems, 2nd ed., Alg. 6.18) from HPCCG's kernels HPC_sparsemv, ddot and
 * waxpby, for a fixed MAX_ITER iterations.  Here nx = ny = nz = N.
 * Work ~ MAX_ITER * (27 + 10) N^3 flops; data ~ 12 * 27 N^3 bytes.
 * usage: hpccg N         prints "hpccg N final-residual x-checksum" */
#include <math.h>

#define KERNEL_NAME "hpccg"
#include "kernel.h"

#define MAX_ITER 10

struct csr {
    long nrow;
    long *ptr;      /* row i's entries are [ptr[i], ptr[i+1]) */
    int *col;
    double *val;
};

/* generate_matrix: the 27-point operator on an n^3 grid into a, b = A ones,
 * x = 0. */
__attribute__((noinline)) static void generate_matrix(long n, struct csr *a, double **b, double **x)
{
    long nrow = n * n * n;
    a->nrow = nrow;
    a->ptr = alloc(nrow + 1, sizeof *a->ptr);
    a->col = alloc(27 * nrow, sizeof *a->col);
    a->val = alloc(27 * nrow, sizeof *a->val);
    *b = alloc(nrow, sizeof **b);
    *x = alloc(nrow, sizeof **x);
    long nnz = 0;
    for (long iz = 0; iz < n; iz++)
        for (long iy = 0; iy < n; iy++)
            for (long ix = 0; ix < n; ix++) {
                long row = (iz * n + iy) * n + ix;
                a->ptr[row] = nnz;
                long here = 0;
                for (long sz = -1; sz <= 1; sz++)
                    for (long sy = -1; sy <= 1; sy++)
                        for (long sx = -1; sx <= 1; sx++) {
                            long cz = iz + sz, cy = iy + sy, cx = ix + sx;
                            if (cz < 0 || cz >= n || cy < 0 || cy >= n || cx < 0 || cx >= n)
                                continue;
                            long c = (cz * n + cy) * n + cx;
                            a->col[nnz] = (int)c;
                            a->val[nnz] = c == row ? 27.0 : -1.0;
                            nnz++;
                            here++;
                        }
                (*b)[row] = 27.0 - (double)(here - 1);
                (*x)[row] = 0.0;
            }
    a->ptr[nrow] = nnz;
}

/* HPC_sparsemv: y = A x. */
__attribute__((noinline)) static void HPC_sparsemv(const struct csr *a, const double *x, double *y)
{
    for (long i = 0; i < a->nrow; i++) {
        double sum = 0.0;
        for (long j = a->ptr[i]; j < a->ptr[i + 1]; j++)
            sum += a->val[j] * x[a->col[j]];
        y[i] = sum;
    }
}

/* ddot: the dot product of x and y (length n). */
__attribute__((noinline)) static double ddot(long n, const double *x, const double *y)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* waxpby: w = alpha x + beta y (length n). */
__attribute__((noinline)) static void waxpby(long n, double alpha, const double *x, double beta, const double *y,
                                             double *w)
{
    for (long i = 0; i < n; i++)
        w[i] = alpha * x[i] + beta * y[i];
}

/* hpccg: MAX_ITER iterations of CG on a x = b from x; returns ||r||. */
__attribute__((noinline)) static double hpccg(const struct csr *a, const double *b, double *x, double *r,
                                              double *p, double *ap)
{
    long n = a->nrow;
    HPC_sparsemv(a, x, ap);
    waxpby(n, 1.0, b, -1.0, ap, r);
    waxpby(n, 1.0, r, 0.0, r, p);
    double rtrans = ddot(n, r, r);
    for (int k = 0; k < MAX_ITER && rtrans > 0.0; k++) {
        HPC_sparsemv(a, p, ap);
        double alpha = rtrans / ddot(n, p, ap);
        waxpby(n, 1.0, x, alpha, p, x);
        waxpby(n, 1.0, r, -alpha, ap, r);
        double old = rtrans;
        rtrans = ddot(n, r, r);
        waxpby(n, 1.0, r, rtrans / old, p, p);
    }
    return sqrt(rtrans);
}

int main(int argc, char **argv)
{
    long n = size_arg(argc, argv, 1, 1000);
    struct csr a;
    double *b, *x;
    generate_matrix(n, &a, &b, &x);
    double *r = alloc(a.nrow, sizeof *r), *p = alloc(a.nrow, sizeof *p), *ap = alloc(a.nrow, sizeof *ap);
    double res = hpccg(&a, b, x, r, p, ap);
    double sum = 0.0;
    for (long i = 0; i < a.nrow; i++)
        sum += x[i];
    printf("hpccg %ld %.6e %.6e\n", n, res, sum / (double)a.nrow);
    free(a.ptr);
    free(a.col);
    free(a.val);
    free(b);
    free(x);
    free(r);
    free(p);
    free(ap);
    return 0;
}

/* matmul.c — dense C = A * B on N x N doubles, ikj loop order (unit stride in the
 * inner loop).  Work ~ 2 N^3 flops; working set 3 N^2 * 8 bytes.
 * usage: matmul N        prints a checksum of C */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s N\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]);
    if (n < 1) {
        fprintf(stderr, "matmul: N must be >= 1\n");
        return 2;
    }
    double *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b), *c = malloc(n * n * sizeof *c);
    if (!a || !b || !c) {
        fprintf(stderr, "matmul: out of memory\n");
        return 1;
    }
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            a[i * n + j] = (double)((i * 7 + j * 3) % 17) / 17.0;
            b[i * n + j] = (double)((i * 5 + j * 11) % 13) / 13.0;
            c[i * n + j] = 0.0;
        }
    for (long i = 0; i < n; i++)
        for (long k = 0; k < n; k++) {
            double aik = a[i * n + k];
            for (long j = 0; j < n; j++)
                c[i * n + j] += aik * b[k * n + j];
        }
    double sum = 0.0;
    for (long i = 0; i < n * n; i++)
        sum += c[i] * (double)(i % 7 + 1);
    printf("matmul %ld %.6e\n", n, sum);
    free(a);
    free(b);
    free(c);
    return 0;
}

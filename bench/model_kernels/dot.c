/* dot.c — N passes of a dot product of two vectors of 2048 doubles (32 KiB
 * together: L1-resident).  Without -ffast-math the sum is one chain of
 * dependent adds, so the loop is bound by the add's latency (a core-bound,
 * recurrence-bound loop).  Work ~ 2 * 2048 N flops.
 * usage: dot N           prints the last pass's sum */
#include <stdio.h>
#include <stdlib.h>

#define LEN 2048

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s N\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]);
    if (n < 1) {
        fprintf(stderr, "dot: N must be >= 1\n");
        return 2;
    }
    double *x = malloc(LEN * sizeof *x), *y = malloc(LEN * sizeof *y);
    if (!x || !y) {
        fprintf(stderr, "dot: out of memory\n");
        return 1;
    }
    for (long i = 0; i < LEN; i++) {
        x[i] = (double)(i % 9) / 9.0;
        y[i] = (double)(i % 4) - 1.5;
    }
    double total = 0.0;
    for (long r = 0; r < n; r++) {
        double s = 0.0;
        for (long i = 0; i < LEN; i++)
            s += x[i] * y[i];
        total += s;
        x[r % LEN] += 1e-9; /* each pass is a new product: not hoisted */
    }
    printf("dot %ld %.9e\n", n, total);
    free(x);
    free(y);
    return 0;
}

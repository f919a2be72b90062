/* mispredict.c — a data-dependent branch whose condition comes at the end
 * of a short or a long chain, for the cost of a misprediction (issue 21
 * item 3; tests/integration/test_mispredict_cost.sh, docs/accuracy.md).
 *
 * Every iteration computes x = (1.5 q[i] + 0.25) / s[i] with s[i] = 1, so
 * x > 1 exactly when q[i] > 0.5, and adds x to one of two sums by a
 * branch on
 *   load    q[i] > 0.5: the loaded value (the load, then the compare);
 *   divide  x > 1: the end of the chain load, multiply, add, divide;
 * the same work and the same directions either way.  q[i] is
 *   random  uniform in [0, 1) from a fixed LCG: taken half the time in no
 *           pattern a predictor can learn;
 *   taken   0.75 everywhere: always the same way, never mispredicted;
 * so the time between the two patterns over the N * REPS / 2 minority
 * directions is the cost of one misprediction.
 *
 * Usage: mispredict N REPS random|taken load|divide.  Prints how many
 * iterations went above (the branch's one side), then the two sums. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sums of the x above 1 and of those at most 1. */
typedef struct sums {
    double hi, lo;
    long above;
} sums;

/* Over q[0..n) and s[0..n) reps times, by the loaded q[i]. */
__attribute__((noinline)) static sums by_load(const double *q, const double *s, long n, long reps)
{
    sums r = {0, 0, 0};
    for (long k = 0; k < reps; k++)
        for (long i = 0; i < n; i++) { /* LOOP:load */
            double x = (1.5 * q[i] + 0.25) / s[i];
            if (q[i] > 0.5)
                r.hi += x, r.above++;
            else
                r.lo += x;
        }
    return r;
}

/* As by_load, by x at the end of its divide. */
__attribute__((noinline)) static sums by_divide(const double *q, const double *s, long n, long reps)
{
    sums r = {0, 0, 0};
    for (long k = 0; k < reps; k++)
        for (long i = 0; i < n; i++) { /* LOOP:divide */
            double x = (1.5 * q[i] + 0.25) / s[i];
            if (x > 1)
                r.hi += x, r.above++;
            else
                r.lo += x;
        }
    return r;
}

int main(int argc, char **argv)
{
    long n = argc == 5 ? atol(argv[1]) : 0, reps = argc == 5 ? atol(argv[2]) : 0;
    int random = argc == 5 && !strcmp(argv[3], "random"), taken = argc == 5 && !strcmp(argv[3], "taken");
    int load = argc == 5 && !strcmp(argv[4], "load"), divide = argc == 5 && !strcmp(argv[4], "divide");
    if (n < 1 || reps < 1 || !(random || taken) || !(load || divide)) {
        fprintf(stderr, "usage: mispredict N REPS random|taken load|divide (N, REPS >= 1)\n");
        return 2;
    }
    double *q = malloc(2 * n * sizeof *q), *s = q + n;
    if (!q) {
        fprintf(stderr, "mispredict: out of memory\n");
        return 1;
    }
    unsigned long state = 12345;
    for (long i = 0; i < n; i++) {
        state = state * 6364136223846793005ul + 1442695040888963407ul;
        q[i] = random ? (double)(state >> 11) / 9007199254740992.0 : 0.75; /* 53 bits / 2^53 */
        s[i] = 1.0;
    }
    sums r = load ? by_load(q, s, n, reps) : by_divide(q, s, n, reps);
    printf("above %ld\nhi %.6g lo %.6g\n", r.above, r.hi, r.lo);
    free(q);
    return 0;
}

/* fft_radix2.c — a radix-2 FFT of n complex doubles in Numerical Recipes'
 * four1 form (bit reversal, then the Danielson-Lanczos butterflies): at the
 * stage of half-distance h the butterflies of one twiddle walk at 32 h
 * bytes, a power of two that changes every stage, so no stride is the
 * majority of a load's deltas, and from h = 128 on a twiddle's pairs share
 * one set of a 64-set L1 (tests/integration/test_pow2_strides.sh).
 *
 * usage: fft_radix2 N      (N a power of two) prints "fft_radix2 N CHECKSUM"
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* In place, data[2k] and data[2k + 1] the real and imaginary parts of
 * point k of n. */
__attribute__((noinline)) static void four1(double *data, long n)
{
    for (long i = 0, j = 0; i < n; i++) {
        if (j > i) {
            double tr = data[2 * j], ti = data[2 * j + 1];
            data[2 * j] = data[2 * i], data[2 * j + 1] = data[2 * i + 1];
            data[2 * i] = tr, data[2 * i + 1] = ti;
        }
        long m = n >> 1;
        while (m >= 1 && j >= m)
            j -= m, m >>= 1;
        j += m;
    }
    for (long h = 1; h < n; h *= 2) {
        double theta = -M_PI / (double)h, wpr = -2 * sin(0.5 * theta) * sin(0.5 * theta), wpi = sin(theta);
        double wr = 1, wi = 0;
        for (long m = 0; m < h; m++) {
            for (long i = m; i < n; i += 2 * h) {
                long j = i + h;
                double tr = wr * data[2 * j] - wi * data[2 * j + 1]; /* LOAD:four1 */
                double ti = wr * data[2 * j + 1] + wi * data[2 * j];
                data[2 * j] = data[2 * i] - tr, data[2 * j + 1] = data[2 * i + 1] - ti;
                data[2 * i] += tr, data[2 * i + 1] += ti;
            }
            double t = wr;
            wr += wr * wpr - wi * wpi;
            wi += wi * wpr + t * wpi;
        }
    }
}

int main(int argc, char **argv)
{
    long n = argc == 2 ? atol(argv[1]) : 0;
    if (n < 2 || n > (1L << 24) || (n & (n - 1))) {
        fprintf(stderr, "usage: fft_radix2 N (a power of two from 2 to 2^24)\n");
        return 2;
    }
    double *data = malloc((size_t)(2 * n) * sizeof *data);
    if (!data)
        return 1;
    for (long k = 0; k < 2 * n; k++)
        data[k] = (double)(k % 7) - 3;
    four1(data, n);
    double s = 0;
    for (long k = 0; k < 2 * n; k++)
        s += fabs(data[k]);
    printf("fft_radix2 %ld %.6e\n", n, s);
    free(data);
    return 0;
}

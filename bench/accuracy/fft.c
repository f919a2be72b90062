/* fft.c — the iterative radix-2 Cooley-Tukey FFT of Numerical Recipes
 * (Press, Teukolsky, Vetterling & Flannery, Numerical Recipes in C, 2nd ed.,
 * §12.2, four1): a bit-reversal permutation, then the Danielson-Lanczos
 * butterflies with the twiddle factors from a trigonometric recurrence, in
 * place on N complex values stored as 2N interleaved doubles (0-based here).
 * A forward and an inverse transform of a fixed signal, and the largest error
 * of the round trip.  N must be a power of two.  Work ~ 2 * 5 N log2 N flops;
 * data 16 N bytes.
 * usage: fft N           prints "fft N max-round-trip-error" */
#include <math.h>

#define KERNEL_NAME "fft"
#include "kernel.h"

/* four1: data (n complex values, interleaved) replaced by its discrete Fourier
 * transform (isign = 1) or n times its inverse (isign = -1). */
__attribute__((noinline)) static void four1(double *data, unsigned long n, int isign)
{
    unsigned long nn = n << 1, j = 0;
    for (unsigned long i = 0; i < nn; i += 2) {     /* bit reversal */
        if (j > i) {
            double t = data[j];
            data[j] = data[i];
            data[i] = t;
            t = data[j + 1];
            data[j + 1] = data[i + 1];
            data[i + 1] = t;
        }
        unsigned long m = n;
        while (m >= 2 && j >= m) {
            j -= m;
            m >>= 1;
        }
        j += m;
    }
    for (unsigned long mmax = 2; nn > mmax;) {      /* Danielson-Lanczos */
        unsigned long istep = mmax << 1;
        double theta = isign * (6.28318530717959 / (double)mmax);
        double wtemp = sin(0.5 * theta), wpr = -2.0 * wtemp * wtemp, wpi = sin(theta);
        double wr = 1.0, wi = 0.0;
        for (unsigned long m = 0; m < mmax; m += 2) {
            for (unsigned long i = m; i < nn; i += istep) {
                unsigned long k = i + mmax;
                double tr = wr * data[k] - wi * data[k + 1];
                double ti = wr * data[k + 1] + wi * data[k];
                data[k] = data[i] - tr;
                data[k + 1] = data[i + 1] - ti;
                data[i] += tr;
                data[i + 1] += ti;
            }
            wtemp = wr;
            wr = wtemp * wpr - wi * wpi + wr;
            wi = wi * wpr + wtemp * wpi + wi;
        }
        mmax = istep;
    }
}

/* make_signal: the test input, two tones and a ramp, into data and copy. */
__attribute__((noinline)) static void make_signal(double *data, double *copy, unsigned long n)
{
    for (unsigned long i = 0; i < n; i++) {
        double t = (double)i / (double)n;
        data[2 * i] = copy[2 * i] = sin(6.28318530717959 * 3.0 * t) + 0.5 * t;
        data[2 * i + 1] = copy[2 * i + 1] = cos(6.28318530717959 * 17.0 * t);
    }
}

/* max_error: the largest |data/n - copy| over the 2n doubles. */
__attribute__((noinline)) static double max_error(const double *data, const double *copy, unsigned long n)
{
    double e = 0.0;
    for (unsigned long i = 0; i < 2 * n; i++) {
        double d = fabs(data[i] / (double)n - copy[i]);
        if (d > e)
            e = d;
    }
    return e;
}

int main(int argc, char **argv)
{
    long n = size_arg(argc, argv, 2, 1L << 40);
    if ((n & (n - 1)) != 0) {
        fprintf(stderr, "fft: N must be a power of two, not %ld\n", n);
        return 2;
    }
    double *data = alloc(2 * n, sizeof *data), *copy = alloc(2 * n, sizeof *copy);
    make_signal(data, copy, (unsigned long)n);
    four1(data, (unsigned long)n, 1);
    four1(data, (unsigned long)n, -1);
    printf("fft %ld %.3e\n", n, max_error(data, copy, (unsigned long)n));
    free(data);
    free(copy);
    return 0;
}

/* sized.c — kernels whose problem size N is compiled in, one build per
 * size (cc -DN=24), as many benchmark suites fix their sizes: a matrix
 * product (N^3 multiply-adds), a forward substitution (N(N-1)/2) and the
 * set-up loops of main.  tests/integration/test_builds.sh models the
 * builds together by source location and predicts a build never trained
 * on.  Nothing is printed: the result goes to a volatile sink, so that the
 * runs hold little libc code besides start-up. */
#ifndef N
#error "build with -DN=SIZE"
#endif

static double a[N][N], b[N][N], c[N][N], v[N];
volatile double sink;

/* c = a * b */
__attribute__((noinline)) static void multiply(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < N; k++) /* LOOP:multiply_k */
                s += a[i][k] * b[k][j];
            c[i][j] = s;
        }
}

/* v = L^-1 v, L the lower triangle of a */
__attribute__((noinline)) static void lower(void)
{
    for (int i = 0; i < N; i++) {
        double s = v[i];
        for (int j = 0; j < i; j++) /* LOOP:lower_j */
            s -= a[i][j] * v[j];
        v[i] = s / a[i][i];
    }
}

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            a[i][j] = i == j ? N : 1.0 / (1 + i + j);
            b[i][j] = i - j;
        }
    for (int i = 0; i < N; i++) /* LOOP:main_v (straight code when N <= 8) */
        v[i] = 1;
    multiply();
    lower();
    sink = c[N - 1][N - 1] + v[N - 1];
    return 0;
}

/* annotations.c — what `augur static` cannot count alone, and the
 * annotations that settle it (tests/integration/test_static.sh): it is
 * analysed, not run.  Lines are found by their TAG comments. */

void unknown_bound(int n, const int *len, double *x)
{
    for (int i = 0; i < len[0]; i++) /* TAG:unknown_bound */
        x[i] += 1.0;
}

void early_exit(int n, double *x)
{
    for (int i = 0; i < n; i++) { /* TAG:early_exit */
        if (x[i] < 0)
            break;
        x[i] *= 2.0;
    }
}

void malformed(int n, double *x)
{
#pragma augur loop iterations n
    for (int i = 0; i < n; i++) /* TAG:malformed_loop */
        x[i] = 0;
#pragma augur frobnicate(3)
    for (int i = 0; i < n; i++)
        x[i] = 1;
#pragma @Annotation {foo:1}
    for (int i = 0; i < n; i++)
        x[i] = 2;
}

void skipped(int n, double *x)
{
#pragma augur skip
    for (int i = 0; i < n; i++) /* TAG:skipped */
        x[i] = x[i] * x[i];
#pragma @Annotation {skip:yes}
    for (int i = 0; i < n; i++) /* TAG:skipped_seed */
        x[i] = x[i] + x[i];
    for (int i = 0; i < n; i++) /* TAG:kept */
        x[i] = x[i] - 1.0;
}

void param_defined(int n, const int *lens, double *x)
{
    int len = lens[0];
#pragma augur param len(2 * n)
    for (int i = 0; i < len; i++) /* TAG:param_loop */
        x[i] = x[i] / 3.0;
}

void ratios(int n, double *x)
{
    for (int i = 0; i < n; i++) {
#pragma augur branch ratio(0.25)
        if (x[i] > 0) /* TAG:ratio_given */
            x[i] = x[i] * 0.5;
        if (x[i] > 1) /* TAG:ratio_unknown */
            x[i] = x[i] - 1.0;
    }
}

void while_loop(int n, double *x)
{
    int k = n;
#pragma augur loop iterations(n)
    while (k > 0) { /* TAG:while_given */
        x[k] = x[k] + 1.0;
        k--;
    }
}

void seed_listing6(int n, const int *a, double *x)
{
    for (int i = 1; i <= 4; i++) /* TAG:listing6_i */
        for (int j = a[i]; j <= a[i + 6]; j++) { /* TAG:listing6_j */
#pragma @Annotation {lp_init:x, lp_cond:y}
            x[j] = x[j] + 1.0;
        }
}

static int clamp(int a, int b)
{
    return a < b ? a : b;
}

void tile_bound(int n, double *x)
{
    for (int ii = 0; ii < n; ii += 4) {
        int hi = clamp(ii + 4, n); /* a value per iteration, from a call */
        for (int i = ii; i < hi; i++) /* TAG:local_in_nest */
            x[i] += 1.0;
    }
}

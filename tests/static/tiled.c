/* tiled.c — three tiled loops of step 16, whose count PolyLib's 64-bit
 * integers cannot compute: `augur static` says so instead of aborting
 * (tests/integration/test_static.sh). */
void tiled(long n, double *c)
{
    for (long ii = 0; ii < n; ii += 16)
        for (long kk = 0; kk < n; kk += 16)
            for (long jj = 0; jj < n; jj += 16)
                c[ii + kk + jj] += 1.0;
}

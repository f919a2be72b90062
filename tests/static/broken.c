/* broken.c — a source that does not parse, for `augur static`'s error
 * (tests/integration/test_static.sh): the loop's condition is missing a
 * closing parenthesis. */
void broken(int n, double *x)
{
    for (int i = 0; i < (n; i++)
        x[i] = 0;
}

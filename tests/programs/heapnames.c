/* heapnames.c — heap blocks kept in each kind of place DWARF can name, for
 * memspy's names of heap objects (tests/integration/test_memspy.sh):
 *   local  a local pointer (in a register at -O1, a stack slot at -O0)
 *   gptr   a global pointer
 *   buf    locals of the same name in two functions: both keep their
 *          site too, "buf (fill_a:LINE)" and "buf (fill_b:LINE)"
 *   rows   an array of pointers: rows[i] is stored through a pointer, so
 *          its blocks keep the site name "main:LINE"
 * usage: heapnames N */
#include <stdlib.h>

double *gptr;

static __attribute__((noinline)) double fill_a(size_t n)
{
    double *buf = malloc(n * sizeof *buf); /* ALLOC:buf_a */
    double s = 0;
    for (size_t i = 0; i < n; i++)
        buf[i] = (double)i;
    for (size_t i = 0; i < n; i++)
        s += buf[i];
    free(buf);
    return s;
}

static __attribute__((noinline)) double fill_b(size_t n)
{
    double *buf = calloc(n, sizeof *buf); /* ALLOC:buf_b */
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += buf[i] + 1.0;
    free(buf);
    return s;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
    double *local = malloc(n * sizeof *local); /* ALLOC:local */
    gptr = malloc(n * sizeof *gptr);          /* ALLOC:gptr */
    double **rows = malloc(4 * sizeof *rows);  /* ALLOC:rows */
    for (int r = 0; r < 4; r++)
        rows[r] = malloc(n * sizeof **rows); /* ALLOC:each_row */
    for (size_t i = 0; i < n; i++) {
        local[i] = (double)i;
        gptr[i] = local[i] * 2;
        for (int r = 0; r < 4; r++)
            rows[r][i] = gptr[i] + r;
    }
    double s = fill_a(n) + fill_b(n) + local[n / 2] + gptr[n / 3] + rows[3][n / 4];
    for (int r = 0; r < 4; r++)
        free(rows[r]);
    free(rows);
    free(gptr);
    free(local);
    return s < 0;
}

/* pagefill.c — the fill of a 27-point operator's compressed rows, as
 * HPCCG's generate_matrix does it, in two arrays of its own pages, for the
 * first touches of pages in closed form (tests/integration/test_page_faults.sh).
 *
 * usage: pagefill N
 *   fills M = (3N - 2)^3 entries of val (doubles) and col (ints), each
 *   array mapped alone (page-aligned, touched by nothing else), so the run
 *   first touches ceil(8 M / 4096) + ceil(4 M / 4096) pages of them, where
 *   an array is a few pages at small N and its page count a small integer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static void *map(void *at, size_t bytes)
{
    void *p = mmap(at, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("pagefill: mmap");
        exit(1);
    }
    return p;
}

__attribute__((noinline)) static void fill(long m, double *val, int *col)
{
    for (long i = 0; i < m; i++) { /* LOOP:fill */
        col[i] = (int)(i % 27);
        val[i] = i % 27 == 13 ? 27.0 : -1.0;
    }
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    long n = atol(argv[1]), m = (3 * n - 2) * (3 * n - 2) * (3 * n - 2);
    double *val = map((void *)0x100000000000, (size_t)m * sizeof *val);
    int *col = map((void *)0x200000000000, (size_t)m * sizeof *col);
    fill(m, val, col);
    printf("pagefill %ld %ld %.1f\n", n, m, val[m / 2] + col[m - 1]);
    return 0;
}

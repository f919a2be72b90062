/* page_faults.c — what calibrate's page-fault probe sees, taken apart
 * (docs/accuracy.md, "Page walks and page faults on the Intel host"): one
 * fresh anonymous mapping of 15 x 64 4 KiB pages (huge pages advised
 * against), touched 64 pages at a time (each piece timed), then unmapped
 * (timed); per round the median piece and the unmapping, ns a page.
 * Build: cc -O2 -o page_faults bench/page_faults.c
 * usage: page_faults [ROUNDS]   (default 6) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define PAGES 64
#define PIECES 15

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 6;
    size_t bytes = (size_t)PAGES * PIECES * 4096;
    for (int r = 0; r < rounds; r++) {
        char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED || madvise(p, bytes, MADV_NOHUGEPAGE) != 0)
            return 1;
        double piece[PIECES];
        for (int k = 0; k < PIECES; k++) {
            double t0 = now();
            for (size_t off = 0; off < PAGES * 4096; off += 4096)
                ((volatile char *)p)[(size_t)k * PAGES * 4096 + off] = 1;
            piece[k] = (now() - t0) / PAGES;
        }
        double t0 = now();
        munmap(p, bytes);
        double unmap = (now() - t0) / (PAGES * PIECES);
        qsort(piece, PIECES, sizeof *piece, by_value);
        printf("first touch: median piece %.0f ns a page; unmapping %.0f ns a page\n", piece[PIECES / 2], unmap);
    }
    return 0;
}

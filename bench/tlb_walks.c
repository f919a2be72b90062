/* tlb_walks.c — what a TLB miss costs on this host, and how many page
 * walks proceed at once (docs/machines.md, "TLB misses on the Emerald
 * Rapids guest"): the measurements behind calibrate's TLB chases and the
 * page_walkers of the shipped descriptions.
 *
 *   spans:   per span S, a random cyclic chase through one line of each
 *            4 KiB page of S (huge pages advised against), against the
 *            same number of lines packed in whole pages ("packed": the
 *            lines' cache level without the TLB misses); ns a load, the
 *            least of 300 timed pieces of 1000 loads.
 *   walkers: k independent chases (k = 1, 2, 4, 8 in registers) through
 *            the line-a-page cycle over S: ns a load as k grows; walks in
 *            flight = (ns of one chase - ns of its packed base) / ns a load.
 *
 * Build: cc -O2 -o tlb_walks bench/tlb_walks.c
 * usage: tlb_walks spans | tlb_walks walkers MIB */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* A cycle through n lines, per_page of them in each 4 KiB page (turned 7
 * lines a page, as calibrate places them), on 4 KiB pages; its start. */
static void **cycle(size_t n, size_t per_page)
{
    size_t pages = (n + per_page - 1) / per_page, bytes = pages * 4096;
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED || madvise(p, bytes, MADV_NOHUGEPAGE) != 0)
        exit(1);
    memset(p, 1, bytes);
    uint32_t *next = malloc(n * sizeof *next);
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < n; i++)
        next[i] = (uint32_t)i;
    for (size_t i = n - 1; i > 0; i--) { /* Sattolo: one cycle */
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        size_t j = s * 2685821657736338717ull % i;
        uint32_t t = next[i];
        next[i] = next[j], next[j] = t;
    }
#define AT(i) (p + (i) / per_page * 4096 + ((i) % per_page + (i) / per_page * 7) % 64 * 64)
    for (size_t i = 0; i < n; i++)
        *(void **)AT(i) = AT((size_t)next[i]);
    free(next);
    return (void **)AT((size_t)0);
}

/* ns a load of k chases from c[0..k), the least of 300 pieces. */
static double chase_ns(void **c[8], int k)
{
    double best = 1e30;
    for (int r = 0; r < 300; r++) {
        void **a = c[0], **b = c[1], **d = c[2], **e = c[3], **f = c[4], **g = c[5], **h = c[6], **l = c[7];
        double t0 = now();
        for (int i = 0; i < 1000; i++) {
            a = *a;
            if (k > 1)
                b = *b;
            if (k > 2)
                d = *d, e = *e;
            if (k > 4)
                f = *f, g = *g, h = *h, l = *l;
        }
        double t = (now() - t0) / (1000.0 * k);
        best = t < best ? t : best;
        c[0] = a, c[1] = b, c[2] = d, c[3] = e, c[4] = f, c[5] = g, c[6] = h, c[7] = l;
    }
    return best;
}

/* k chases into c, spread over one cycle of n lines. */
static void starts(void **start, size_t n, void **c[8])
{
    for (int k = 0; k < 8; k++) {
        c[k] = start;
        for (size_t i = 0; i < n / 8; i++)
            start = *start;
    }
}

int main(int argc, char **argv)
{
    void **c[8];
    if (argc == 2 && !strcmp(argv[1], "spans")) {
        for (size_t kib = 256; kib <= (512u << 10); kib *= 2) {
            size_t n = kib / 4;
            starts(cycle(n, 1), n, c);
            double sparse = chase_ns(c, 1);
            starts(cycle(n, 64), n, c);
            double packed = chase_ns(c, 1);
            printf("span %7zu KiB, %6zu pages: line a page %6.1f ns, packed %6.1f ns, difference %6.1f ns\n", kib, n,
                   sparse, packed, sparse - packed);
        }
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "walkers")) {
        size_t n = (size_t)atoi(argv[2]) * 256;
        starts(cycle(n, 64), n, c);
        double packed = chase_ns(c, 1);
        starts(cycle(n, 1), n, c);
        double one = chase_ns(c, 1);
        for (int k = 1; k <= 8; k *= 2) {
            double ns = chase_ns(c, k);
            printf("%s MiB, %d chases: %.2f ns a load; walks in flight %.1f\n", argv[2], k, ns, (one - packed) / ns);
        }
        return 0;
    }
    fputs("usage: tlb_walks spans | tlb_walks walkers MIB\n", stderr);
    return 2;
}

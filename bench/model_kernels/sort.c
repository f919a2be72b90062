/* sort.c — top-down merge sort of N ints (from a fixed LCG) with an N-int
 * scratch buffer; any N works.  Work ~ N log2 N comparisons; working set
 * 2 N * 4 bytes.
 * usage: sort N          prints a checksum of the sorted array (and checks order) */
#include <stdio.h>
#include <stdlib.h>

static void merge_sort(int *a, int *tmp, long lo, long hi) /* sorts a[lo, hi) */
{
    if (hi - lo < 2)
        return;
    long mid = lo + (hi - lo) / 2;
    merge_sort(a, tmp, lo, mid);
    merge_sort(a, tmp, mid, hi);
    long i = lo, j = mid, k = lo;
    while (i < mid && j < hi)
        tmp[k++] = a[j] < a[i] ? a[j++] : a[i++];
    while (i < mid)
        tmp[k++] = a[i++];
    while (j < hi)
        tmp[k++] = a[j++];
    for (k = lo; k < hi; k++)
        a[k] = tmp[k];
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s N\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]);
    if (n < 1) {
        fprintf(stderr, "sort: N must be >= 1\n");
        return 2;
    }
    int *a = malloc(n * sizeof *a), *tmp = malloc(n * sizeof *tmp);
    if (!a || !tmp) {
        fprintf(stderr, "sort: out of memory\n");
        return 1;
    }
    unsigned long long s = 12345;
    for (long i = 0; i < n; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        a[i] = (int)(s >> 33);
    }
    merge_sort(a, tmp, 0, n);
    unsigned long long sum = 0;
    for (long i = 0; i < n; i++) {
        if (i > 0 && a[i - 1] > a[i]) {
            fprintf(stderr, "sort: not sorted at %ld\n", i);
            return 1;
        }
        sum = sum * 31 + (unsigned)a[i];
    }
    printf("sort %ld %llu\n", n, sum);
    free(a);
    free(tmp);
    return 0;
}

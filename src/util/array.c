/* array.c — growing arrays by doubling, and freeing arrays of strings
 * (see array.h). */
#include "util/array.h"

#include <stdlib.h>

void *array_grow(void *arr, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return arr;
    size_t ncap = *cap ? *cap * 2 : 8;
    void *a = realloc(arr, ncap * size);
    if (a)
        *cap = ncap;
    return a;
}

void array_free_strings(char **s, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        free(s[i]);
    free(s);
}

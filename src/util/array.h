/* array.h — growing arrays by doubling: the one rule the host stages use
 * for lists whose length is not known in advance. */
#ifndef AUGUR_ARRAY_H
#define AUGUR_ARRAY_H

#include <stddef.h>

/* Room for one more element in an array of `n` elements of `size` bytes
 * with capacity *cap.  Returns the array, moved and its capacity doubled
 * (8 at first) when it was full, or NULL when memory runs out; then `arr`
 * and *cap are unchanged and still valid.  Typical use:
 *     T *v = array_grow(a->v, a->n, &a->cap, sizeof *v);
 *     if (!v) return -1;
 *     a->v = v;
 *     a->v[a->n++] = x; */
void *array_grow(void *arr, size_t n, size_t *cap, size_t size);

/* Free the first n strings of s, then s itself; s may be NULL (then n is
 * ignored), and so may any of its strings. */
void array_free_strings(char **s, size_t n);

#endif

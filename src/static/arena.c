/* arena.c — the memory of one static analysis: blocks chained and freed at
 * once, so the analysis's many small immutable objects (affine forms,
 * pieces, formulas) need no ownership rules. */
#include "static/sa.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct block {
    struct block *next;
    size_t used, size;
    max_align_t data[];
} block;

struct sa_arena {
    block *head;
};

sa_arena *sa_arena_new(void)
{
    sa_arena *a = calloc(1, sizeof *a);
    if (!a)
        abort();
    return a;
}

void sa_arena_free(sa_arena *a)
{
    if (!a)
        return;
    for (block *b = a->head, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(a);
}

void *sa_alloc(sa_arena *a, size_t size)
{
    size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (size == 0)
        size = sizeof(max_align_t);
    block *b = a->head;
    if (!b || b->size - b->used < size) {
        size_t bsize = size > 65536 ? size : 65536;
        b = malloc(sizeof *b + bsize);
        if (!b) {
            fprintf(stderr, "augur static: out of memory\n");
            abort();
        }
        b->used = 0;
        b->size = bsize;
        b->next = a->head;
        a->head = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

char *sa_strdup(sa_arena *a, const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(sa_alloc(a, n), s, n);
}

char *sa_printf(sa_arena *a, const char *fmt, ...)
{
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = sa_alloc(a, (size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, aq);
    va_end(aq);
    return s;
}

/* Arrays grow by copying into the arena at powers of two: the old copy is
 * left to the arena (arrays here are short). */
void *sa_push(sa_arena *a, void *v, size_t *n, size_t size, const void *elem)
{
    size_t cap = 1;
    while (cap < *n)
        cap *= 2;
    char *out = v;
    if (*n == 0 || *n == cap) {
        out = sa_alloc(a, (*n == 0 ? 1 : cap * 2) * size);
        if (*n)
            memcpy(out, v, *n * size);
    }
    memcpy(out + *n * size, elem, size);
    (*n)++;
    return out;
}

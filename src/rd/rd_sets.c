/* rd_sets.c — set-local LRU recency lists (rd_sets.h): making, freeing and
 * exporting them, the misses a set-local histogram gives, and the set-count
 * list of the options. */
#include "rd/rd_sets.h"

rd_sets *rd_sets_new(uint32_t sets, const rd_allocator *a)
{
    rd_sets *s = a->alloc(a->ctx, sizeof *s);
    s->mask = (uint64_t)sets - 1u;
    uint64_t n = (uint64_t)sets * RD_SET_WAYS;
    s->lines = a->alloc(a->ctx, n * sizeof *s->lines);
    for (uint64_t i = 0; i < n; i++)
        s->lines[i] = RD_NO_BLOCK;
    return s;
}

void rd_sets_free(rd_sets *s, const rd_allocator *a)
{
    if (!s)
        return;
    a->release(a->ctx, s->lines);
    a->release(a->ctx, s);
}

uint64_t rd_sets_entries(const rd_sets *s, uint64_t *out)
{
    uint64_t n = 0;
    for (uint64_t set = 0; set <= s->mask; set++) {
        const uint64_t *w = s->lines + set * RD_SET_WAYS;
        for (unsigned p = RD_SET_WAYS; p-- > 0;)
            if (w[p] != RD_NO_BLOCK)
                out[n++] = w[p];
    }
    return n;
}

double rd_sets_misses(uint64_t far, const rd_binrec *bins, size_t nbins, uint32_t ways)
{
    return rd_misses(far, bins, nbins, ways);
}

int rd_sets_parse(const char *text, uint32_t *out, unsigned *n)
{
    *n = 0;
    const char *p = text;
    uint64_t prev = 0;
    for (;;) {
        uint64_t v = 0;
        const char *start = p;
        while (*p >= '0' && *p <= '9' && v <= RD_MAX_SETS)
            v = v * 10u + (uint64_t)(*p++ - '0');
        if (p == start || v == 0 || v > RD_MAX_SETS || (v & (v - 1u)) || v <= prev || *n == RD_MAX_SET_COUNTS)
            return -1;
        out[(*n)++] = (uint32_t)v;
        prev = v;
        if (*p == 0)
            return 0;
        if (*p++ != ',')
            return -1;
    }
}

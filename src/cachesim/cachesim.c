/* cachesim.c — set-associative LRU cache levels and hierarchies (cachesim.h).
 *
 * Each set keeps the blocks it holds in MRU order, most recently used first,
 * in a small array of `ways` slots, as Valgrind's Cachegrind does: a lookup
 * is a linear search, a hit moves the block to the front, a miss shifts the
 * whole valid prefix down one slot (dropping the last, LRU, block if the set
 * is full) and puts the new block in front.  `used[s]` is the number of valid
 * slots of set s, so no tag value is reserved to mean "invalid" and every
 * 64-bit block number can be stored.  Freestanding: no libc.
 */
#include <stddef.h>
#include <stdint.h>

#include "cachesim/cachesim.h"
#include "rd/rd.h"

struct cs_level {
    const rd_allocator *a;
    uint32_t line, ways;
    unsigned line_shift; /* log2(line) */
    uint64_t sets;       /* power of two */
    uint64_t *blocks;    /* sets * ways slots; set s is blocks[s*ways ..] */
    uint32_t *used;      /* valid slots per set, 0..ways */
};

/* 1 if x is a non-zero power of two. */
static int is_pow2(uint64_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

/* log2 of a power of two x. */
static unsigned log2_pow2(uint64_t x)
{
    return 63u - (unsigned)__builtin_clzll(x);
}

/* NULL if the geometry is good (see cs_level_new), else why it is not. */
static const char *check_geometry(uint64_t size, uint32_t line, uint32_t ways)
{
    if (!is_pow2(line))
        return "cache line size must be a power of two";
    if (line < 8)
        return "cache line size must be at least 8 bytes";
    if (ways == 0)
        return "associativity must be at least 1";
    if (size == 0)
        return "cache size must not be zero";
    if (size % ((uint64_t)line * ways) != 0)
        return "cache size must be a multiple of line size times associativity";
    if (!is_pow2(size / ((uint64_t)line * ways)))
        return "number of sets (size / (line * ways)) must be a power of two";
    if (size / line > ((uint64_t)1 << 32) || size / line > SIZE_MAX / sizeof(uint64_t))
        return "cache has too many lines";
    return NULL;
}

const char *cs_level_check(uint64_t size, uint32_t line, uint32_t ways)
{
    return check_geometry(size, line, ways);
}

cs_level *cs_level_new(uint64_t size, uint32_t line, uint32_t ways, const rd_allocator *a,
                       const char **error)
{
    const char *why = check_geometry(size, line, ways);
    if (why) {
        if (error)
            *error = why;
        return NULL;
    }
    cs_level *c = a->alloc(a->ctx, sizeof *c);
    c->a = a;
    c->line = line;
    c->ways = ways;
    c->line_shift = log2_pow2(line);
    c->sets = size / ((uint64_t)line * ways);
    c->blocks = a->alloc(a->ctx, (size_t)(size / line) * sizeof *c->blocks);
    c->used = a->alloc(a->ctx, (size_t)c->sets * sizeof *c->used);
    for (uint64_t s = 0; s < c->sets; s++)
        c->used[s] = 0; /* alloc returns uninitialised memory */
    return c;
}

/* Shift v[0..n) up one slot to v[1..n+1) and store x in v[0]. */
static void push_front(uint64_t *v, uint32_t n, uint64_t x)
{
    for (uint32_t i = n; i > 0; i--)
        v[i] = v[i - 1];
    v[0] = x;
}

cs_touch cs_level_touch(cs_level *c, uint64_t block)
{
    uint64_t set = block & (c->sets - 1);
    uint64_t *v = c->blocks + set * c->ways;
    uint32_t n = c->used[set];
    cs_touch t = {c->ways, 0, 0};
    for (uint32_t i = 0; i < n; i++)
        if (v[i] == block) {
            push_front(v, i, block); /* v[i] is overwritten: moved to front */
            t.pos = i;
            return t;
        }
    if (n < c->ways) {
        c->used[set] = n + 1; /* fill a free slot ... */
    } else {
        n--;                  /* ... or drop the LRU block v[ways-1] */
        t.evicted = 1;
        t.victim = v[n];
    }
    push_front(v, n, block);
    return t;
}

int cs_level_access_block(cs_level *c, uint64_t block)
{
    return cs_level_touch(c, block).pos < c->ways;
}

uint32_t cs_level_remove(cs_level *c, uint64_t block)
{
    uint64_t set = block & (c->sets - 1);
    uint64_t *v = c->blocks + set * c->ways;
    uint32_t n = c->used[set];
    for (uint32_t i = 0; i < n; i++)
        if (v[i] == block) {
            for (uint32_t j = i; j + 1 < n; j++)
                v[j] = v[j + 1];
            c->used[set] = n - 1;
            return i;
        }
    return c->ways;
}

/* The last byte address of [addr, addr + size), size > 0, capped at
 * UINT64_MAX. */
static uint64_t last_byte(uint64_t addr, uint64_t size)
{
    return size - 1 > UINT64_MAX - addr ? UINT64_MAX : addr + (size - 1);
}

uint64_t cs_level_access(cs_level *c, uint64_t addr, uint64_t size)
{
    if (size == 0)
        return 0;
    uint64_t first = addr >> c->line_shift, last = last_byte(addr, size) >> c->line_shift;
    uint64_t misses = 0;
    for (uint64_t b = first;; b++) {
        misses += !cs_level_access_block(c, b);
        if (b == last)
            break;
    }
    return misses;
}

uint32_t cs_level_line(const cs_level *c)
{
    return c->line;
}

uint32_t cs_level_ways(const cs_level *c)
{
    return c->ways;
}

uint64_t cs_level_sets(const cs_level *c)
{
    return c->sets;
}

void cs_level_free(cs_level *c)
{
    if (!c)
        return;
    const rd_allocator *a = c->a;
    a->release(a->ctx, c->used);
    a->release(a->ctx, c->blocks);
    a->release(a->ctx, c);
}

/* ---- hierarchy ------------------------------------------------------------ */

void cs_hierarchy_init(cs_hierarchy *h, cs_level *const *levels, unsigned n)
{
    h->nlevels = n;
    for (unsigned k = 0; k < CS_MAX_LEVELS; k++) {
        h->level[k] = k < n ? levels[k] : NULL;
        h->accesses[k] = h->misses[k] = 0;
    }
}

/* Access [addr, addr + size), size > 0, at level k: every level-k line it
 * touches is counted, and each one that misses is requested in full from
 * level k+1 (if there is one). */
static void access_level(cs_hierarchy *h, unsigned k, uint64_t addr, uint64_t size)
{
    cs_level *c = h->level[k];
    unsigned sh = c->line_shift;
    uint64_t first = addr >> sh, last = last_byte(addr, size) >> sh;
    for (uint64_t b = first;; b++) {
        h->accesses[k]++;
        if (!cs_level_access_block(c, b)) {
            h->misses[k]++;
            if (k + 1 < h->nlevels && k + 1 < CS_MAX_LEVELS) /* the second test is for gcc -O3 */
                access_level(h, k + 1, b << sh, c->line);
        }
        if (b == last)
            break;
    }
}

void cs_hierarchy_access(cs_hierarchy *h, uint64_t addr, uint64_t size)
{
    if (size != 0 && h->nlevels != 0)
        access_level(h, 0, addr, size);
}

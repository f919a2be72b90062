/* ms_coherence.c — write-invalidate coherence between the threads' private
 * levels of memsim, and the byte masks that split coherence misses into true
 * and false sharing.
 *
 * A directory (ms_dir_line per line) is kept only once a second thread has
 * private levels, so one-thread runs pay nothing.  `holders` is a superset
 * of the threads holding the line privately (a bit is set on every fill and
 * cleared on invalidation, not on replacement), so a write visits only
 * threads that may hold it.  An invalidated thread becomes `pending`: its
 * own-line record keeps the granules other threads have written since, and
 * its next miss is true sharing when it touches one of them.  Freestanding. */
#include <stddef.h>
#include <stdint.h>

#include "cachesim/memsim_internal.h"
#include "cachesim/ms_cache.h"
#include "cachesim/ms_table.h"

/* Context of add_holder: the directory bit of one thread. */
typedef struct holder_ctx {
    ms_sim *s;
    uint64_t bit;
} holder_ctx;

/* ms_sets_for_each visitor: mark the block held. */
static void add_holder(void *ctx, uint64_t block)
{
    holder_ctx *h = ctx;
    int created;
    ms_dir_line *d = ms_table_get(&h->s->dir, block, &created);
    d->holders |= h->bit;
}

void ms_coherence_start(ms_sim *s)
{
    ms_table_init(&s->dir, sizeof(ms_dir_line), s->a);
    s->f.coherent = 1;
    for (unsigned t = 0; t < MS_MAX_THREADS; t++) {
        if (!s->thread[t])
            continue;
        holder_ctx h = {s, (uint64_t)1 << t};
        for (unsigned k = 0; k < s->c.nlevels; k++) {
            ms_cache *c = &s->thread[t]->level[k];
            if (!c->shadow)
                continue;
            ms_sets_for_each(&c->sets, add_holder, &h);
        }
    }
}

void ms_coherence_fill(ms_sim *s, unsigned t, uint64_t block)
{
    int created;
    ms_dir_line *d = ms_table_get(&s->dir, block, &created);
    d->holders |= (uint64_t)1 << t;
    d->pending &= ~((uint64_t)1 << t);
}

/* Remove block from thread t's private levels; the levels that held it, as
 * bits. */
static unsigned invalidate(ms_sim *s, unsigned t, uint64_t block)
{
    unsigned present = 0;
    for (unsigned k = 0; k < s->c.nlevels; k++) {
        ms_cache *c = &s->thread[t]->level[k];
        if (c->shadow && ms_cache_remove(c, block, s->f.epoch))
            present |= 1u << k;
    }
    return present;
}


void ms_coherence_write(ms_sim *s, unsigned t, uint64_t block, uint64_t mask)
{
    int created;
    ms_dir_line *d = ms_table_get(&s->dir, block, &created);
    uint64_t me = (uint64_t)1 << t;
    for (uint64_t w = d->pending & ~me; w; w &= w - 1) {
        ms_inv_line *l = ms_table_find(&s->thread[__builtin_ctzll(w)]->inv, block);
        if (l)
            l->inv_mask |= mask;
    }
    for (uint64_t h = d->holders & ~me; h; h &= h - 1) {
        unsigned v = (unsigned)__builtin_ctzll(h);
        unsigned present = invalidate(s, v, block);
        if (!present)
            continue; /* replaced before: the first event that removed it wins */
        ms_inv_line *l = ms_table_get(&s->thread[v]->inv, block, &created);
        l->inv_levels = present;
        l->inv_mask = mask;
        d->pending |= (uint64_t)1 << v;
    }
    d->holders = me;
    d->pending &= ~me;
}

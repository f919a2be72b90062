/* rdpipe_consumer.c — the consumer's work: the reuse-distance engines run
 * on the records the augur tool sends (rdpipe_proto.h), as the tool runs
 * them inline (src/collector/collect_runtime.c, touch()), and the answers
 * to its flushes and exports.
 *
 * One engine per block size, each with its own LRU stacks per guest thread
 * and histograms per instruction, so that engines share nothing but the
 * records: with cores to spare each runs on a thread of its own
 * (rdpipe_consume's `threads`), every engine reading every run of records.
 */
#define _GNU_SOURCE
#include "rdpipe/rdpipe_consumer.h"
#include "rdpipe/rdpipe_proto.h"
#include "rdpipe/ring_reader.h"
#include "rd/rd.h"
#include "rd/rd_sets.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_GUEST_THREADS 512 /* the tool's MAX_THREADS */
#define MAX_ENGINES (8 + RD_MAX_SET_COUNTS) /* the tool's MAX_ENGINES */
#define CHUNK_RECS 16384u    /* records run before the ring's tail moves on: 256 KiB */

/* An instruction's histogram at one block size, and whether it is on the
 * engine's dirty list: one cache line's read per access. */
typedef struct slot {
    rd_hist hist;
    uint32_t dirty;
} slot;

/* A guest thread's state at one engine: its LRU stack at a block size's
 * engine, its set lists at a set count's; the other NULL. */
typedef struct thread_lists {
    rd_stack *stack;
    rd_sets *sets;
} thread_lists;

/* The engine of one block size, or of one set count (sets not 0: set-local
 * distances of 64-byte lines, rd_sets.h). */
typedef struct engine {
    unsigned shift;
    uint32_t threshold; /* sampling, as rdpipe_config's */
    uint32_t sets;      /* 0: a block size's engine */
    rd_allocator alloc;
    thread_lists thread[MAX_GUEST_THREADS]; /* per guest thread, made on first use */
    thread_lists cur;                       /* the current thread's (both NULL before any) */
    slot *slots;                        /* per instruction id, cap of them */
    uint32_t cap;
    uint32_t *dirty; /* the ids whose histograms have counts since the last flush */
    uint32_t ndirty, dirty_cap;
} engine;

#define NAME "the reuse-distance consumer" /* for messages */

/* Abort on exhaustion, as rd_allocator asks. */
static void *xrealloc(void *p, size_t bytes)
{
    return ring_xrealloc(p, bytes, NAME);
}

static void protocol_error(const char *what)
{
    fprintf(stderr, "augur: the reuse-distance consumer got a bad record from the tool (%s); a bug of augur\n", what);
    _exit(3);
}

/* Room for instruction id `id` in e's histograms. */
static void engine_reserve(engine *e, uint32_t id)
{
    if (id < e->cap) /* the common case, without the call */
        return;
    void *slots = e->slots;
    ring_grow_zeroed(&slots, &e->cap, id, sizeof *e->slots, NAME);
    e->slots = slots;
}

/* The histogram of instruction id, put on the dirty list. */
static rd_hist *engine_hist(engine *e, uint32_t id)
{
    engine_reserve(e, id);
    slot *s = &e->slots[id];
    if (!s->dirty) {
        s->dirty = 1;
        if (e->ndirty == e->dirty_cap) {
            e->dirty_cap = e->dirty_cap ? 2 * e->dirty_cap : 1024;
            e->dirty = xrealloc(e->dirty, e->dirty_cap * sizeof *e->dirty);
        }
        e->dirty[e->ndirty++] = id;
    }
    return &s->hist;
}

/* An access: its blocks enter the current thread's stack and, counted, the
 * instruction's histogram; sampling, only the sampled blocks, at scaled
 * distances: rd_touch_blocks, as the tool runs it (collect_runtime.c). */
static void engine_access(engine *e, const rdp_rec *r)
{
    if (!e->cur.stack && !e->cur.sets)
        protocol_error("an access before any thread");
    uint64_t first = r->addr >> e->shift, last = (r->addr + (r->size & ~RDP_COUNTING) - 1) >> e->shift;
    rd_hist *h = r->size & RDP_COUNTING ? engine_hist(e, r->instr) : NULL;
    if (e->sets)
        rd_sets_touch(e->cur.sets, first, last, h, &e->alloc);
    else
        rd_touch_blocks(e->cur.stack, first, last, e->threshold, h, &e->alloc);
}

/* A new thread's state at e: a stack, or a set count's lists. */
static thread_lists thread_lists_new(engine *e)
{
    if (e->sets)
        return (thread_lists){NULL, rd_sets_new(e->sets, &e->alloc)};
    return (thread_lists){rd_stack_new(&e->alloc), NULL};
}

/* Free what *t holds (either may be NULL) and empty it. */
static void thread_lists_free(engine *e, thread_lists *t)
{
    rd_stack_free(t->stack);
    rd_sets_free(t->sets, &e->alloc);
    *t = (thread_lists){NULL, NULL};
}

/* A thread switch or exit (the other control records are the reader's):
 * the thread's state, made on its first switch, becomes the current one;
 * at its exit it is freed. */
static void engine_control(engine *e, const rdp_rec *r)
{
    if (r->addr >= MAX_GUEST_THREADS)
        protocol_error("a thread id out of range");
    thread_lists *t = &e->thread[r->addr];
    if (r->size == RDP_THREAD) {
        if (!t->stack && !t->sets)
            *t = thread_lists_new(e);
        e->cur = *t;
    } else if (r->size == RDP_THREAD_EXIT) {
        if (e->cur.stack == t->stack && e->cur.sets == t->sets)
            e->cur = (thread_lists){NULL, NULL};
        thread_lists_free(e, t);
    }
}

/* Run records [from, to) through engines e[0..n), each record through all
 * of them before the next: one read of the ring's line, which the tool's
 * core wrote. */
static void engines_run(engine *e, unsigned n, const rdp_rec *from, const rdp_rec *to)
{
    for (const rdp_rec *r = from; r < to; r++) {
        __builtin_prefetch(r + 16); /* a line from the other core, 4 lines ahead */
        for (unsigned i = 0; i < n; i++) {
            if (r->instr != RDP_CONTROL)
                engine_access(&e[i], r);
            else
                engine_control(&e[i], r);
        }
    }
}

static void engine_free(engine *e)
{
    for (unsigned t = 0; t < MAX_GUEST_THREADS; t++)
        thread_lists_free(e, &e->thread[t]);
    for (uint32_t i = 0; i < e->cap; i++)
        rd_hist_free(&e->slots[i].hist, &e->alloc);
    free(e->slots);
    free(e->dirty);
}

/* ---- answers --------------------------------------------------------------- */

/* RDP_FLUSH: every engine's histograms with counts, then zeroed. */
static int answer_flush(ring_answer *a, engine *e, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        for (uint32_t k = 0; k < e[i].ndirty; k++) {
            uint32_t id = e[i].dirty[k];
            rd_hist *h = &e[i].slots[id].hist;
            rdp_hist_head head = {id, i, h->cold, h->nbins, 0};
            ring_answer_put(a, &head, sizeof head);
            ring_answer_put(a, h->bins, h->nbins * sizeof *h->bins);
            rd_hist_clear(h);
            e[i].slots[id].dirty = 0;
        }
        e[i].ndirty = 0;
    }
    rdp_hist_head end = {RDP_CONTROL, 0, 0, 0, 0};
    ring_answer_put(a, &end, sizeof end);
    return ring_answer_end(a);
}

static int by_recency(const void *x, const void *y)
{
    const rd_stack_entry *a = x, *b = y;
    return (a->recency > b->recency) - (a->recency < b->recency);
}

/* An export's lines of thread t's set lists at engine i of e. */
static void export_sets(ring_answer *a, const engine *e, unsigned i, uint32_t t)
{
    const rd_sets *s = e->thread[t].sets;
    uint64_t *lines = xrealloc(NULL, rd_sets_count(s) * RD_SET_WAYS * sizeof *lines);
    uint64_t nb = rd_sets_entries(s, lines);
    rdp_stack_head head = {t, i, nb};
    ring_answer_put(a, &head, sizeof head);
    ring_answer_put(a, lines, nb * sizeof *lines);
    free(lines);
}

/* RDP_EXPORT: every thread's stacks, least recently used block first, and
 * its set lists (rd_sets_entries' order). */
static int answer_export(ring_answer *a, engine *e, unsigned n)
{
    for (uint32_t t = 0; t < MAX_GUEST_THREADS; t++) {
        for (unsigned i = 0; i < n; i++) {
            if (e[i].thread[t].sets)
                export_sets(a, &e[i], i, t);
            if (!e[i].thread[t].stack)
                continue;
            uint64_t nb = rd_stack_blocks(e[i].thread[t].stack);
            rd_stack_entry *ent = xrealloc(NULL, nb * sizeof *ent);
            rd_stack_entries(e[i].thread[t].stack, ent);
            qsort(ent, nb, sizeof *ent, by_recency);
            rdp_stack_head head = {t, i, nb};
            ring_answer_put(a, &head, sizeof head);
            for (uint64_t k = 0; k < nb; k++)
                ring_answer_put(a, &ent[k].block, sizeof ent[k].block);
            free(ent);
        }
    }
    rdp_stack_head end = {RDP_CONTROL, 0, 0};
    ring_answer_put(a, &end, sizeof end);
    return ring_answer_end(a);
}

/* ---- engine threads -------------------------------------------------------- */

/* What the reader and the engine threads share: the batch being run and
 * who has finished it.  The reader hands a batch out (generation + 1),
 * each worker runs its engines over it and counts itself done. */
typedef struct crew {
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    const rdp_rec *from, *to;
    unsigned long generation;
    unsigned finished, nworkers;
    int stop;
} crew;

/* An engine thread and the engines it runs. */
typedef struct worker {
    crew *c;
    engine *e; /* its engines: e[0..n) */
    unsigned n;
    pthread_t th;
} worker;

/* An engine thread: runs its engines over each batch the reader hands out,
 * in order, until the crew stops. */
static void *worker_main(void *arg)
{
    worker *w = arg;
    crew *c = w->c;
    unsigned long seen = 0;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (c->generation == seen && !c->stop)
            pthread_cond_wait(&c->go, &c->lock);
        if (c->stop)
            break;
        seen = c->generation;
        const rdp_rec *from = c->from, *to = c->to;
        pthread_mutex_unlock(&c->lock);
        engines_run(w->e, w->n, from, to);
        pthread_mutex_lock(&c->lock);
        if (++c->finished == c->nworkers)
            pthread_cond_signal(&c->done);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* Run records [from, to) through every engine: on the workers when there
 * are any (the reader waits for them all), else here. */
static void run_batch(crew *c, engine *e, unsigned n, const rdp_rec *from, const rdp_rec *to)
{
    if (!c->nworkers) {
        engines_run(e, n, from, to);
        return;
    }
    pthread_mutex_lock(&c->lock);
    c->from = from, c->to = to;
    c->finished = 0;
    c->generation++;
    pthread_cond_broadcast(&c->go);
    while (c->finished < c->nworkers)
        pthread_cond_wait(&c->done, &c->lock);
    pthread_mutex_unlock(&c->lock);
}

/* ---- the loop -------------------------------------------------------------- */

/* Run the records in buf[0..n) up to each flush or export, answering it.
 * 0, or -1 when the tool is gone. */
static int run_records(crew *c, engine *e, unsigned ne, ring_answer *a, const rdp_rec *buf, size_t n)
{
    const rdp_rec *from = buf, *end = buf + n;
    for (const rdp_rec *r = buf; r < end; r++) {
        if (r->instr != RDP_CONTROL || (r->size != RDP_FLUSH && r->size != RDP_EXPORT)) {
            if (r->instr == RDP_CONTROL && r->size != RDP_THREAD && r->size != RDP_THREAD_EXIT)
                protocol_error("an unknown control record");
            continue;
        }
        run_batch(c, e, ne, from, r);
        from = r + 1;
        if ((r->size == RDP_FLUSH ? answer_flush(a, e, ne) : answer_export(a, e, ne)) != 0)
            return -1;
    }
    run_batch(c, e, ne, from, end);
    return 0;
}

/* The reader's state, for ring_drain. */
typedef struct reader {
    crew *c;
    engine *e;
    unsigned ne;
    ring_answer *a;
} reader;

/* ring_drain's ring_run_fn: -1 when the tool stopped reading answers. */
static int run_piece(void *ctx, const rdp_rec *recs, size_t n)
{
    reader *r = ctx;
    return run_records(r->c, r->e, r->ne, r->a, recs, n);
}

int rdpipe_consume(int doorbell, int out, RdpRing *ring, const rdpipe_config *cfg, unsigned threads)
{
    engine e[MAX_ENGINES] = {{0}};
    unsigned ne = cfg->nblock_sizes + cfg->nset_counts;
    for (unsigned i = 0; i < ne; i++) {
        int sets = i >= cfg->nblock_sizes;
        e[i].shift = sets ? RD_SET_LINE_SHIFT : (unsigned)__builtin_ctz(cfg->block_size[i]);
        e[i].threshold = cfg->sample_threshold;
        e[i].sets = sets ? cfg->set_count[i - cfg->nblock_sizes] : 0;
        e[i].alloc = ring_allocator(NAME);
    }
    crew c = {.lock = PTHREAD_MUTEX_INITIALIZER, .go = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};
    worker w[MAX_ENGINES];
    if (threads > ne)
        threads = ne;
    if (threads > 1) /* worker k runs a run of neighbouring engines, the runs as even as they go */
        for (unsigned k = 0; k < threads; k++) {
            unsigned first = k * ne / threads, last = (k + 1) * ne / threads;
            w[k] = (worker){&c, &e[first], last - first, 0};
            if (pthread_create(&w[k].th, NULL, worker_main, &w[k]) != 0)
                break;
            c.nworkers++;
        }
    if (c.nworkers && c.nworkers < threads) {
        fprintf(stderr, "augur: the reuse-distance consumer could not start its threads\n");
        _exit(4);
    }
    ring_answer *a = xrealloc(NULL, sizeof *a);
    a->fd = out, a->failed = 0, a->used = 0;
    reader r = {&c, e, ne, a};
    ring_drain(ring, doorbell, CHUNK_RECS, run_piece, &r);
    pthread_mutex_lock(&c.lock);
    c.stop = 1;
    pthread_cond_broadcast(&c.go);
    pthread_mutex_unlock(&c.lock);
    for (unsigned k = 0; k < c.nworkers; k++)
        pthread_join(w[k].th, NULL);
    for (unsigned i = 0; i < ne; i++)
        engine_free(&e[i]);
    free(a);
    return 0;
}

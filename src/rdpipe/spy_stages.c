/* spy_stages.c — the simulator's levels on threads of their own (see
 * spy_stages.h).
 *
 * Stages hand references down in batches of BATCH_MSGS through a short
 * queue per stage (a mutex and a condition each, taken once a batch, so
 * their cost is spread over thousands of references).  A batch may end in
 * a mark: SYNC travels down behind every reference sent before it and the
 * last stage answers it; END does the same and ends the threads. */
#define _GNU_SOURCE
#include "rdpipe/spy_stages.h"
#include "rdpipe/spy_consumer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_MSGS 2048u /* references per batch: 96 KiB */
#define QUEUE_LEN 8u      /* batches a queue holds before its producer waits */

enum { MARK_NONE, MARK_SYNC, MARK_END };

typedef struct msg {
    ms_pass p;
    uint32_t code;
} msg;

typedef struct batch {
    uint32_t n, mark;
    msg m[BATCH_MSGS];
} batch;

/* Full batches for one stage, oldest first. */
typedef struct queue {
    pthread_mutex_t mu;
    pthread_cond_t changed;
    batch *slot[QUEUE_LEN];
    unsigned head, count;
} queue;

typedef struct stage {
    struct spy_stages *st;
    unsigned from, to; /* its levels */
    queue in;
    batch *filling;     /* what this stage is filling for the next; NULL: none yet */
    struct stage *next; /* NULL: the last */
    spy_tally tally;
    pthread_t thread;
} stage;

struct spy_stages {
    ms_sim *sim;
    const spy_config *cfg;
    unsigned nstages; /* threads but the head's */
    unsigned head_to;
    batch *filling; /* the head's, for the first stage */
    stage *stage;   /* nstages of them */
    pthread_mutex_t mu;
    pthread_cond_t answered;
    unsigned long marks_sent, marks_answered;
};

static batch *new_batch(void)
{
    batch *b = ring_xrealloc(NULL, sizeof *b, SPY_CONSUMER_NAME);
    b->n = 0;
    b->mark = MARK_NONE;
    return b;
}

/* Append b to q, waiting while q is full. */
static void queue_push(queue *q, batch *b)
{
    pthread_mutex_lock(&q->mu);
    while (q->count == QUEUE_LEN)
        pthread_cond_wait(&q->changed, &q->mu);
    q->slot[(q->head + q->count++) % QUEUE_LEN] = b;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->mu);
}

/* The oldest batch of q, waiting while there is none. */
static batch *queue_pop(queue *q)
{
    pthread_mutex_lock(&q->mu);
    while (q->count == 0)
        pthread_cond_wait(&q->changed, &q->mu);
    batch *b = q->slot[q->head];
    q->head = (q->head + 1) % QUEUE_LEN;
    q->count--;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->mu);
    return b;
}

/* Add a reference to *filling, pushing it to `to` when full. */
static void put(batch **filling, queue *to, uint32_t code, const ms_pass *p)
{
    if (!*filling)
        *filling = new_batch();
    batch *b = *filling;
    b->m[b->n++] = (msg){*p, code};
    if (b->n == BATCH_MSGS) {
        queue_push(to, b);
        *filling = NULL;
    }
}

/* Push *filling (or an empty batch) to `to`, ending in `mark`. */
static void push_mark(batch **filling, queue *to, uint32_t mark)
{
    batch *b = *filling ? *filling : new_batch();
    b->mark = mark;
    queue_push(to, b);
    *filling = NULL;
}

/* The last stage's answer to a mark. */
static void answer_mark(spy_stages *st)
{
    pthread_mutex_lock(&st->mu);
    st->marks_answered++;
    pthread_cond_broadcast(&st->answered);
    pthread_mutex_unlock(&st->mu);
}

/* One reference at stage s: its levels simulated and counted, and passed
 * on when it goes further. */
static void simulate(stage *s, msg *m)
{
    spy_stages *st = s->st;
    ms_result res;
    ms_access_levels(st->sim, &m->p, s->from, s->to, &res);
    if (res.sampled)
        spy_tally_levels(&s->tally, spy_pair_of(&s->tally, m->code, m->p.tag), st->cfg, m->p.thread, m->p.addr,
                         &res, s->from, s->to);
    if (s->next && (m->p.walking || m->p.descending))
        put(&s->filling, &s->next->in, m->code, &m->p);
}

static void *stage_main(void *arg)
{
    stage *s = arg;
    char name[16];
    snprintf(name, sizeof name, "augur-L%u", s->from + 1); /* for perf and top: the level it starts at */
    pthread_setname_np(pthread_self(), name);
    for (;;) {
        batch *b = queue_pop(&s->in);
        for (uint32_t i = 0; i < b->n; i++)
            simulate(s, &b->m[i]);
        uint32_t mark = b->mark;
        free(b);
        if (mark != MARK_NONE) {
            if (s->next)
                push_mark(&s->filling, &s->next->in, mark);
            else
                answer_mark(s->st);
        }
        if (mark == MARK_END)
            return NULL;
    }
}

/* Stage i's levels of `nlevels`, with `n` stages after the head. */
static void levels_of(unsigned i, unsigned n, unsigned nlevels, unsigned *from, unsigned *to)
{
    *from = i + 1;
    *to = i + 1 == n ? nlevels : i + 2;
}

spy_stages *spy_stages_new(ms_sim *sim, const spy_config *cfg, unsigned threads)
{
    unsigned nlevels = cfg->sim.nlevels;
    if (threads < 2 || nlevels < 2)
        return NULL;
    unsigned n = (threads < nlevels ? threads : nlevels) - 1;
    spy_stages *st = calloc(1, sizeof *st);
    stage *stages = calloc(n, sizeof *stages);
    if (!st || !stages) {
        free(st);
        free(stages);
        return NULL;
    }
    *st = (spy_stages){sim, cfg, 0, 1, NULL, stages, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
    for (unsigned i = 0; i < n; i++) {
        stage *s = &stages[i];
        s->st = st;
        levels_of(i, n, nlevels, &s->from, &s->to);
        pthread_mutex_init(&s->in.mu, NULL);
        pthread_cond_init(&s->in.changed, NULL);
        s->next = i + 1 < n ? &stages[i + 1] : NULL;
    }
    for (unsigned i = 0; i < n; i++) {
        if (pthread_create(&stages[i].thread, NULL, stage_main, &stages[i]) != 0) {
            spy_stages_free(st); /* the ones started, ended */
            return NULL;
        }
        st->nstages++;
    }
    return st;
}

unsigned spy_stages_head_levels(const spy_stages *st)
{
    return st->head_to;
}

void spy_stages_send(spy_stages *st, uint32_t code, const ms_pass *p)
{
    put(&st->filling, &st->stage[0].in, code, p);
}

/* Send `mark` down the stages and wait for the last one's answer. */
static void mark_and_wait(spy_stages *st, uint32_t mark)
{
    push_mark(&st->filling, &st->stage[0].in, mark);
    pthread_mutex_lock(&st->mu);
    unsigned long want = ++st->marks_sent;
    while (st->marks_answered < want)
        pthread_cond_wait(&st->answered, &st->mu);
    pthread_mutex_unlock(&st->mu);
}

void spy_stages_sync(spy_stages *st)
{
    mark_and_wait(st, MARK_SYNC);
}

void spy_stages_merge(spy_stages *st, spy_tally *into)
{
    for (unsigned i = 0; i < st->nstages; i++)
        spy_tally_merge(into, &st->stage[i].tally);
}

void spy_stages_free(spy_stages *st)
{
    if (!st)
        return;
    if (st->nstages > 0) {
        /* The stages not started would never pass END on: end the chain at
         * the last one started. */
        st->stage[st->nstages - 1].next = NULL;
        mark_and_wait(st, MARK_END);
    }
    for (unsigned i = 0; i < st->nstages; i++) {
        pthread_join(st->stage[i].thread, NULL);
        spy_tally_free(&st->stage[i].tally);
    }
    free(st->filling);
    free(st->stage);
    free(st);
}

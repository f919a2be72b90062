/* parallel.c — par_ordered (parallel.h): a shared counter hands out the
 * items, a flag per item says it is done, and the calling thread waits on
 * a condition variable for the next item in order. */
#include "util/parallel.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct queue {
    size_t n, next; /* items; the next one to hand out */
    int stop;       /* take asked to stop: hand out no more */
    unsigned char *done;
    pthread_mutex_t lock;
    pthread_cond_t finished; /* signalled when an item is done */
    par_work_fn work;
    void *ctx;
} queue;

/* A worker thread: work on items until none is left or the queue stops. */
static void *worker(void *arg)
{
    queue *q = arg;
    for (;;) {
        pthread_mutex_lock(&q->lock);
        if (q->stop || q->next == q->n) {
            pthread_mutex_unlock(&q->lock);
            return NULL;
        }
        size_t i = q->next++;
        pthread_mutex_unlock(&q->lock);
        q->work(q->ctx, i);
        pthread_mutex_lock(&q->lock);
        q->done[i] = 1;
        pthread_cond_broadcast(&q->finished);
        pthread_mutex_unlock(&q->lock);
    }
}

/* Every item on the calling thread, in order. */
static int run_inline(size_t n, par_work_fn work, par_take_fn take, void *ctx)
{
    for (size_t i = 0; i < n; i++) {
        work(ctx, i);
        if (take(ctx, i) != 0)
            return -1;
    }
    return 0;
}

int par_ordered(size_t n, int jobs, par_work_fn work, par_take_fn take, void *ctx)
{
    if (jobs <= 1 || n < 2)
        return run_inline(n, work, take, ctx);
    queue q = {.n = n, .work = work, .ctx = ctx};
    q.done = calloc(n, 1);
    pthread_t *threads = malloc((size_t)jobs * sizeof *threads);
    if (!q.done || !threads) {
        free(q.done), free(threads);
        return run_inline(n, work, take, ctx);
    }
    pthread_mutex_init(&q.lock, NULL);
    pthread_cond_init(&q.finished, NULL);
    int started = 0;
    while (started < jobs && pthread_create(&threads[started], NULL, worker, &q) == 0)
        started++;
    int rc = started ? 0 : run_inline(n, work, take, ctx); /* no thread could be made: all here */
    for (size_t i = 0; i < n && rc == 0 && started; i++) {
        pthread_mutex_lock(&q.lock);
        while (!q.done[i])
            pthread_cond_wait(&q.finished, &q.lock);
        pthread_mutex_unlock(&q.lock);
        rc = take(ctx, i);
    }
    pthread_mutex_lock(&q.lock);
    q.stop = 1;
    pthread_mutex_unlock(&q.lock);
    for (int t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    pthread_cond_destroy(&q.finished);
    pthread_mutex_destroy(&q.lock);
    free(q.done), free(threads);
    return rc ? -1 : 0;
}

int par_online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n >= 1 ? (int)n : 1;
}

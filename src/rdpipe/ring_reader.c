/* ring_reader.c — a consumer's end of the channel; see ring_reader.h and
 * rdpipe_proto.h (RdpRing: who writes what, and the fences). */
#include "rdpipe/ring_reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *ring_xrealloc(void *p, size_t bytes, const char *consumer)
{
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q) {
        fprintf(stderr, "augur: %s ran out of memory (%zu bytes more)\n", consumer, bytes);
        _exit(4);
    }
    return q;
}

void ring_grow_zeroed(void **array, uint32_t *cap, uint32_t id, size_t elem, const char *consumer)
{
    if (id < *cap)
        return;
    uint32_t n = *cap ? *cap : 1024;
    while (n <= id)
        n *= 2;
    char *grown = ring_xrealloc(*array, (size_t)n * elem, consumer);
    memset(grown + (size_t)*cap * elem, 0, (size_t)(n - *cap) * elem);
    *array = grown;
    *cap = n;
}

static void *alloc_cb(void *ctx, size_t bytes)
{
    return ring_xrealloc(NULL, bytes, ctx);
}

static void release_cb(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

rd_allocator ring_allocator(const char *consumer)
{
    return (rd_allocator){alloc_cb, release_cb, (void *)consumer};
}

/* Wait until the tool has published records beyond `tail`, sleeping on
 * the doorbell (RdpRing's protocol); the published end, which is `tail`
 * only when the tool's processes have all ended with nothing more. */
static uint64_t wait_for_records(RdpRing *ring, int doorbell, uint64_t tail)
{
    char bell[4096];
    for (;;) {
        uint64_t head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
        if (head != tail)
            return head;
        __atomic_store_n(&ring->sleeping, 1, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
        ssize_t got = head != tail ? 1 : read(doorbell, bell, sizeof bell);
        __atomic_store_n(&ring->sleeping, 0, __ATOMIC_RELAXED);
        if (got == 0 || (got < 0 && errno != EINTR)) /* the end: what was published before it */
            return __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
    }
}

int ring_drain(RdpRing *ring, int doorbell, size_t chunk, ring_run_fn run, void *ctx)
{
    const rdp_rec *recs = (const rdp_rec *)((const char *)ring + RDP_RING_OFFSET);
    uint64_t tail = __atomic_load_n(&ring->tail, __ATOMIC_RELAXED);
    int rc = 0;
    for (uint64_t head; rc == 0 && (head = wait_for_records(ring, doorbell, tail)) != tail;) {
        while (rc == 0 && tail < head) { /* in runs that free the ring as they go */
            uint64_t at = tail % RDP_RING_RECS, n = head - tail;
            n = n < RDP_RING_RECS - at ? n : RDP_RING_RECS - at;
            n = n < chunk ? n : chunk;
            rc = run(ctx, recs + at, (size_t)n);
            tail += n;
            __atomic_store_n(&ring->tail, tail, __ATOMIC_RELEASE);
        }
    }
    return rc;
}

/* Write all of buf to fd; 0, or -1 when the tool is gone. */
static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

void ring_answer_put(ring_answer *a, const void *p, size_t n)
{
    while (n && !a->failed) {
        size_t k = sizeof a->buf - a->used < n ? sizeof a->buf - a->used : n;
        memcpy(a->buf + a->used, p, k);
        a->used += k;
        p = (const char *)p + k;
        n -= k;
        if (a->used == sizeof a->buf) {
            a->failed = write_all(a->fd, a->buf, a->used) != 0;
            a->used = 0;
        }
    }
}

int ring_answer_end(ring_answer *a)
{
    if (!a->failed && a->used)
        a->failed = write_all(a->fd, a->buf, a->used) != 0;
    a->used = 0;
    return a->failed ? -1 : 0;
}

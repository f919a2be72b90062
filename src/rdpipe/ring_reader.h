/* ring_reader.h — a consumer's end of the channel to an augur Valgrind
 * tool (the protocol: rdpipe_proto.h): draining the ring as the tool
 * publishes records, sleeping on the doorbell when it is empty, and the
 * buffered writer of answers.  Shared by collect's reuse-distance
 * consumer (rdpipe_consumer.c) and memspy's simulator (spy_consumer.c). */
#ifndef AUGUR_RING_READER_H
#define AUGUR_RING_READER_H

#include <stddef.h>
#include <stdint.h>

#include "rd/rd.h"
#include "rdpipe/rdpipe_proto.h"

/* Runs n records (n >= 1) at recs, in the ring; 0 to go on, nonzero to stop. */
typedef int (*ring_run_fn)(void *ctx, const rdp_rec *recs, size_t n);

/* Hand the records the tool publishes in `ring` to run, in order, in
 * pieces of at most `chunk` records (none across the ring's end), and free
 * their room after each; sleep on `doorbell` when none wait.  Returns 0
 * when the doorbell's end says the tool's processes are gone (every record
 * published before it run), or the first nonzero that run returned. */
int ring_drain(RdpRing *ring, int doorbell, size_t chunk, ring_run_fn run, void *ctx);

/* realloc, or the end of the consumer process: a message naming
 * `consumer` ("the reuse-distance consumer") and exit status 4 (the tool
 * then fails on the closed pipe, and augur says the consumer died). */
void *ring_xrealloc(void *p, size_t bytes, const char *consumer);
/* Grow *array (of *cap elements of `elem` bytes) until index `id` fits,
 * doubling from 1024, the new elements zeroed; no change when it fits. */
void ring_grow_zeroed(void **array, uint32_t *cap, uint32_t id, size_t elem, const char *consumer);
/* An rd_allocator on ring_xrealloc and free (`consumer` a static string). */
rd_allocator ring_allocator(const char *consumer);

/* A buffered writer of one answer to the tool, on fd. */
typedef struct ring_answer {
    int fd, failed;
    size_t used;
    char buf[1 << 16];
} ring_answer;

/* Append n bytes at p (nothing once a write failed). */
void ring_answer_put(ring_answer *a, const void *p, size_t n);
/* Write what is buffered: the answer is complete.  0, or -1 when any
 * write of it failed (the tool is gone). */
int ring_answer_end(ring_answer *a);

#endif

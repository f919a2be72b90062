/* rdpipe.h — the reuse-distance consumer of `augur collect --analysis pipe`:
 * a process of augur's own, started before Valgrind, that runs the LRU
 * stack engines on the accesses the augur tool writes into a ring of
 * shared memory (rdpipe_proto.h), so that they run on another core than
 * the program.
 * docs/collector.md, "Analysis off the program's core".
 *
 * Use: rdpipe_start before launching the tool, rdpipe_tool_option for the
 * tool's --augur-channel and tool_fd for the descriptors it inherits,
 * rdpipe_tool_started once it is forked, rdpipe_finish after it ended.
 */
#ifndef AUGUR_RDPIPE_H
#define AUGUR_RDPIPE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile/profile.h" /* PROFILE_MAX_BLOCK_SIZES */
#include "rdpipe/rdpipe_proto.h"

typedef struct rdpipe {
    pid_t pid;                /* the consumer; 0 when none runs */
    int tool_fd[3];           /* the tool's: [0] the doorbell it rings, [1] the pipe it reads
                                 answers from, [2] the ring (a memfd); open (close-on-exec)
                                 in augur until rdpipe_finish */
    unsigned long long ino[3]; /* their inode numbers, which the tool checks */
    const char *name;          /* "the reuse-distance consumer": for messages */
} rdpipe;

/* A consumer's loop (rdpipe_consume, spy_consume): run what the tool
 * publishes in `ring`, sleeping on `doorbell`, answering on `out`, with ctx
 * (what rdpipe_launch was given); 0 when the tool is gone, else the
 * failure. */
typedef int (*rdpipe_consume_fn)(int doorbell, int out, RdpRing *ring, void *ctx);

/* The engines' setting: block sizes (ascending powers of two, at most
 * PROFILE_MAX_BLOCK_SIZES), the sampling threshold (0: exact; else as
 * --augur-sample-rd) and the set counts of set-local distances (as
 * --augur-set-counts; their engines follow the block sizes'). */
typedef struct rdpipe_config {
    unsigned nblock_sizes;
    uint32_t block_size[PROFILE_MAX_BLOCK_SIZES];
    uint32_t sample_threshold;
    unsigned nset_counts;
    uint32_t set_count[PROFILE_MAX_SET_COUNTS];
} rdpipe_config;

/* Start a consumer process named `name` ("the reuse-distance consumer",
 * kept) that runs consume(..., ctx) and exits with 0 when it returns 0,
 * else 5.  It holds no copy of the tool's descriptors, ignores the signals
 * augur passes on to the program and dies with augur.  0, or -1 with the
 * reason in err (nothing started). */
int rdpipe_launch(rdpipe *p, const char *name, rdpipe_consume_fn consume, void *ctx, char *err, size_t errlen);

/* Start the reuse-distance consumer (rdpipe_launch).  0, or -1 with the
 * reason in err (nothing started). */
int rdpipe_start(rdpipe *p, const rdpipe_config *cfg, char *err, size_t errlen);

/* The tool's option naming its descriptors and their inodes:
 * --augur-channel=BELL:INO,ANSWERS:INO,RING:INO, each number zero-padded to
 * a fixed width (5 and 20 digits), so that the option's length does not
 * vary: Valgrind lays out the program's memory by the length of its own
 * command line (one option more moved a stack frame of the program across
 * memspy's sampled sets), and memspy's two paths must see the same
 * program.  With p NULL: the option of the same length that names no
 * channel (every number 0), for memspy --analysis inline. */
void rdpipe_tool_option(const rdpipe *p, char *buf, size_t len);

/* Once the tool's process is forked (a launch_request's `forked`, ctx the
 * rdpipe): close augur's copies of the tool's descriptors, so that the
 * consumer sees the doorbell's end when the tool's processes are gone
 * while augur still waits for them.  Again: nothing. */
void rdpipe_tool_started(void *ctx);

/* After the tool ended: the same, and wait for the consumer.  0 when it
 * ended well (or was reaped with the program's processes), or -1 with
 * what happened to it in err. */
int rdpipe_finish(rdpipe *p, char *err, size_t errlen);

/* The CPUs available to this process (sched_getaffinity): --analysis auto
 * chooses the pipe on three or more. */
int rdpipe_cores_available(void);

/* Whether --analysis `analysis` (pipe, inline or auto) means a consumer.
 * auto wants three cores: on two, shared with anything else, the tool and
 * the consumer seldom have one each, and the pipe was measured slower and
 * at more CPU than inline (docs/benchmarks.md, "Analysis off the
 * program's core"). */
int rdpipe_wanted(const char *analysis);

#endif

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

typedef struct rdpipe {
    pid_t pid;                /* the consumer; 0 when none runs */
    int tool_fd[3];           /* the tool's: [0] the doorbell it rings, [1] the pipe it reads
                                 answers from, [2] the ring (a memfd); open (close-on-exec)
                                 in augur until rdpipe_finish */
    unsigned long long ino[3]; /* their inode numbers, which the tool checks */
} rdpipe;

/* The engines' setting: block sizes (ascending powers of two, at most
 * PROFILE_MAX_BLOCK_SIZES) and the sampling threshold (0: exact; else as
 * --augur-sample-rd). */
typedef struct rdpipe_config {
    unsigned nblock_sizes;
    uint32_t block_size[PROFILE_MAX_BLOCK_SIZES];
    uint32_t sample_threshold;
} rdpipe_config;

/* Start the consumer.  0, or -1 with the reason in err (nothing started). */
int rdpipe_start(rdpipe *p, const rdpipe_config *cfg, char *err, size_t errlen);

/* The tool's option naming its descriptors and their inodes:
 * --augur-channel=BELL:INO,ANSWERS:INO,RING:INO. */
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

#endif

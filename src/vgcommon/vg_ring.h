/* vg_ring.h — a tool's end of the channel to a consumer process of augur's:
 * records written into a ring of shared memory in batches, the doorbell,
 * requests and their answers (the protocol: src/rdpipe/rdpipe_proto.h;
 * docs/collector.md, "Analysis off the program's core").  Both Valgrind
 * tools use it: the collector's reuse-distance engines (collect_pipe.c)
 * and memspy's simulator (memspy_pipe.c).  Valgrind-only (VG_(...)).
 *
 * The channel comes from augur, open in this process at the descriptors
 * the tool's channel option names (rdpipe_tool_option).  The ring is mapped
 * shared, as Valgrind's gdbserver maps the file it shares with vgdb, by
 * VG_(am_shared_mmap_file_float_valgrind): Valgrind's memory, which the
 * program's loads and stores and its mmap and munmap cannot reach.  The
 * pipes are moved to Valgrind's own range of descriptors, above the
 * program's RLIMIT_NOFILE, where the program cannot close, read or write
 * them (Valgrind refuses its system calls there), and marked close-on-exec,
 * by VG_(safe_fd), as Valgrind keeps its logs'.  Both are core-private,
 * declared in vg_ring.c and linked from the libcoregrind the tool links
 * statically, so that their absence from another Valgrind fails the link.
 *
 * A consumer gone (a pipe closed) ends the process with status 125 after
 * a line in the log that names the consumer and says what augur does.
 */
#ifndef AUGUR_VG_RING_H
#define AUGUR_VG_RING_H

#include "pub_tool_basics.h"

#include "rdpipe/rdpipe_proto.h"

/* The channel option's value as given: the descriptors (doorbell,
 * answers, ring) and their inodes. */
typedef struct VgRingOption {
    Bool given;
    Int fd[3];
    ULong ino[3];
} VgRingOption;

/* An open channel. */
typedef struct VgRing {
    Int bell, in;          /* the doorbell, the answers (Valgrind's own descriptors) */
    RdpRing *ring;         /* shared with the consumer (rdpipe_proto.h) */
    rdp_rec *recs;         /* the ring's records */
    ULong head;            /* records written before the batch */
    rdp_rec *batch;        /* where the batch starts in the ring */
    UInt used, room;       /* records in the batch, and its room (to the ring's end) */
    const HChar *consumer; /* "the reuse-distance consumer": for messages */
    const HChar *outcome;  /* what the loss means, "no profile is written; augur collect says why it ended" */
} VgRing;

/* Parse "B:INO,A:INO,R:INO" (rdpipe_tool_option) into *o; False when
 * malformed.  Every inode 0 names no channel (o->given False). */
Bool vg_ring_option(VgRingOption *o, const HChar *value);

/* Open the channel o names into *r, with the words of its messages; False
 * when there is none (no option, or an exec'd program's own files at its
 * numbers: the inodes differ), which means inline.  A ring that cannot be
 * mapped ends the process (125). */
Bool vg_ring_open(VgRing *r, const VgRingOption *o, const HChar *consumer, const HChar *outcome);

/* Publish the batch's records, and wait for room for the next. */
void vg_ring_send(VgRing *r);

/* One record into the batch, the batch published when full. */
static inline void vg_ring_put(VgRing *r, UInt instr, ULong addr, UInt size)
{
    r->batch[r->used++] = (rdp_rec){addr, instr, size};
    if (UNLIKELY(r->used == r->room))
        vg_ring_send(r);
}

/* Publish control record op(arg) and everything before it: a request,
 * whose answer the caller reads (vg_ring_read) before it calls
 * vg_ring_answered (the consumer may not free the ring's room until the
 * answer is read). */
void vg_ring_request(VgRing *r, UInt op, ULong arg);
/* Read exactly n bytes of an answer. */
void vg_ring_read(VgRing *r, void *buf, SizeT n);
/* The answer is read: wait for room for the next batch. */
void vg_ring_answered(VgRing *r);

/* The channel broke, or the consumer answered nonsense (`what`): the log
 * says so, and the process exits with 125. */
__attribute__((noreturn)) void vg_ring_lost(const VgRing *r, const HChar *what);

/* Let go of the channel without a word to the consumer (a forked child,
 * whose records would mix with its parent's). */
void vg_ring_close(VgRing *r);

#endif

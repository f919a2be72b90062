/* rdpipe_proto.h — the channel between the augur Valgrind tool and its
 * reuse-distance consumer (`augur collect --analysis pipe`;
 * docs/collector.md, "Analysis off the program's core").
 *
 * A ring of records in shared memory and two pipes.  The tool writes
 * records of 16 bytes into the ring and publishes them in batches (RdpRing
 * below): each access that reaches the reuse-distance engines (the
 * instruction's id, the address, the size and whether counts are being
 * taken), and control records (thread switches and exits, flushes, stack
 * exports) in the order they happened among the accesses.  The first pipe
 * is the consumer's doorbell: the tool writes a byte to it after publishing
 * when the consumer said it sleeps, and its end tells the consumer that the
 * tool's process is gone.  On the second the consumer answers a flush with
 * the histograms it gathered since the last one, and an export with the LRU
 * stacks; nothing else is ever sent back, so the tool reads only right
 * after asking, and its end tells the tool that the consumer is gone.
 * docs/collector.md, "Analysis off the program's core", says why a ring
 * rather than the pipe alone.
 *
 * Freestanding (stdint only): included by the tool, which has no libc, and
 * by the native consumer.  Both sides run on one machine: the records are in
 * its byte order.
 */
#ifndef AUGUR_RDPIPE_PROTO_H
#define AUGUR_RDPIPE_PROTO_H

#include <stdint.h>

/* One record.  An access: instr is the tool's id of the instruction (below
 * RDP_CONTROL), addr and the low 31 bits of size its bytes, and
 * RDP_COUNTING set in size when counts are taken (else the access enters
 * the stacks only).  A control record: instr is RDP_CONTROL, size its
 * RdpOp, addr the argument. */
typedef struct rdp_rec {
    uint64_t addr;
    uint32_t instr;
    uint32_t size;
} rdp_rec;

#define RDP_CONTROL 0xffffffffu
#define RDP_COUNTING 0x80000000u

typedef enum RdpOp {
    RDP_THREAD = 1,  /* the accesses that follow are thread addr's */
    RDP_THREAD_EXIT, /* thread addr exited: its stacks go (its id may be reused) */
    RDP_FLUSH,       /* answer with the histograms since the last flush, then zero them */
    RDP_EXPORT       /* answer with every thread's stacks (a fork is under way) */
} RdpOp;

/* The answer to RDP_FLUSH: for each instruction and block size with counts,
 * an rdp_hist_head followed by nbins (count, sum) pairs of uint64_t (the
 * histogram's bins 0..nbins-1, as rd_hist holds them); then a head with
 * instr RDP_CONTROL ends it. */
typedef struct rdp_hist_head {
    uint32_t instr;
    uint32_t size_index; /* into the block sizes, ascending */
    uint64_t cold;
    uint32_t nbins;
    uint32_t pad;
} rdp_hist_head;

/* The answer to RDP_EXPORT: for each thread and block size an
 * rdp_stack_head followed by nblocks block numbers (uint64_t), least
 * recently used first; then a head with thread RDP_CONTROL ends it. */
typedef struct rdp_stack_head {
    uint32_t thread;
    uint32_t size_index;
    uint64_t nblocks;
} rdp_stack_head;

/* Records the tool writes before it publishes them (64 KiB). */
#define RDP_BATCH 4096u

/* The ring: this head, then at RDP_RING_OFFSET RDP_RING_RECS records, the
 * record numbered n (from 0, over the whole run) at n % RDP_RING_RECS.
 * head and tail only grow; head - tail records wait.  The tool writes
 * records at head and then head (release); the consumer reads up to head
 * (acquire) and then writes tail.  Before it sleeps on the doorbell the
 * consumer sets sleeping and looks at head again; the tool looks at
 * sleeping after it publishes, a full fence between on both sides, so that
 * one of them sees the other's write. */
typedef struct RdpRing {
    uint64_t head;
    uint64_t pad0[7]; /* head and tail on cache lines of their own */
    uint64_t tail;
    uint64_t pad1[7];
    uint32_t sleeping;
    uint32_t pad2[15];
} RdpRing;

#define RDP_RING_RECS (1u << 16) /* 1 MiB: held in the cache the cores share */
#define RDP_RING_OFFSET 4096u
#define RDP_RING_BYTES (RDP_RING_OFFSET + RDP_RING_RECS * 16u)
_Static_assert(sizeof(RdpRing) <= RDP_RING_OFFSET, "the ring's head fits before its records");
_Static_assert(sizeof(rdp_rec) == 16, "records are 16 bytes");

#endif

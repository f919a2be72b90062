/* spy_proto.h — the channel between the memspy Valgrind tool and augur's
 * simulator consumer (`augur memspy --analysis pipe`; docs/memspy.md,
 * "Simulation off the program's core").  The ring, the doorbell and the
 * answers' pipe are collect's (rdpipe_proto.h: RdpRing, rdp_rec, batches);
 * only what the records mean differs.
 *
 * The tool keeps what needs the program's state: which data object an
 * address belongs to (heap blocks, symbols, the thread's stack), which it
 * looks up as it does inline, in the order it would.  The consumer runs
 * the simulator and counts per (instruction, object) pair, eviction and
 * thread by the rules of cachesim/ms_counts.h; at the end of the process
 * (or before an exec) the tool asks for the counts and writes its file
 * from them as if it had simulated.
 *
 * Freestanding (stdint): included by the tool and by the consumer, on one
 * machine and one build (the configuration crosses as bytes).
 */
#ifndef AUGUR_SPY_PROTO_H
#define AUGUR_SPY_PROTO_H

#include <stdint.h>

#include "cachesim/memsim.h"
#include "cachesim/ms_counts.h"
#include "rdpipe/rdpipe_proto.h"

/* An access: rdp_rec with instr the tool's id of the instruction (below
 * RDP_CONTROL), size the data object's id, and addr the address's low 48
 * bits shifted up by 16 over the reference's size * 2 + write (below
 * 2^16: the tool's RefEntry site bits).  An address with bits above 48
 * (never a valid one on amd64, but a program may touch it before it
 * faults) is preceded by SPY_HIGH. */
#define SPY_ADDR_SHIFT 16
#define SPY_SW_MASK 0xffffu

/* Control records: instr RDP_CONTROL, size the SpyOp, addr the argument. */
typedef enum SpyOp {
    SPY_CONFIG = 1, /* the run's first record: addr bytes of spy_config follow, in
                       the next (addr + 15) / 16 records */
    SPY_THREAD,     /* the accesses that follow are simulator thread addr's
                       (below MS_MAX_THREADS) */
    SPY_SAMPLE,     /* time sampling: a new sample starts at the next access
                       (ms_sample_start) */
    SPY_HIGH,       /* addr: bits 48..63 of the next access's address, shifted down */
    SPY_FLUSH       /* answer with the counts since the last flush, then zero them */
} SpyOp;

/* The simulator and what the counting needs. */
typedef struct spy_config {
    ms_config sim;
    uint32_t groups;      /* count misses per set-sampling group (set sampling alone) */
    uint32_t group_shift; /* ms_group_of's */
} spy_config;

/* The answer to SPY_FLUSH, in three parts:
 *   each pair with references: a spy_pair, then when groups is 1 its
 *   misses per level and group, uint64_t [CS_MAX_LEVELS][MS_SET_GROUPS];
 *   a spy_pair with code RDP_CONTROL ends them;
 *   each (level, victim, evictor) with evictions: a spy_evict; key
 *   UINT64_MAX ends them;
 *   the threads' totals, ms_totals [MS_MAX_THREADS], and the references
 *   outside the sampled sets, one uint64_t. */
typedef struct spy_pair {
    uint32_t code, obj;
    uint32_t groups, pad;
    ms_counts n;
} spy_pair;

typedef struct spy_evict {
    uint64_t key; /* ms_evict_key */
    uint64_t count;
} spy_evict;

#endif

/* machine.h — a described machine: one core, its cache levels, TLBs and
 * memory, as read from a machine-description file (machines/NAME.yaml, format
 * in docs/machines.md).  The data type that the machine stage passes to
 * the performance models (src/perf) and to memspy, declared in one place.
 *
 *   machine_load.c     YAML file -> machine, every field validated, errors
 *                      as "FILE:LINE: FIELD: problem (fix)"
 *   machine_find.c     a name ("zen4") or a path -> the file; known names
 *   machine_write.c    machine -> YAML text (for detect and calibrate)
 *   machine_detect.c   the host's caches and topology from hwloc
 *   calibrate.c        the host's latencies and bandwidths, measured
 *   calibrate_rules.c  what calibrate makes of its rounds of measurements
 *
 * Units are fixed by the field names: bytes, cycles of the core clock,
 * nanoseconds and GB/s (10^9 bytes per second). */
#ifndef AUGUR_MACHINE_H
#define AUGUR_MACHINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "structure/structure.h"

#define MACHINE_MAX_PORTS 32
#define MACHINE_MAX_CACHES 4
#define MACHINE_MAX_TLBS 6
#define MACHINE_NAME_MAX 32

/* The instruction classes a core describes: every compute class of
 * structure.h (enum st_class, except ST_CLASS_LOAD_STORE, which has no compute)
 * under its st_class_name, plus the memory operations "load" and "store".
 * machine.cls[] is indexed by enum st_class for the compute classes and by
 * MACHINE_CLASS_LOAD / MACHINE_CLASS_STORE for memory. */
#define MACHINE_CLASS_LOAD ST_CLASS_COUNT
#define MACHINE_CLASS_STORE (ST_CLASS_COUNT + 1)
#define MACHINE_NCLASSES (ST_CLASS_COUNT + 2)

/* How one instruction class executes.  A class may issue to any port of
 * ports[]; `latency` is the cycles from its inputs being ready to its
 * result being ready; `rthroughput` is the reciprocal throughput: cycles
 * between independent instructions of the class in a steady stream (0.5
 * for two pipelined ports; 4 for a divider busy four cycles).  An
 * instruction therefore keeps one of its ports busy for
 * rthroughput * nports cycles.  `uops` is what it costs of the issue
 * width.  `vector_bits`, when not 0, is the width of the class's own unit
 * where it is narrower than the core's datapath (Golden Cove's divider:
 * 128 bits, so a ymm divide costs two xmm ones); latency and rthroughput
 * are then those of an op of at most that width.  For ST_CLASS_LOAD_STORE
 * all fields are zero. */
typedef struct machine_class {
    uint32_t nports;
    uint8_t ports[MACHINE_MAX_PORTS]; /* indices into machine.port_names */
    double latency;
    double rthroughput;
    double uops;
    uint32_t vector_bits; /* 0: the core's vector_bits */
} machine_class;

enum machine_cache_policy { MACHINE_INCLUSIVE, MACHINE_NON_INCLUSIVE, MACHINE_VICTIM };

/* One data-cache level; cache[0] is the closest to the core. */
typedef struct machine_cache {
    char name[MACHINE_NAME_MAX]; /* "L1", "L2", "L3": the names reports use */
    uint64_t size;               /* bytes */
    uint32_t line;               /* bytes, a power of two */
    uint32_t ways;               /* size / line for fully associative */
    double latency;              /* cycles, load-to-use on a hit at this level */
    double bandwidth;            /* bytes per cycle this level delivers to the
                                    level above (to the core for L1) */
    uint32_t shared_by;          /* cores sharing one instance */
    uint8_t policy;              /* enum machine_cache_policy, relative to the
                                    levels above it */
    uint32_t slices;             /* equal parts the sets are hashed over (the
                                    L3 slices of a mesh or ring; 1 if none):
                                    size = slices * line * ways * 2^k */
} machine_cache;

/* One TLB level for one page size. */
typedef struct machine_tlb {
    char name[MACHINE_NAME_MAX]; /* "L1 DTLB 4K" */
    uint32_t level;              /* 1 = first level, 2 = second level */
    uint64_t page_size;          /* bytes */
    uint32_t entries;
    uint32_t ways;               /* entries for fully associative */
    double miss_latency;         /* cycles added by a miss in this level */
} machine_tlb;

typedef struct machine {
    char name[MACHINE_NAME_MAX]; /* "zen4" */
    char *description;           /* one line, for people */
    char *path;                  /* the file it was read from; NULL if built */
    /* core */
    double clock_ghz;            /* the frequency the predictions assume */
    uint32_t issue_width;        /* uops dispatched per cycle */
    uint32_t vector_bits;        /* native vector datapath width: an op of
                                    w > vector_bits bits costs
                                    ceil(w / vector_bits) times its class */
    uint32_t nports;
    char port_names[MACHINE_MAX_PORTS][MACHINE_NAME_MAX];
    machine_class cls[MACHINE_NCLASSES];
    uint32_t max_outstanding_misses; /* L1 miss buffers (fill buffers) per core */
    uint32_t page_walkers;       /* page walks a core does at once (a
                                    second-level TLB miss each); 0 when not
                                    described: walks overlap as the misses */
    double throughput_share;     /* the share of the core's issue and port
                                    throughput one hardware thread gets (a
                                    tenant on the other thread of its
                                    physical core takes the rest); 1 when
                                    not described (0 in a machine built in
                                    C reads as 1); calibrate measures it */
    uint32_t reorder_buffer;     /* instructions in flight (reorder-buffer
                                    entries): the window within which
                                    independent misses overlap; 0 when not
                                    described (no window limit) */
    double branch_mispredict_cycles; /* cycles lost per mispredicted branch */
    double store_forward_cycles; /* a value stored, read back by a load of the
                                    same address: cycles from the store's data
                                    to the load's result (store-to-load
                                    forwarding), the link of a recurrence
                                    carried through memory */
    /* topology */
    uint32_t cores;              /* cores in the machine described */
    /* caches and TLBs */
    uint32_t ncaches;
    machine_cache cache[MACHINE_MAX_CACHES];
    uint32_t ntlbs;
    machine_tlb tlb[MACHINE_MAX_TLBS];
    /* memory */
    double mem_latency_ns;       /* load-to-use latency of a DRAM access */
    double mem_bandwidth_gbs;    /* sustained bandwidth of all cores together */
    double mem_bandwidth_core_gbs; /* sustained bandwidth one core reaches */
    double page_fault_ns;        /* the first touch of a fresh 4 KiB page:
                                    the kernel's fault, zeroing, mapping */
} machine;

/* Read and validate the description at `path` into *m (zeroed first).  On
 * any problem returns -1, fills nothing the caller must free, and writes
 * to err one message "PATH:LINE: FIELD: what is wrong (how to fix it)",
 * FIELD a dotted path such as "caches[1].ways".  Problems: a file that
 * cannot be read, is larger than MACHINE_FILE_MAX_BYTES, is not YAML,
 * nests deeper than MACHINE_MAX_DEPTH or holds a second document; a value
 * outside machine_limits.h; a missing, unknown, duplicated or
 * mistyped field; contradictory fields (a cache whose size is not
 * line * ways * 2^k, a level not larger than the one above it, a class
 * naming a port the core does not have, rthroughput below 1/nports). */
int machine_load(const char *path, machine *m, char *err, size_t errlen);

/* Check a machine built in memory (detect, calibrate) against everything
 * machine_load checks, by writing it and loading the text back; errors
 * read "WHAT:LINE: FIELD: problem (fix)", LINE that of the written text.
 * Returns 0 or -1 with err. */
int machine_validate(const machine *m, const char *what, char *err, size_t errlen);

/* `name_or_path` is a path when it contains '/' or ends in ".yaml"; else a
 * name looked up as NAME.yaml in the machine directories (machine_dirs).
 * An unknown name is an error listing the known names. */
int machine_find(const char *name_or_path, machine *m, char *err, size_t errlen);

/* The directories searched for machine names, in order: each directory of
 * $AUGUR_MACHINES (colon-separated), then the source tree's machines/
 * (AUGUR_MACHINES_DIR, set at build time), then the installed
 * share/augur/machines.  Returns the count; dirs[] point to static or
 * environment storage. */
size_t machine_dirs(const char **dirs, size_t max);

/* The names of all descriptions found in machine_dirs (first one wins),
 * sorted; free with machine_names_free. */
int machine_names(char ***names, size_t *n, char *err, size_t errlen);
void machine_names_free(char **names, size_t n);

/* Write m in the format machine_load reads (machine_write.c); a header
 * comment `comment` (may be NULL) says where the numbers came from.
 * Returns 0, or -1 on a write error. */
int machine_write(FILE *out, const machine *m, const char *comment);

/* The known description nearest the host's processor, chosen by vendor,
 * family and model from /proc/cpuinfo ("sapphire-rapids" for Intel family
 * 6 model >= 106, "skylake-sp" for older Intel, "zen3" / "zen4" for AMD
 * families 0x17-0x1a, "neoverse-v1" for Arm); `cpu` receives the
 * processor's one-line identity ("GenuineIntel family 6 model 207: Intel(R)
 * Xeon(R) Processor") and *mhz its clock from "cpu MHz" (0 if not given).
 * machine_host.c. */
const char *machine_host_nearest(char *cpu, size_t cpulen, double *mhz);

/* The host as its hardware reports it (machine_detect.c): cores and caches
 * (size, line, ways, sharing, inclusion) from hwloc; the clock from
 * /proc/cpuinfo; ports, classes, TLBs, memory and cache latencies and
 * bandwidths from the nearest known description.  `note` receives the
 * lines saying which number came from where (for machine_write's
 * comment).  Returns 0, or -1 with err. */
int machine_detect(machine *m, char *note, size_t notelen, char *err, size_t errlen);

/* How `augur machine calibrate` measures and what it may change. */
typedef struct machine_calibrate_options {
    int quick;             /* fewer rounds and pieces (--quick) */
    double tolerance;      /* the largest max / min of a written figure's rounds accepted (>= 1) */
    int measured_capacity; /* the last level's size becomes the reach measured (--measured-capacity);
                              else the geometry stays as described */
} machine_calibrate_options;

/* Measure the host's latencies and bandwidths into m, a description of it
 * (from machine_detect), in interleaved rounds (calibrate.c; rules in
 * calibrate_rules.h): the core clock (dependent add chains), per cache
 * level the pointer-chase latency over a buffer of half its size (the
 * last level's over a sweep from twice the level above to half its size,
 * which checks its reach), the memory latency over a buffer well past the
 * last level, one core's streaming bandwidth (read-sum, and the STREAM
 * triad that becomes bandwidth_core_gbs), the page-fault cost and the
 * share of the core's throughput this thread gets (throughput_share).  Cache
 * geometry (levels, sizes, lines, ways) is never changed, but for the last
 * level's size with o->measured_capacity; a sweep that contradicts the
 * reported size is said on `screen`.  `screen` (may be NULL) receives
 * progress, every figure's rounds and spread, the machine's load average
 * (with a warning when it is above the CPUs) and each field changed, old
 * -> new; `note` receives the same for machine_write's comment.  Returns
 * 0; -1 with err when out of memory; when a written figure's rounds
 * disagree beyond o->tolerance (m unchanged; err names each figure, its
 * rounds and how far they are from it); or when a figure measured is past
 * machine_load's limits (machine_validate). */
int machine_calibrate(machine *m, const machine_calibrate_options *o, FILE *screen, char *note, size_t notelen,
                      char *err, size_t errlen);

/* Index of the class named `name` ("fp_add", "load", ...), or -1. */
int machine_class_index(const char *name);
const char *machine_class_name(int index);

void machine_free(machine *m);

#endif

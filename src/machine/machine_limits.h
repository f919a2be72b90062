/* machine_limits.h — the one set of limits a machine description must keep
 * (docs/machines.md, "Limits"), checked when a description is loaded
 * (machine_load.c), so that `machine check`, predict, memspy, detect and
 * calibrate refuse the same things, each naming the field, the value, the
 * limit and the fix.  Ranges are inclusive.
 *
 * Why these numbers: each bound is an order of magnitude or more beyond
 * any machine made, and close enough that a tool given the bound still
 * works: memspy's simulator keeps every line of a level and searches a
 * set's ways one by one (src/cachesim), the predictor sums a binomial over
 * a level's ways (src/perf/cache_model.c) and holds a page size in 32
 * bits, and libyaml's document loader takes time quadratic in the depth of
 * nesting. */
#ifndef AUGUR_MACHINE_LIMITS_H
#define AUGUR_MACHINE_LIMITS_H

#include "rd/rd.h"

/* The file: the shipped descriptions are 4-5 KB and nest 5 deep (core,
 * classes, a class, its ports). */
#define MACHINE_FILE_MAX_BYTES (1u << 20)
#define MACHINE_MAX_DEPTH 16

/* core */
#define MACHINE_CLOCK_GHZ_MIN 0.01
#define MACHINE_CLOCK_GHZ_MAX 100.0
#define MACHINE_ISSUE_WIDTH_MAX 64u
#define MACHINE_VECTOR_BITS_MIN 64u
#define MACHINE_VECTOR_BITS_MAX 4096u
#define MACHINE_OUTSTANDING_MISSES_MAX 1024u
#define MACHINE_REORDER_BUFFER_MAX 65536u
#define MACHINE_THROUGHPUT_SHARE_MIN 0.01
#define MACHINE_MISPREDICT_CYCLES_MAX 1000.0
#define MACHINE_CLASS_CYCLES_MAX 1e4 /* a class's latency and reciprocal throughput */
#define MACHINE_CLASS_UOPS_MAX 1e3
#define MACHINE_CORES_MAX (1u << 20)

/* caches: the largest made (AMD's 96 MiB 3D V-Cache per CCD, Intel's 504
 * MB Granite Rapids L3) are well under 1 GiB; 1 GiB of 8-byte lines is
 * 2^27 lines, within memspy's 2^31 per level. */
#define MACHINE_CACHE_SIZE_MAX (1ull << 30)
#define MACHINE_LINE_MIN 8u /* memspy's simulator: a line holds at least one 64-bit word */
#define MACHINE_LINE_MAX 4096u
#define MACHINE_WAYS_MAX 1024u /* real caches have 4-24 ways; fully associative 64 KiB of 64 B lines is 1024 */
#define MACHINE_LEVEL_CYCLES_MAX 1e4
#define MACHINE_BANDWIDTH_BPC_MIN 1e-3 /* bytes per cycle */
#define MACHINE_BANDWIDTH_BPC_MAX 1e4
#define MACHINE_SHARED_BY_MAX (1u << 16)
#define MACHINE_SLICES_MAX 4096u

/* TLBs: pages of 1 KiB to 1 GiB (x86-64 has 4 KiB, 2 MiB, 1 GiB; Arm 4-64
 * KiB and their huge pages); a page is a block size of the histograms. */
#define MACHINE_TLB_LEVEL_MAX 3u
#define MACHINE_PAGE_MIN (1ull << 10)
#define MACHINE_PAGE_MAX ((unsigned long long)RD_MAX_BLOCK_SIZE)
#define MACHINE_TLB_ENTRIES_MAX (1u << 16)
#define MACHINE_TLB_MISS_CYCLES_MAX 1e5

/* memory */
#define MACHINE_MEM_LATENCY_NS_MIN 1.0
#define MACHINE_MEM_LATENCY_NS_MAX 1e5
#define MACHINE_MEM_BANDWIDTH_GBS_MIN 0.01
#define MACHINE_MEM_BANDWIDTH_GBS_MAX 1e5
#define MACHINE_PAGE_FAULT_NS_MAX 1e6

#endif

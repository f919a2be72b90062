/* profile.h — the raw profile of one process, as read from a file (host side).
 *
 * This is the data type that passes from the collector (through the file
 * described in docs/profile-format.md) to the database importer.  The reader
 * checks every invariant of the format, so code that receives a `profile`
 * may trust it: identifiers are in range and every histogram adds up.
 */
#ifndef AUGUR_PROFILE_H
#define AUGUR_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile_writer.h" /* PROFILE_VERSION */
#include "rd/rd.h"
#include "rd/rd_sets.h"

#define PROFILE_MAX_BLOCK_SIZES 8
#define PROFILE_MAX_SET_COUNTS 4 /* RD_MAX_SET_COUNTS */

typedef struct prof_module {
    char *path;
    uint64_t bias;       /* run-time address minus link-time address */
    char build_id[129];  /* hex GNU build-id, "" when unknown (filled by the importer) */
} prof_module;

typedef struct prof_target { /* one indirect-branch target, or a call's callee */
    int32_t module;          /* -1: addr is absolute */
    uint64_t addr;
    uint64_t count;
    size_t instr;            /* a callee: the index of its instruction in profile.instrs */
} prof_target;

/* One instruction's histogram at one block size, or (a `sets` line, version
 * 8) its set-local histogram at one set count: block_size the set count,
 * cold its far touches (beyond the ways recorded, or first touches). */
typedef struct prof_hist {
    uint32_t block_size;
    uint64_t touches; /* == cold + sum of bin counts */
    uint64_t cold;
    uint32_t nbins;
    rd_binrec *bins;  /* non-empty bins, ascending */
} prof_hist;

typedef struct prof_instr {
    int32_t module; /* -1: addr is absolute */
    uint64_t addr;  /* module-relative */
    uint32_t len;
    int32_t fn, file; /* -1: unknown */
    uint32_t line;    /* 0: unknown */
    uint64_t execs, reads, writes;
    int is_cond_branch;
    uint64_t taken;
    uint32_t ntargets;
    prof_target *targets;
    uint32_t ncalls;     /* a call instruction: the functions it entered (`call` lines) */
    prof_target *calls;
    uint32_t nhists; /* 0, or the profile's nblock_sizes */
    prof_hist *hists; /* in the order of profile.block_sizes */
    uint32_t nsets;   /* 0, or the profile's nset_counts */
    prof_hist *sets;  /* in the order of profile.set_counts */
    /* The dominant delta between consecutive addresses of its accesses
     * (a `stride` line; stride_deltas 0 when there is none): stride_count
     * of its stride_deltas deltas were `stride` bytes. */
    int64_t stride;
    uint64_t stride_count, stride_deltas;
    /* its deltas by 2-adic class (PROFILE_POW2_FIRST; version 7 on, else 0) */
    uint64_t stride_pow2[PROFILE_POW2_CLASSES];
} prof_instr;

/* A --region-function or --interval-function pattern, and how often the
 * process entered a function it names (outermost calls). */
typedef struct prof_pattern {
    char *glob;
    uint64_t entries;
} prof_pattern;

/* What of the process the profile counts (the `regions` lines, version 3):
 * all of it when has_regions is 0. */
typedef struct prof_regions {
    int has_regions;
    int instr_at_start;                     /* counted from the start (else from the first START) */
    uint64_t starts, stops, zeros, dumps;   /* the program's client requests obeyed */
    int nregion_fns, ninterval_fns;
    prof_pattern *region_fns, *interval_fns;
} prof_regions;

/* The profile of one interval, or of the intervals of one call site (the
 * `interval` line, version 3). */
typedef struct prof_interval {
    int is_interval;         /* 0: the profile is the whole process's */
    uint64_t index, count;   /* its first interval (from 0) and how many it sums */
    char closed_by[8];       /* "call" (an interval function), "dump" (DUMP_STATS), "end" */
    int32_t module;          /* the call or request that closed it: -1 with addr 0 when none */
    uint64_t addr;
    int32_t fn, file;        /* -1: unknown */
    uint32_t line;           /* 0: unknown */
} prof_interval;

/* An MPI rank (the `mpi` line, version 6): has_mpi 0 when the process
 * never returned from MPI_Init through augur's wrapper. */
typedef struct prof_mpi {
    int has_mpi;
    uint64_t rank, size; /* rank < size */
} prof_mpi;

#define PROFILE_MAX_COMM_DEPTH 64

/* The MPI calls alike in function, peer, communicator, interval and call
 * stack (a `comm` line, version 6). */
typedef struct prof_comm {
    int32_t fn;                /* the MPI function: an id of profile.fns */
    int64_t peer;              /* the peer's rank in MPI_COMM_WORLD, -1: none */
    int64_t comm;              /* 0 MPI_COMM_WORLD, 1 MPI_COMM_SELF, 2... others, -1 unknown */
    int64_t interval;          /* the interval the calls closed, -1: none */
    uint64_t calls, sent, received; /* received and sent bytes, summed */
    int32_t file;              /* the call's file (-1 unknown) and line (0) */
    uint32_t line;
    uint32_t depth;            /* the callers, innermost first: ids of profile.fns */
    int32_t *frames;
} prof_comm;

typedef struct profile {
    char *tool;      /* "augur-collect 0.1.0" */
    int64_t pid, ppid;
    char *exe;
    int argc;
    char **argv;     /* argv[1..]: the client's arguments */
    int nblock_sizes;
    uint32_t block_sizes[PROFILE_MAX_BLOCK_SIZES];
    /* The set counts of 64-byte lines with set-local histograms (`set-count`
     * lines, version 8), ascending, and the ways they record (distances
     * 0..set_ways-1; the rest far). */
    int nset_counts;
    uint32_t set_counts[PROFILE_MAX_SET_COUNTS];
    uint32_t set_ways;
    uint32_t threads;
    /* The histograms sample the blocks whose hash mod RD_SAMPLE_MODULUS is
     * below this, scaled to the whole run (`sample-rd`, version 5); 0: every
     * block, exact. */
    uint32_t sample_threshold;
    int nmodules;
    prof_module *modules;
    int nfns;
    char **fns;
    int nfiles;
    char **files;
    size_t ninstrs;
    prof_instr *instrs;
    /* the sums of the instructions' EXECS, READS and WRITES, each at most
     * 2^63 - 1 (RAWTEXT_MAX_COUNT, util/rawtext.h), so that any subset of
     * the instructions sums without overflow */
    uint64_t total_execs, total_reads, total_writes;
    int has_exit;    /* 0 when the process died of a signal */
    int exit_code;
    prof_regions regions;
    prof_interval interval;
    prof_mpi mpi;
    size_t ncomms;
    prof_comm *comms;
} profile;

/* Read and fully validate the profile at `path` into *out.  Returns 0 on
 * success; on failure returns -1, leaves *out empty (safe to profile_free),
 * and writes into err a message naming the file, the line and the problem,
 * e.g. "prof.1: line 12: histogram counts add up to 990, TOUCHES says 1000".
 * Besides the format's rules (docs/profile-format.md): the file's framing
 * and size (util/rawtext.h), sums within RAWTEXT_MAX_COUNT, one `ins` line
 * per instruction (module and address), block sizes within RD's, and no
 * more threads than the process could have created (one executed clone
 * each). */
int profile_read(const char *path, profile *out, char *err, size_t errlen);

void profile_free(profile *p);

#endif

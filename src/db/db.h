/* db.h — the experiment database: one SQLite file holding the runs of an
 * application, their parameters and the profiles of their processes.
 *
 * The schema is documented table by table, with example queries, in
 * docs/database.md; users open the file with sqlite3.  This header is the
 * C interface: opening (with schema creation and version check), importing
 * a run in one transaction (db_import.c), and the queries the report and
 * later stages need (db_query.c).
 *
 * Every function that can fail returns 0 on success and -1 on failure,
 * writing into err a message that names the database file, the problem and
 * the fix.  Lookups return DB_NOT_FOUND (1) when the thing asked for does
 * not exist, with a message as well.
 */
#ifndef AUGUR_DB_H
#define AUGUR_DB_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "rd/rd.h"

/* Version of the schema this augur writes (meta.schema_version). */
#define DB_SCHEMA_VERSION 18

/* Return value of lookups that found nothing. */
#define DB_NOT_FOUND 1

/* How long a writer waits for another writer to finish, in milliseconds. */
#define DB_BUSY_TIMEOUT_MS 300000

typedef struct db db;

/* ---- opening (db_schema.c) ----------------------------------------------- */

/* Open the database at `path`.  With `create`, a missing file is created
 * with the current schema, and the database must be writable; without it, a
 * missing file is an error telling to run `augur collect` first.  A file
 * that is not an SQLite database, an SQLite database that is not augur's,
 * and a schema newer than DB_SCHEMA_VERSION are refused.  *out is NULL on
 * failure. */
int db_open(const char *path, int create, db **out, char *err, size_t errlen);

void db_close(db *d);

/* Look for damage before work that would be lost to it (augur collect,
 * before running the program): SQLite's quick_check (every page and
 * record well formed; time linear in the file's size) and every table and
 * column of the current schema present.  0, or -1 with "PATH is damaged:
 * what (fix)". */
int db_check(db *d, char *err, size_t errlen);

/* The path the database was opened with. */
const char *db_path(const db *d);

/* ---- importing (db_import.c) --------------------------------------------- */

typedef struct run_info {
    int argc;
    char **argv; /* the command that was profiled */
    int nparams;
    char **param_names;
    char **param_values; /* --param NAME=VALUE, values are numbers in text form */
    const char *started, *finished; /* ISO 8601 UTC, e.g. 2026-11-21T19:42:50Z */
    const char *host, *cwd;
    const char *status;        /* "complete" or "partial" */
    const char *status_detail; /* e.g. "killed by signal 11 (SIGSEGV)", or "" */
    int exit_code;             /* exit status augur passed on */
    /* The profiles of the processes' intervals (prof_interval), each
     * process's in the order of their index; by_callsite: one per call
     * site that closed intervals (--interval-by callsite), else one per
     * interval.  Stored as runs of their own (runs.parent_id, runs.phase). */
    profile *const *intervals;
    size_t nintervals;
    int by_callsite;
    /* An MPI rank's share of a run (docs/database.md, "MPI runs"): the
     * launcher's name of the job (ranks of one launch give the same), or
     * NULL.  With it, the process that called MPI_Init (profile.mpi) is
     * the rank, and the run is the one other ranks of the launch stored,
     * made by the first to store. */
    const char *mpi_launch;
} run_info;

/* Import one run with the profiles of all its processes (procs[0] is the
 * main process), and the runs of its intervals (ri->intervals, grouped into
 * one run per phase: db_phase_key), in ONE transaction, waiting up to DB_BUSY_TIMEOUT_MS for
 * other writers, so that concurrent `augur collect`s all land.  All
 * profiles must have the same block sizes; parameter values must be
 * numbers.  Fills in procs[i]->modules[j].build_id with elf_build_id().
 * Each process's executable module (db_exe_module of its exe in ri->cwd)
 * is stored in processes.exe_module_id, NULL when none is.
 * On success *run_id is the new run's id; on error nothing is written. */
int db_import_run(db *d, const run_info *ri, profile *const *procs, size_t nprocs, int64_t *run_id, char *err,
                  size_t errlen);

/* The phase an interval's profile p belongs to, into key[len]: "end" for
 * the intervals the process's end closed; by call site, FILE:LINE of the
 * call or request that closed it (the file's last component), or
 * FUNCTION+0xADDR when its line is unknown; else its index, "0", "1"... */
void db_phase_key(const profile *p, int by_callsite, char *key, size_t len);

/* ---- the executable among the modules (db_exe.c) ------------------------- */

/* The absolute path `exe` names when started in directory `cwd` (ignored
 * when `exe` is absolute), with "." and ".." components and repeated
 * slashes removed lexically, into out[cap]; 0, or -1 when `exe` is
 * relative and `cwd` is not an absolute path, or the result does not fit. */
int db_exe_join(const char *exe, const char *cwd, char *out, size_t cap);

/* Which of paths[0..n) (a process's module paths) is the executable `exe`
 * started in `cwd`: the path equal to db_exe_join's, else to its realpath()
 * when that file exists; the first such index, or -1 when none is (a
 * script, a file moved, an unknown directory). */
long db_exe_module(const char *exe, const char *cwd, const char *const *paths, size_t n);

/* The refusal of a run whose program is not identified (db_run_modules
 * flags none): writes the message naming the problem and the fix into err;
 * returns -1. */
int db_program_unknown(int64_t run_id, char *err, size_t errlen);

/* ---- querying (db_query.c) ----------------------------------------------- */

/* Queries between db_read_begin and db_read_end see one consistent state of
 * the database, even while another process imports a run, and run faster
 * (SQLite locks the file once instead of once per query).  A writer waits
 * for db_read_end.  Every db_read_begin needs its db_read_end. */
int db_read_begin(db *d, char *err, size_t errlen);
void db_read_end(db *d);

typedef struct db_param {
    char *name;
    char *text;   /* as given on the command line */
    double value; /* the same, as a number */
} db_param;

/* One row of `runs` with its parameters, processes and block sizes. */
typedef struct db_run {
    int64_t id;
    char *started, *finished, *host, *cwd;
    char *command; /* JSON array of strings */
    char *status, *status_detail, *augur_version;
    int exit_code;
    size_t nparams;
    db_param *params; /* ordered by name */
    int nprocesses;
    int nblock_sizes;
    uint32_t block_sizes[PROFILE_MAX_BLOCK_SIZES]; /* ascending */
    /* set counts of 64-byte lines with set-local histograms (set_counts,
     * schema 18), ascending, and the ways they record; 0: none */
    int nset_counts;
    uint32_t set_counts[PROFILE_MAX_SET_COUNTS];
    uint32_t set_ways;
    int64_t parent_id; /* an interval run: the run it is a phase of; else 0 */
    char *phase;       /* an interval run: its phase (db_phase_key); else NULL */
    char *counted;     /* what of the program was counted (db_counted_sentence); "" when all of it */
    double sample_rd;  /* collect --sample-rd: the share of blocks whose reuse distances were measured,
                          the histograms scaled to the whole run (runs.sample_rd); 0: every block, exact */
} db_run;

/* How a run's histograms were measured, in words, into buf[len]: "" when
 * exactly (sample_rd 0), else "reuse distances sampled at rate 0.1 (augur
 * collect --sample-rd): the histograms are scaled estimates".  Returns buf. */
const char *db_sampled_sentence(double sample_rd, char *buf, size_t len);

/* What of a run was counted, in words, from its main process's regions
 * (processes.regions JSON, NULL when counted whole) and its phase (NULL
 * for a run as collected): "" when the whole program was counted, else
 * e.g. "only between the program's START and STOP_INSTRUMENTATION
 * requests; not inside calls of exchange (6 calls), which end intervals".
 * A new string (free() it), or NULL when out of memory. */
char *db_counted_sentence(const char *regions, const char *phase, int64_t parent_id);

/* One interval run of a run (db_run_intervals). */
typedef struct db_interval {
    int64_t run_id;   /* the interval run */
    char *phase;      /* its phase (db_phase_key) */
    uint64_t first, count; /* of the main process: its first interval, how many it sums */
    char *closed_by;  /* "call", "dump" or "end" */
    char *function;   /* the function of the call site, NULL when unknown or none */
    uint64_t instructions, accesses; /* summed over its processes */
} db_interval;

/* The interval runs of run `run_id`, in the order stored, into a new array
 * (db_intervals_free); none for a run without intervals. */
int db_run_intervals(db *d, int64_t run_id, db_interval **out, size_t *n, char *err, size_t errlen);
void db_intervals_free(db_interval *v, size_t n);

/* One rank of an MPI run (docs/database.md, "MPI runs"): how it ended,
 * its process's counts, and the bytes its MPI calls moved. */
typedef struct db_mpi_rank {
    int64_t rank, size;
    char *status, *detail;
    uint64_t instructions, accesses, sent, received, calls;
} db_mpi_rank;

/* The ranks stored of run `run_id` (of its parent, for an interval run,
 * with the interval's counts), by rank, into a new array
 * (db_mpi_ranks_free); none for a run that is no MPI run. */
int db_mpi_ranks(db *d, int64_t run_id, db_mpi_rank **out, size_t *n, char *err, size_t errlen);
void db_mpi_ranks_free(db_mpi_rank *v, size_t n);

/* A call site's MPI calls with one peer, summed over the ranks. */
typedef struct db_comm_site {
    char *function;  /* the MPI function */
    char *file;      /* the call's file, NULL when unknown */
    int64_t line;    /* 0 when unknown */
    char *stack;     /* JSON array of the callers' names, innermost first */
    int64_t peer;    /* rank in MPI_COMM_WORLD, -1: none */
    uint64_t ranks;  /* ranks that made such calls */
    uint64_t calls, sent, received;
} db_comm_site;

/* The MPI calls of run `run_id` per call site and peer, the most bytes
 * first, into a new array (db_comm_sites_free). */
int db_comm_sites(db *d, int64_t run_id, db_comm_site **out, size_t *n, char *err, size_t errlen);
void db_comm_sites_free(db_comm_site *v, size_t n);

/* The id of the newest run (the one imported last); DB_NOT_FOUND when the
 * database has no run yet. */
int db_newest_run(db *d, int64_t *run_id, char *err, size_t errlen);

/* Read run `run_id`; DB_NOT_FOUND (with a message telling how to list the
 * runs) when there is none.  Free with db_run_free, also after failure. */
int db_get_run(db *d, int64_t run_id, db_run *out, char *err, size_t errlen);
void db_run_free(db_run *r);

/* One executed instruction, as the report needs it.  Ids are those of the
 * modules, functions and files tables; 0 means unknown (SQL NULL). */
typedef struct db_instr {
    int64_t id;
    int64_t module_id, function_id, file_id;
    uint32_t line; /* 0: unknown */
    uint32_t len;  /* bytes */
    uint64_t addr; /* relative to the module (absolute when module_id is 0) */
    uint64_t executions, reads, writes;
    uint64_t taken; /* a conditional branch's executions that jumped; 0 otherwise */
} db_instr;

/* All instructions of all processes of a run, ordered by id, into a new
 * array *out (free() it) of *n elements.  Every count is a whole number
 * from 0 to 2^63 - 1 and so is the run's sum of each of executions, reads
 * and writes (so sums over its instructions cannot overflow); a database
 * holding anything else is refused as damaged.  An instruction of no
 * module and no function whose indirect jumps went to a named function F
 * (a PLT stub: Valgrind's objects cover .text, not .plt) gets function_id
 * -F, which db_names calls "F@plt". */
int db_run_instructions(db *d, int64_t run_id, db_instr **out, size_t *n, char *err, size_t errlen);

/* The index of the instruction with id `id` in ins[0..n), ascending ids
 * (as db_run_instructions returns them); n when there is none. */
size_t db_instr_find(const db_instr *ins, size_t n, int64_t id);

/* Called once per histogram; bins are ascending and valid during the call
 * only.  A nonzero return stops the iteration and is passed on. */
typedef int (*db_hist_fn)(void *ctx, int64_t instr_id, uint64_t cold, const rd_binrec *bins, size_t nbins);

/* Call fn for every histogram at `block_size` of the instructions of a run,
 * in ascending order of instruction id.  Returns 0, -1 on a database error,
 * or what fn returned. */
int db_for_each_histogram(db *d, int64_t run_id, uint32_t block_size, db_hist_fn fn, void *ctx, char *err,
                          size_t errlen);

/* The same for the set-local histograms at `sets` sets (schema 18), cold
 * being their far touches; none for a run without that set count. */
int db_for_each_set_histogram(db *d, int64_t run_id, uint32_t sets, db_hist_fn fn, void *ctx, char *err,
                              size_t errlen);

/* Calls from one call instruction to one function (db_calls.c): names are
 * NULL when unknown. */
typedef struct db_call {
    char *caller, *caller_module; /* the function and module of the call instruction */
    char *file;                   /* the call site: its source file and line (0: unknown) */
    uint32_t line;
    uint64_t addr;                /* the call instruction, module-relative */
    char *callee, *callee_module; /* the function it entered */
    uint64_t count;               /* times, summed over the run's processes */
    uint64_t executions;          /* of the call instruction, summed likewise */
} db_call;

/* The calls of run `run_id` (table call_edges), one element per call
 * instruction and function entered, ordered by the call's module and
 * address, into a new array (free with db_calls_free).  None for a run
 * stored before schema version 8.  A count that is not a whole number
 * from 0 to 2^63 - 1 is refused as damage. */
int db_run_calls(db *d, int64_t run_id, db_call **out, size_t *n, char *err, size_t errlen);
void db_calls_free(db_call *c, size_t n);

/* An instruction's dominant address delta in a run (table strides; the
 * collector's `stride` line): `count` of the `deltas` deltas between its
 * consecutive accesses were `delta` bytes (docs/profile-format.md). */
typedef struct db_stride {
    int64_t instr_id;
    int64_t delta;
    uint64_t count, deltas;
} db_stride;

/* The strides of a run's instructions, ascending instruction id, into a
 * new array *out (free() it) of *n elements; none for runs collected
 * before schema version 10. */
int db_run_strides(db *d, int64_t run_id, db_stride **out, size_t *n, char *err, size_t errlen);

/* The index of instruction `id`'s stride in s[0..n) (ascending ids, as
 * db_run_strides returns them); n when it has none. */
size_t db_stride_find(const db_stride *s, size_t n, int64_t id);

/* 1 when s is the delta of at least half of its instruction's deltas
 * (DB_STRIDE_DOMINANT): a walk at that stride is what the instruction
 * does; a damaged row (count above deltas) is not. */
#define DB_STRIDE_DOMINANT 0.5
#define DB_STRIDE_DOMINANT_SQL "0.5"
int db_stride_dominant(const db_stride *s);

/* The mean accesses of a run at s's delta: (deltas + 1) / (deltas -
 * count + 1), taking each other delta as the end of a run (a column of n
 * lines walked n times over: n). */
double db_stride_run(const db_stride *s);

/* One 2-adic class of an instruction's address deltas (table stride_pow2,
 * schema version 17): `count` of its deltas had 2^shift as their largest
 * power-of-two divisor (the last class also every larger one); `accesses`
 * is the instruction's reads + writes. */
typedef struct db_pow2 {
    int64_t instr_id;
    uint64_t addr; /* relative to the module */
    int shift;
    uint64_t count, accesses;
} db_pow2;

/* The classes of the instructions of a run's program (the executable of
 * its first process) whose stride is not dominant (db_stride_dominant: a
 * walk whose stride changes, which the walk model cannot see), ascending
 * instruction id and shift, into a new array *out (free() it) of *n
 * elements; none for runs collected before schema version 17. */
int db_run_pow2(db *d, int64_t run_id, db_pow2 **out, size_t *n, char *err, size_t errlen);

enum db_name_kind { DB_FUNCTION_NAME, DB_FILE_PATH, DB_MODULE_PATH };

/* Look up the names of `n` ids of one kind: names[i] becomes a new string
 * (free() it), or NULL when ids[i] is 0 (unknown); a function id -F is the
 * PLT stub of F, "F@plt" (db_run_instructions). */
int db_names(db *d, enum db_name_kind kind, const int64_t *ids, size_t n, char **names, char *err, size_t errlen);

/* ---- static structure (db_structure.c) ------------------------------------
 * The analysis of `augur structure` is stored once per binary, under a key:
 * "BUILDID:SIZE" (a stripped copy of a build is analysed apart from the
 * original), or for a file without build-id "file:PATH:SIZE:MTIME" (so a
 * rebuilt file is analysed again).  Profiles join to it by (build-id, addr). */

struct st_module;
struct st_jump_target;

/* The key of the binary at `path` whose build-id is `build_id` ("" when it
 * has none; then the file's size and mtime are read). */
void db_binary_key(const char *path, const char *build_id, char *key, size_t keylen);

/* The id of the stored structure with `key`; DB_NOT_FOUND when absent. */
int db_find_binary(db *d, const char *key, int64_t *binary_id, char *err, size_t errlen);

/* Store an analysed module under `key` in one transaction.  When another
 * process stored the same key meanwhile, its result is kept and its id
 * returned.  progress (may be NULL) is called now and then with the
 * functions stored and their total, last when all are (before the commit). */
int db_store_structure(db *d, const char *key, const struct st_module *m, int64_t *binary_id,
                       void (*progress)(void *ctx, size_t done, size_t total), void *progress_ctx, char *err,
                       size_t errlen);

/* Targets of indirect jumps and calls that the runs in the database saw in
 * the module with `build_id`, with module-relative addresses; *out is a new
 * array (free() it). */
int db_indirect_targets(db *d, const char *build_id, struct st_jump_target **out, size_t *n, char *err,
                        size_t errlen);

/* One row of `binaries`. */
typedef struct db_binary {
    int64_t id;
    char *key, *build_id, *path, *warnings; /* warnings: JSON array of strings */
    int stripped, has_dwarf;
    uint64_t text_bytes, functions, instructions, loops;
} db_binary;

int db_get_binary(db *d, int64_t binary_id, db_binary *out, char *err, size_t errlen);
void db_binary_free(db_binary *b);

/* The id of a stored structure of the build with `build_id` (not ""),
 * whatever path it was analysed at and whether its file still exists: the
 * one with DWARF first, as a stripped copy is stored apart; DB_NOT_FOUND
 * when none is. */
int db_binary_of_build(db *d, const char *build_id, int64_t *binary_id, char *err, size_t errlen);

struct st_unit;

/* The compilation units stored with a binary (binary_units), in DWARF
 * order, into a new array (st_units_free).  None for a binary without
 * DWARF, or one analysed before schema version 9. */
int db_binary_units(db *d, int64_t binary_id, struct st_unit **out, size_t *n, char *err, size_t errlen);

/* One decoded instruction of a stored binary (static_instructions). */
typedef struct db_static_insn {
    uint64_t addr;
    uint32_t len, line; /* line 0: unknown */
    int64_t scope;      /* its innermost scope */
    int cls;            /* enum st_class */
    int loads, stores;  /* memory operands read and written */
} db_static_insn;

/* Every decoded instruction of a binary, ascending addr, into a new array
 * (free() it). */
int db_static_instructions(db *d, int64_t binary_id, db_static_insn **out, size_t *n, char *err, size_t errlen);

/* One scope, with static totals of the instructions it holds, inner
 * scopes included. */
typedef struct db_scope {
    int64_t id, parent; /* parent -1 for the module */
    char *kind, *name, *file, *call_file;
    uint32_t first_line, last_line, call_line, folded;
    uint64_t entry_addr;
    uint64_t instructions; /* static instructions directly in the scope */
} db_scope;

/* All scopes of a binary, ascending id (parents before children); free
 * with db_scopes_free. */
int db_get_scopes(db *d, int64_t binary_id, db_scope **out, size_t *n, char *err, size_t errlen);
void db_scopes_free(db_scope *s, size_t n);

/* Dynamic counts of one (scope, instruction class) of a run: the sums over
 * the executed instructions directly in the scope. */
typedef struct db_scope_count {
    int64_t scope;
    int cls;                 /* enum st_class */
    uint64_t executions;     /* instructions of this class executed */
    uint64_t flops;          /* executions * flops per execution */
    uint64_t reads, writes;  /* memory accesses, as the collector counted them */
} db_scope_count;

/* The counts of run `run_id` in binary `binary_id` (the run's module with
 * that key), into a new array (free() it). */
int db_scope_counts(db *d, int64_t run_id, int64_t binary_id, db_scope_count **out, size_t *n, char *err,
                    size_t errlen);

/* Per loop scope of a binary in a run: header executions and back-edge
 * traversals (entries = headers - back; iterations per entry = headers /
 * entries). */
typedef struct db_loop_count {
    int64_t scope;
    uint64_t headers, back;
} db_loop_count;

/* The loop counts of run `run_id` in binary `binary_id`, ascending scope,
 * into a new array (free() it). */
int db_loop_counts(db *d, int64_t run_id, int64_t binary_id, db_loop_count **out, size_t *n, char *err,
                   size_t errlen);

/* Modules of a run that executed instructions: path and build-id.  The
 * program (the executable of the run's first process, see db_exe_module)
 * comes first with is_program set; when it cannot be identified, no module
 * has is_program and the order is by module id. */
typedef struct db_run_module {
    char *path, *build_id;
    int is_program;
} db_run_module;

int db_run_modules(db *d, int64_t run_id, db_run_module **out, size_t *n, char *err, size_t errlen);
void db_run_modules_free(db_run_module *m, size_t n);

/* The program of every run (the executable of its first process, as
 * db_run_modules identifies it), ascending run id: module 0 and NULL
 * strings when it cannot be identified.  Free with db_run_programs_free. */
typedef struct db_run_program {
    int64_t run_id, module_id;
    char *path, *build_id;
} db_run_program;

int db_run_programs(db *d, db_run_program **out, size_t *n, char *err, size_t errlen);
void db_run_programs_free(db_run_program *p, size_t n);

/* ---- models (db_model.c) -------------------------------------------------
 * A model set is what one `augur model` fitted: models of counts and
 * reuse-distance groups over the runs of one program.  Tables: docs/
 * database.md, section "Models".  Models are stored as data (constant,
 * terms, coefficients) with their formula and errors. */

struct model;
struct rd_model;

#define DB_MODEL_MAX_PARAMS 4 /* = MODEL_MAX_PARAMS */

/* How a model set's rd_parts are to be read, stored with the set: 1 for
 * sets of schema version 3 (each lead's share on its own), 2 since (each
 * lead's cumulative share, docs/models.md).  Sets of another method are
 * refused, so an old set is never misread. */
#define DB_RD_METHOD 2

/* One row of model_sets. */
typedef struct db_model_set {
    int64_t id;
    char *created, *program;
    int nparams;
    char *params[DB_MODEL_MAX_PARAMS];         /* names, in coordinate order */
    double lo[DB_MODEL_MAX_PARAMS], hi[DB_MODEL_MAX_PARAMS]; /* fitted range */
    char *runs;  /* JSON array of run ids */
    char *basis; /* JSON array of the user basis terms as given */
    /* A set fitted across builds of one source (docs/models.md, "Builds of
     * one source"): JSON array of the builds, the reference first
     * ({"program", "build_id", "runs"}), and JSON array of the scopes left
     * out as not matched (sentences); both NULL for a set of one build. */
    char *builds, *unmatched;
    int nblock_sizes;
    uint32_t block_sizes[PROFILE_MAX_BLOCK_SIZES];
    /* A set of one phase of the runs (docs/models.md, "Phases"): the set of
     * the whole runs fitted with it, and the phase (runs.phase) its runs
     * are; 0 and NULL for a set of whole runs. */
    int64_t parent_id;
    char *phase;
} db_model_set;

void db_model_set_free(db_model_set *s);

/* What a model is of.  kind: "total", "function", "line", "scope", "block"
 * or "rd"; the other fields as they apply (NULL / 0 otherwise). */
typedef struct db_model_subject {
    const char *kind;
    const char *module, *function, *file;
    uint32_t line;
    int64_t scope;          /* scope id in the program's stored structure; -1 none */
    const char *scope_kind; /* "function", "inlined", "loop" */
    uint64_t addr, end_addr; /* block: [addr, end_addr) */
} db_model_subject;

typedef struct db_model_writer db_model_writer;

/* Start storing a new model set (one transaction, committed by
 * db_model_commit); set->id receives its id. */
int db_model_begin(db *d, db_model_set *set, db_model_writer **w, char *err, size_t errlen);

/* Store model m of `metric` for subject s; *model_id (may be NULL) gets its id. */
int db_model_put(db_model_writer *w, const db_model_subject *s, const char *metric, const struct model *m,
                 int64_t *model_id, char *err, size_t errlen);

/* One member instruction of a reuse-distance group, and its share of the
 * group's touches (how its misses are attributed). */
typedef struct db_rd_member {
    uint64_t addr;
    const char *function, *file;
    uint32_t line;
    double share;
} db_rd_member;

/* One reuse-distance group to store: where it is, its members, its
 * histogram model, and the model of its walk's stride (the magnitude of
 * its heaviest member's dominant address delta, bytes) and run length
 * (accesses at that stride between other deltas), both NULL when the runs
 * give none (docs/models.md, "Strides"). */
typedef struct db_rd_group_spec {
    uint32_t block_size;
    const char *module, *strides; /* strides: the loop's constant ones, or NULL */
    int64_t loop;                 /* the innermost loop's scope id, or -1 */
    const db_rd_member *members;
    size_t nmembers;
    const struct rd_model *m;
    const struct model *stride, *run;
} db_rd_group_spec;

/* Store the model of one reuse-distance group. */
int db_rd_group_put(db_model_writer *w, const db_rd_group_spec *g, char *err, size_t errlen);

/* Commit (0) or, after a failure, roll back and free the writer. */
int db_model_commit(db_model_writer *w, char *err, size_t errlen);
void db_model_abort(db_model_writer *w);

/* The newest model set of whole runs, or with `phase` that set's model set
 * of the phase; DB_NOT_FOUND (with a message saying to run `augur model`,
 * or naming the phases that have models) when there is none. */
int db_model_set_newest(db *d, const char *phase, db_model_set *out, char *err, size_t errlen);

/* The phases that have model sets under set `set_id`, in the order fitted,
 * into a new array of new strings (db_strings_free); none for a set whose
 * runs had no phases. */
int db_model_set_phases(db *d, int64_t set_id, char ***out, size_t *n, char *err, size_t errlen);
void db_strings_free(char **v, size_t n);

/* A stored count model with its subject (strings owned). */
typedef struct db_model_row {
    char *kind, *module, *function, *file, *scope_kind, *metric;
    uint32_t line;
    int64_t scope;
    uint64_t addr, end_addr;
    char *formula;
    struct model *m;
} db_model_row;

/* The count models (every kind but "rd") of a set, in storage order. */
int db_models_load(db *d, const db_model_set *set, db_model_row **out, size_t *n, char *err, size_t errlen);
void db_model_rows_free(db_model_row *rows, size_t n);

/* A stored reuse-distance group. */
typedef struct db_rd_group {
    uint32_t block_size;
    char *module, *strides;
    int64_t loop;
    size_t nmembers;
    struct db_rd_member_row {
        uint64_t addr;
        char *function, *file;
        uint32_t line;
        double share;
    } *members;
    struct rd_model *m;
    struct model *stride, *run; /* its walk (db_rd_group_spec), NULL when none */
} db_rd_group;

/* The groups of a set, their models' growth bound beyond the fitted
 * range set (one parameter: rd_models_bound_growth per block size). */
int db_rd_groups_load(db *d, const db_model_set *set, db_rd_group **out, size_t *n, char *err, size_t errlen);
void db_rd_groups_free(db_rd_group *g, size_t n);

/* Ids of the complete runs, ascending, into a new array (free() it). */
int db_complete_runs(db *d, int64_t **ids, size_t *n, char *err, size_t errlen);

/* Is the process of profile p already stored (db_process_lookup.c)?  The
 * same pid, parent, executable, arguments, threads and total executions.
 * 0 with *run_id its run, DB_NOT_FOUND, or -1 + err. */
int db_process_stored(db *d, const profile *p, int64_t *run_id, char *err, size_t errlen);

/* modules.id of (path, build_id); DB_NOT_FOUND when absent. */
int db_module_id(db *d, const char *path, const char *build_id, int64_t *id, char *err, size_t errlen);

/* The reuse-distance grouping key of each memory instruction in a loop of a
 * stored binary: its innermost loop and its strides in every enclosing
 * loop (memory_operands.strides, operands joined by ';'), ascending addr. */
typedef struct db_memory_key {
    uint64_t addr;
    int64_t loop;
    char *strides;
} db_memory_key;

int db_memory_keys(db *d, int64_t binary_id, db_memory_key **out, size_t *n, char *err, size_t errlen);
void db_memory_keys_free(db_memory_key *k, size_t n);

/* ---- static models (db_static.c) -----------------------------------------
 * The model `augur static --db` stores for a binary, keyed by its build-id
 * (docs/database.md, "Static models"): per function and source loop, its
 * formulas as text and as evaluable forms (static/form.h), JSON texts. */
typedef struct db_static_scope {
    char *kind;          /* "function" or "loop" */
    char *function, *file;
    int first_line, last_line;
    int parent;          /* position of the enclosing loop of its function, -1 */
    char *unknowns;      /* JSON array of the names its formulas use */
    char *formulas;      /* JSON object: metric -> formula text */
    char *forms;         /* JSON object: metric -> evaluable form */
    char *binary_loops;  /* JSON array: a loop's binary loops as the join found them (address, role,
                            program iterations); "[]" for a function */
} db_static_scope;

typedef struct db_static_model {
    char *build_id, *path, *created, *augur_version;
    char *unknowns;      /* JSON array of {name, file, line, reason} */
    char *warnings;      /* JSON array of strings */
    size_t nscopes;
    db_static_scope *scopes;
} db_static_model;

/* Store m, replacing the model of the same build-id, in one transaction.
 * 0, or -1 + err. */
int db_static_put(db *d, const db_static_model *m, char *err, size_t errlen);
/* The model of build_id into *out (free with db_static_model_free), or
 * DB_NOT_FOUND (no message needed: most binaries have none), or -1 + err. */
int db_static_get(db *d, const char *build_id, db_static_model *out, char *err, size_t errlen);
void db_static_model_free(db_static_model *m);

#endif

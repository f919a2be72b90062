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
#define DB_SCHEMA_VERSION 1

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
} run_info;

/* Import one run with the profiles of all its processes (procs[0] is the
 * main process) in ONE transaction, waiting up to DB_BUSY_TIMEOUT_MS for
 * other writers, so that concurrent `augur collect`s all land.  All
 * profiles must have the same block sizes; parameter values must be
 * numbers.  Fills in procs[i]->modules[j].build_id with elf_build_id().
 * On success *run_id is the new run's id; on error nothing is written. */
int db_import_run(db *d, const run_info *ri, profile *const *procs, size_t nprocs, int64_t *run_id, char *err,
                  size_t errlen);

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
} db_run;

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
    uint64_t executions, reads, writes;
} db_instr;

/* All instructions of all processes of a run, ordered by id, into a new
 * array *out (free() it) of *n elements. */
int db_run_instructions(db *d, int64_t run_id, db_instr **out, size_t *n, char *err, size_t errlen);

/* Called once per histogram; bins are ascending and valid during the call
 * only.  A nonzero return stops the iteration and is passed on. */
typedef int (*db_hist_fn)(void *ctx, int64_t instr_id, uint64_t cold, const rd_binrec *bins, size_t nbins);

/* Call fn for every histogram at `block_size` of the instructions of a run,
 * in ascending order of instruction id.  Returns 0, -1 on a database error,
 * or what fn returned. */
int db_for_each_histogram(db *d, int64_t run_id, uint32_t block_size, db_hist_fn fn, void *ctx, char *err,
                          size_t errlen);

enum db_name_kind { DB_FUNCTION_NAME, DB_FILE_PATH, DB_MODULE_PATH };

/* Look up the names of `n` ids of one kind: names[i] becomes a new string
 * (free() it), or NULL when ids[i] is 0 (unknown). */
int db_names(db *d, enum db_name_kind kind, const int64_t *ids, size_t n, char **names, char *err, size_t errlen);

#endif

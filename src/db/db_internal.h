/* db_internal.h — what the files of src/db share and nothing else sees:
 * the db handle and thin helpers over the SQLite API (db_sql.c). */
#ifndef AUGUR_DB_INTERNAL_H
#define AUGUR_DB_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "db/db.h"

struct db {
    sqlite3 *sql;
    char *path;
};

/* Write "<path>: cannot <doing>: <SQLite's message>" and, when SQLite says
 * the database is locked, busy, full or read-only, the fix; return -1. */
int db_fail(const db *d, const char *doing, char *err, size_t errlen);

/* sqlite3_prepare_v2, reporting failures with db_fail(doing). */
int db_prepare(db *d, const char *sql, sqlite3_stmt **st, const char *doing, char *err, size_t errlen);

/* Run SQL statements that return no rows. */
int db_exec(db *d, const char *sql, const char *doing, char *err, size_t errlen);

/* Step a statement that returns no row and reset it for the next use. */
int db_step_done(db *d, sqlite3_stmt *st, const char *doing, char *err, size_t errlen);
/* db_step_done for a statement used once: finalized after its step, so
 * that no statement is left open when the database closes (sqlite3_close
 * refuses to close a connection with one, and leaks it). */
int db_step_final(db *d, sqlite3_stmt *st, const char *doing, char *err, size_t errlen);

/* 64-bit unsigned values: stored as INTEGER up to INT64_MAX, beyond that as
 * REAL (SQLite has no unsigned integers). */
int db_bind_u64(sqlite3_stmt *st, int col, uint64_t v);
uint64_t db_column_u64(sqlite3_stmt *st, int col);

/* Bind an id, or NULL when it is 0 (unknown). */
int db_bind_id(sqlite3_stmt *st, int col, int64_t id);

/* Bind a string as text, or NULL when it is NULL. */
int db_bind_text(sqlite3_stmt *st, int col, const char *s);

/* A new compact JSON array text of n strings (bytes that are not UTF-8
 * replaced, as json_string_array does), or NULL when out of memory; free()
 * it. */
char *db_json_strings(char *const *v, size_t n);

/* A new copy of a text column ("" for an empty string), or NULL when the
 * column is NULL or memory runs out. */
char *db_column_strdup(sqlite3_stmt *st, int col);

/* ---- collecting rows (db_sql.c) -------------------------------------------
 * Rows of a query appended to a growing array of `size`-byte elements, each
 * zeroed and then filled from the row by `fill` (0, or -1 when memory runs
 * out), which is passed `ctx`.  *v and *n are the caller's array and count. */
typedef struct db_row_array {
    void **v;
    size_t *n, cap, size;
    int (*fill)(void *elem, sqlite3_stmt *st, void *ctx);
    void *ctx;
} db_row_array;

/* Step `st` to its end into `a`, then finalize it; `doing` names the work
 * in messages. */
int db_collect_rows(db *d, sqlite3_stmt *st, db_row_array *a, const char *doing, char *err, size_t errlen);

/* Prepare `sql`, bind ?1 and ?2 (when nonzero) and collect its rows. */
int db_query_rows(db *d, const char *sql, int64_t p1, int64_t p2, db_row_array *a, const char *doing, char *err,
                  size_t errlen);

/* ---- the executable (db_exe.c) ------------------------------------------ */

/* The module id of run `run_id`'s program, the executable of its first
 * process: as stored at import, else resolved now (db_exe_module, for runs
 * stored before schema version 5); *id is 0 when it cannot be identified. */
int db_run_program_id(db *d, int64_t run_id, int64_t *id, char *err, size_t errlen);

/* ---- MPI runs (db_mpi_import.c), inside db_import_run's transaction ------ */

/* The run an earlier rank of MPI launch `launch` stored; *run_id 0 when none. */
int db_mpi_find_run(db *d, const char *launch, int64_t *run_id, char *err, size_t errlen);

/* Record run_id as the run of `launch` (NULL: a process started without a
 * launcher) with `size` ranks. */
int db_mpi_add_run(db *d, int64_t run_id, const char *launch, uint64_t size, char *err, size_t errlen);

/* Check that rank process `rank` can join run_id (the same rank count,
 * parameters and block sizes, its rank not stored yet); *position gets
 * the position of its first process in the run. */
int db_mpi_join_run(db *d, int64_t run_id, const run_info *ri, const profile *rank, int *position, char *err,
                    size_t errlen);

/* Record the rank (its process, and how it ended: ri's status) and settle
 * the run's status, detail and exit code over the ranks stored so far. */
int db_mpi_add_rank(db *d, int64_t run_id, uint64_t rank, int64_t process_id, const run_info *ri, char *err,
                    size_t errlen);

/* ---- multi-row inserts (db_batch.c) ---------------------------------------
 * Inserting many rows one statement each costs SQLite more in statement
 * overhead than in storage; a batch inserts DB_BATCH_ROWS rows per
 * statement.  Values are kept until the batch is full (SQLite cannot read
 * bound values back), then bound and inserted at once. */

#define DB_BATCH_ROWS 32
#define DB_BATCH_MAX_COLS 12

typedef struct db_value {
    int type; /* SQLITE_NULL, SQLITE_INTEGER or SQLITE_FLOAT */
    int64_t i;
    double r;
} db_value;

typedef struct db_batch {
    const char *insert; /* "INSERT INTO t (a, b, ...) VALUES " */
    int ncols;
    sqlite3_stmt *full; /* the DB_BATCH_ROWS-row statement, prepared on first use */
    int nvalues;        /* values of the rows waiting */
    db_value values[DB_BATCH_ROWS * DB_BATCH_MAX_COLS];
} db_batch;

void db_batch_init(db_batch *b, const char *insert, int ncols);

/* Values of the current row, in column order. */
void db_batch_int(db_batch *b, int64_t v);
void db_batch_u64(db_batch *b, uint64_t v); /* as db_bind_u64 stores it */
void db_batch_id(db_batch *b, int64_t id);  /* NULL when 0 */
void db_batch_null(db_batch *b);

/* End the current row; inserts the waiting rows when the batch is full. */
int db_batch_row(db *d, db_batch *b, const char *doing, char *err, size_t errlen);

/* Insert the rows still waiting (call before reading the table). */
int db_batch_flush(db *d, db_batch *b, const char *doing, char *err, size_t errlen);

void db_batch_free(db_batch *b);

#endif

/* db_mpi_import.c — the MPI part of storing a run (docs/database.md, "MPI
 * runs"): each rank's `augur collect` stores its own processes, in its
 * own transaction, into the one run of its launch.  The first rank to
 * store makes the run (mpi_runs keys it by the launch); the others find it
 * there, must agree with it (rank count, parameters, block sizes) and must
 * not repeat a rank; after each, the run's status is settled from the
 * ranks stored so far.  Called inside db_import_run's transaction, whose
 * write lock (BEGIN IMMEDIATE) makes find-or-make atomic among the P
 * concurrent writers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"

#define DOING "store the MPI rank"

/* Prepare `sql`, bind ?1 (an integer) and ?2 (text, when not NULL), and
 * step once; *value gets column 0 of a row (left alone without one), *found
 * whether there was one. */
static int query_one(db *d, const char *sql, int64_t p1, const char *p2, int64_t *value, int *found, char *err,
                     size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d, sql, &st, DOING, err, errlen) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, p1);
    if (p2)
        db_bind_text(st, 2, p2);
    int rc = sqlite3_step(st);
    *found = rc == SQLITE_ROW;
    if (*found)
        *value = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_fail(d, DOING, err, errlen);
}

int db_mpi_find_run(db *d, const char *launch, int64_t *run_id, char *err, size_t errlen)
{
    int found;
    *run_id = 0;
    return query_one(d, "SELECT run_id FROM mpi_runs WHERE launch = ?2", 0, launch, run_id, &found, err, errlen);
}

int db_mpi_add_run(db *d, int64_t run_id, const char *launch, uint64_t size, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d, "INSERT INTO mpi_runs (run_id, launch, size) VALUES (?, ?, ?)", &st, DOING, err, errlen) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    if (launch)
        db_bind_text(st, 2, launch);
    else
        sqlite3_bind_null(st, 2);
    sqlite3_bind_int64(st, 3, (int64_t)size);
    return db_step_final(d, st, DOING, err, errlen);
}

/* The run's parameters are exactly ri's (as text): the ranks of one
 * launch were given the same. */
static int same_params(db *d, int64_t run_id, const run_info *ri, char *err, size_t errlen)
{
    int64_t stored = 0;
    int found;
    if (query_one(d, "SELECT count(*) FROM params WHERE run_id = ?1", run_id, NULL, &stored, &found, err, errlen))
        return -1;
    for (int i = 0; i < ri->nparams; i++) {
        int64_t same = 0;
        char nv[512];
        snprintf(nv, sizeof nv, "%s=%s", ri->param_names[i], ri->param_values[i]);
        if (query_one(d, "SELECT count(*) FROM params WHERE run_id = ?1 AND name || '=' || value_text = ?2", run_id,
                      nv, &same, &found, err, errlen))
            return -1;
        if (!same) {
            snprintf(err, errlen, "%s: run %lld, which other ranks of this MPI launch stored, has no parameter %s: "
                     "give every rank the same --param options", d->path, (long long)run_id, nv);
            return -1;
        }
    }
    if (stored != ri->nparams) {
        snprintf(err, errlen, "%s: run %lld, which other ranks of this MPI launch stored, has %lld parameters and "
                 "this rank %d: give every rank the same --param options", d->path, (long long)run_id,
                 (long long)stored, ri->nparams);
        return -1;
    }
    return 0;
}

/* The run's block sizes are exactly the rank's. */
static int same_block_sizes(db *d, int64_t run_id, const profile *rank, char *err, size_t errlen)
{
    int64_t sizes = 0;
    int found;
    if (query_one(d, "SELECT count(*) FROM block_sizes WHERE run_id = ?1", run_id, NULL, &sizes, &found, err,
                  errlen))
        return -1;
    for (int i = 0; i < rank->nblock_sizes; i++) {
        int64_t has = 0;
        char bs[24];
        snprintf(bs, sizeof bs, "%u", rank->block_sizes[i]);
        if (query_one(d, "SELECT count(*) FROM block_sizes WHERE run_id = ?1 AND block_size = CAST(?2 AS INTEGER)",
                      run_id, bs, &has, &found, err, errlen))
            return -1;
        sizes -= has;
    }
    if (sizes == 0 && rank->nblock_sizes > 0)
        return 0;
    snprintf(err, errlen, "%s: run %lld of this MPI launch was collected with other --block-sizes than this rank: "
             "give every rank the same", d->path, (long long)run_id);
    return -1;
}

/* The run has the rank's rank count and not its rank yet. */
static int rank_open(db *d, int64_t run_id, const profile *rank, char *err, size_t errlen)
{
    int64_t size = 0, taken = 0;
    int found;
    char rank_text[24];
    snprintf(rank_text, sizeof rank_text, "%llu", (unsigned long long)rank->mpi.rank);
    if (query_one(d, "SELECT size FROM mpi_runs WHERE run_id = ?1", run_id, NULL, &size, &found, err, errlen) ||
        query_one(d, "SELECT count(*) FROM mpi_ranks WHERE run_id = ?1 AND rank = CAST(?2 AS INTEGER)", run_id,
                  rank_text, &taken, &found, err, errlen))
        return -1;
    if (size != (int64_t)rank->mpi.size) {
        snprintf(err, errlen, "%s: run %lld of this MPI launch has %lld ranks, this rank says %llu: the launch's "
                 "ranks disagree", d->path, (long long)run_id, (long long)size, (unsigned long long)rank->mpi.size);
        return -1;
    }
    if (taken) {
        snprintf(err, errlen, "%s: rank %llu of this MPI launch is stored already, in run %lld: each rank stores "
                 "once (was augur collect given twice in the launch's command?)", d->path,
                 (unsigned long long)rank->mpi.rank, (long long)run_id);
        return -1;
    }
    return 0;
}

int db_mpi_join_run(db *d, int64_t run_id, const run_info *ri, const profile *rank, int *position, char *err,
                    size_t errlen)
{
    int64_t next = 0;
    int found;
    if (rank_open(d, run_id, rank, err, errlen) || same_params(d, run_id, ri, err, errlen) ||
        same_block_sizes(d, run_id, rank, err, errlen) ||
        query_one(d, "SELECT coalesce(max(position), -1) + 1 FROM processes WHERE run_id = ?1", run_id, NULL, &next,
                  &found, err, errlen))
        return -1;
    *position = (int)next;
    return 0;
}

int db_mpi_add_rank(db *d, int64_t run_id, uint64_t rank, int64_t process_id, const run_info *ri, char *err,
                    size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d, "INSERT INTO mpi_ranks (run_id, rank, process_id, status, status_detail, exit_code) "
                      "VALUES (?, ?, ?, ?, ?, ?)", &st, DOING, err, errlen) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, (int64_t)rank);
    sqlite3_bind_int64(st, 3, process_id);
    db_bind_text(st, 4, ri->status);
    db_bind_text(st, 5, ri->status_detail ? ri->status_detail : "");
    sqlite3_bind_int(st, 6, ri->exit_code);
    if (db_step_final(d, st, DOING, err, errlen) != 0)
        return -1;
    /* The run: partial until every rank is stored, and while any rank is;
     * its detail names the ranks that did not end well and how many are
     * missing; its exit code the first non-zero rank's. */
    static const char settle[] =
        "UPDATE runs SET finished = ?2,"
        " status = CASE WHEN (SELECT count(*) FROM mpi_ranks WHERE run_id = ?1 AND status = 'complete') ="
        "   (SELECT size FROM mpi_runs WHERE run_id = ?1) THEN 'complete' ELSE 'partial' END,"
        " status_detail = trim(CASE WHEN (SELECT count(*) FROM mpi_ranks WHERE run_id = ?1) <"
        "   (SELECT size FROM mpi_runs WHERE run_id = ?1) THEN printf('ranks stored: %d of %d; ',"
        "   (SELECT count(*) FROM mpi_ranks WHERE run_id = ?1), (SELECT size FROM mpi_runs WHERE run_id = ?1))"
        "   ELSE '' END || coalesce((SELECT group_concat('rank ' || rank || ': ' || status_detail, '; ') FROM"
        "   (SELECT rank, status_detail FROM mpi_ranks WHERE run_id = ?1 AND status_detail != '' ORDER BY rank)), ''),"
        "   '; '),"
        " exit_code = coalesce((SELECT exit_code FROM mpi_ranks WHERE run_id = ?1 AND exit_code != 0"
        "   ORDER BY rank LIMIT 1), 0)"
        " WHERE id = ?1";
    if (db_prepare(d, settle, &st, DOING, err, errlen) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    db_bind_text(st, 2, ri->finished ? ri->finished : "");
    return db_step_final(d, st, DOING, err, errlen);
}

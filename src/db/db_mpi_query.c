/* db_mpi_query.c — reading MPI runs (docs/database.md, "MPI runs"): the
 * ranks of a run with their counts, and its MPI calls per call site and
 * peer, summed over the ranks (db.h). */
#include <stdlib.h>

#include "db/db_internal.h"

static int fill_rank(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    db_mpi_rank *r = elem;
    *r = (db_mpi_rank){.rank = sqlite3_column_int64(st, 0),
                       .size = sqlite3_column_int64(st, 1),
                       .status = db_column_strdup(st, 2),
                       .detail = db_column_strdup(st, 3),
                       .instructions = db_column_u64(st, 4),
                       .accesses = db_column_u64(st, 5),
                       .sent = db_column_u64(st, 6),
                       .received = db_column_u64(st, 7),
                       .calls = db_column_u64(st, 8)};
    return r->status && r->detail ? 0 : -1;
}

int db_mpi_ranks(db *d, int64_t run_id, db_mpi_rank **out, size_t *n, char *err, size_t errlen)
{
    /* An interval run's ranks are its parent's; its counts its own. */
    static const char sql[] =
        "SELECT k.rank, m.size, k.status, k.status_detail,"
        " (SELECT ifnull(sum(x.executions), 0) FROM processes q JOIN instructions x ON x.process_id = q.id"
        "  WHERE q.run_id = ?1 AND q.pid = p.pid),"
        " (SELECT ifnull(sum(x.reads + x.writes), 0) FROM processes q JOIN instructions x ON x.process_id = q.id"
        "  WHERE q.run_id = ?1 AND q.pid = p.pid),"
        " (SELECT ifnull(sum(bytes_sent), 0) FROM comm WHERE process_id = p.id),"
        " (SELECT ifnull(sum(bytes_received), 0) FROM comm WHERE process_id = p.id),"
        " (SELECT ifnull(sum(calls), 0) FROM comm WHERE process_id = p.id)"
        " FROM mpi_ranks k JOIN mpi_runs m ON m.run_id = k.run_id JOIN processes p ON p.id = k.process_id"
        " WHERE k.run_id = coalesce((SELECT parent_id FROM runs WHERE id = ?1), ?1) ORDER BY k.rank";
    db_row_array a = {(void **)out, n, 0, sizeof **out, fill_rank, NULL};
    *out = NULL;
    *n = 0;
    return db_query_rows(d, sql, run_id, 0, &a, "read the MPI ranks", err, errlen);
}

void db_mpi_ranks_free(db_mpi_rank *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].status);
        free(v[i].detail);
    }
    free(v);
}

static int fill_comm(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    db_comm_site *c = elem;
    *c = (db_comm_site){.function = db_column_strdup(st, 0),
                        .file = db_column_strdup(st, 1),
                        .line = sqlite3_column_int64(st, 2),
                        .stack = db_column_strdup(st, 3),
                        .peer = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4),
                        .ranks = db_column_u64(st, 5),
                        .calls = db_column_u64(st, 6),
                        .sent = db_column_u64(st, 7),
                        .received = db_column_u64(st, 8)};
    return c->function && c->stack ? 0 : -1;
}

int db_comm_sites(db *d, int64_t run_id, db_comm_site **out, size_t *n, char *err, size_t errlen)
{
    static const char sql[] =
        "SELECT f.name, fl.path, c.line, c.stack, c.peer, count(DISTINCT c.process_id), sum(c.calls),"
        " sum(c.bytes_sent), sum(c.bytes_received)"
        " FROM comm c JOIN processes p ON p.id = c.process_id JOIN functions f ON f.id = c.function_id"
        " LEFT JOIN files fl ON fl.id = c.file_id WHERE p.run_id = ?1"
        " GROUP BY f.name, fl.path, c.line, c.stack, c.peer"
        " ORDER BY sum(c.bytes_sent) + sum(c.bytes_received) DESC, f.name, fl.path, c.line, c.peer";
    db_row_array a = {(void **)out, n, 0, sizeof **out, fill_comm, NULL};
    *out = NULL;
    *n = 0;
    return db_query_rows(d, sql, run_id, 0, &a, "read the MPI calls", err, errlen);
}

void db_comm_sites_free(db_comm_site *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].function);
        free(v[i].file);
        free(v[i].stack);
    }
    free(v);
}

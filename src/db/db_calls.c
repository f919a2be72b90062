/* db_calls.c — a run's calls (table call_edges, schema version 8): who
 * called whom from which source line, and how often, summed over the run's
 * processes (db_run_calls in db.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"

#define DOING "read the run's calls"

/* One row of the query below: names and counts; `damaged` when the count
 * is no whole number from 0 to 2^63 - 1 (the importer stores nothing
 * else). */
typedef struct call_row {
    db_call c;
    int damaged;
} call_row;

static void free_members(db_call *c)
{
    free(c->caller), free(c->caller_module), free(c->file);
    free(c->callee), free(c->callee_module);
}

/* A copy of an optional text column: 0, or -1 when memory runs out. */
static int optional_text(sqlite3_stmt *st, int col, char **out)
{
    *out = db_column_strdup(st, col);
    return *out || sqlite3_column_type(st, col) == SQLITE_NULL ? 0 : -1;
}

static int fill_call(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    call_row *r = elem;
    r->c.line = (uint32_t)sqlite3_column_int64(st, 3);
    r->c.addr = db_column_u64(st, 4);
    r->damaged = sqlite3_column_type(st, 7) != SQLITE_INTEGER || sqlite3_column_int64(st, 7) < 0;
    r->c.count = (uint64_t)sqlite3_column_int64(st, 7);
    r->c.executions = (uint64_t)sqlite3_column_int64(st, 8); /* checked with the instructions (db_run_instructions) */
    char **text[] = {&r->c.caller, &r->c.caller_module, &r->c.file, NULL, NULL, &r->c.callee, &r->c.callee_module};
    for (int col = 0; col < 7; col++)
        if (text[col] && optional_text(st, col, text[col]) != 0)
            return -1;
    return 0;
}

int db_run_calls(db *d, int64_t run_id, db_call **out, size_t *n, char *err, size_t errlen)
{
    static const char sql[] =
        "SELECT fc.name, mc.path, fl.path, c.line, c.addr, fe.name, me.path, sum(e.count), "
        "(SELECT sum(i.executions) FROM processes q JOIN instructions i ON i.process_id = q.id "
        " WHERE q.run_id = ?1 AND i.module_id IS c.module_id AND i.addr = c.addr) "
        "FROM processes p JOIN instructions c ON c.process_id = p.id "
        "JOIN call_edges e ON e.call_id = c.id JOIN instructions t ON t.id = e.callee_id "
        "LEFT JOIN functions fc ON fc.id = c.function_id LEFT JOIN modules mc ON mc.id = c.module_id "
        "LEFT JOIN files fl ON fl.id = c.file_id "
        "LEFT JOIN functions fe ON fe.id = t.function_id LEFT JOIN modules me ON me.id = t.module_id "
        "WHERE p.run_id = ?1 "
        "GROUP BY c.function_id, c.module_id, c.file_id, c.line, c.addr, t.function_id, t.module_id "
        "ORDER BY c.module_id, c.addr, t.module_id, t.function_id";
    call_row *rows = NULL;
    size_t nrows = 0;
    db_row_array a = {(void **)&rows, &nrows, 0, sizeof *rows, fill_call, NULL};
    *out = NULL;
    *n = 0;
    int rc = db_query_rows(d, sql, run_id, 0, &a, DOING, err, errlen);
    for (size_t i = 0; rc == 0 && i < nrows; i++)
        if (rows[i].damaged) {
            snprintf(err, errlen, "%s: a call count of run %lld (from %s to %s) is not a count (a whole number "
                     "from 0 to 2^63 - 1): the database is damaged (delete the run and collect it again)",
                     d->path, (long long)run_id, rows[i].c.caller ? rows[i].c.caller : "(unknown)",
                     rows[i].c.callee ? rows[i].c.callee : "(unknown)");
            rc = -1;
        }
    db_call *calls = rc == 0 ? malloc((nrows + 1) * sizeof *calls) : NULL;
    if (rc == 0 && !calls) {
        snprintf(err, errlen, "%s: cannot %s: out of memory", d->path, DOING);
        rc = -1;
    }
    for (size_t i = 0; i < nrows; i++) {
        if (calls)
            calls[i] = rows[i].c;
        else
            free_members(&rows[i].c);
    }
    free(rows);
    if (rc == 0) {
        *out = calls;
        *n = nrows;
    }
    return rc;
}

void db_calls_free(db_call *c, size_t n)
{
    for (size_t i = 0; c && i < n; i++)
        free_members(&c[i]);
    free(c);
}

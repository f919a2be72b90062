/* db_sql.c — thin helpers over the SQLite API shared by src/db (see db_internal.h). */
#include "db/db_internal.h"
#include "util/array.h"
#include "util/json_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Write into fix[len] how to remedy the SQLite errors a user can do
 * something about ("" for the others). */
static void fix_for(int code, char *fix, size_t len)
{
    switch (code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        snprintf(fix, len,
                 " (another process has held the database for more than %d s: is another augur still "
                 "writing it? try again when it has finished)",
                 DB_BUSY_TIMEOUT_MS / 1000);
        break;
    case SQLITE_FULL:
        snprintf(fix, len, " (the disk is full: free some space and try again)");
        break;
    case SQLITE_READONLY:
        snprintf(fix, len, " (the database or its directory is read-only: make them writable or choose "
                           "another file with --db)");
        break;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        snprintf(fix, len, " (the file is damaged or not an augur database: choose another file with --db)");
        break;
    default:
        fix[0] = '\0';
    }
}

int db_fail(const db *d, const char *doing, char *err, size_t errlen)
{
    char fix[256];
    fix_for(sqlite3_extended_errcode(d->sql), fix, sizeof fix);
    snprintf(err, errlen, "%s: cannot %s: %s%s", d->path, doing, sqlite3_errmsg(d->sql), fix);
    return -1;
}

int db_prepare(db *d, const char *sql, sqlite3_stmt **st, const char *doing, char *err, size_t errlen)
{
    if (sqlite3_prepare_v2(d->sql, sql, -1, st, NULL) != SQLITE_OK) {
        *st = NULL;
        return db_fail(d, doing, err, errlen);
    }
    return 0;
}

int db_exec(db *d, const char *sql, const char *doing, char *err, size_t errlen)
{
    if (sqlite3_exec(d->sql, sql, NULL, NULL, NULL) != SQLITE_OK)
        return db_fail(d, doing, err, errlen);
    return 0;
}

int db_step_done(db *d, sqlite3_stmt *st, const char *doing, char *err, size_t errlen)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return db_fail(d, doing, err, errlen);
    return 0;
}

int db_step_final(db *d, sqlite3_stmt *st, const char *doing, char *err, size_t errlen)
{
    int rc = db_step_done(d, st, doing, err, errlen);
    sqlite3_finalize(st);
    return rc;
}

int db_bind_u64(sqlite3_stmt *st, int col, uint64_t v)
{
    if (v <= (uint64_t)INT64_MAX)
        return sqlite3_bind_int64(st, col, (sqlite3_int64)v);
    return sqlite3_bind_double(st, col, (double)v);
}

uint64_t db_column_u64(sqlite3_stmt *st, int col)
{
    if (sqlite3_column_type(st, col) == SQLITE_FLOAT) {
        double v = sqlite3_column_double(st, col);
        if (v <= 0)
            return 0;
        return v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v;
    }
    sqlite3_int64 v = sqlite3_column_int64(st, col);
    return v < 0 ? 0 : (uint64_t)v;
}

int db_bind_id(sqlite3_stmt *st, int col, int64_t id)
{
    return id ? sqlite3_bind_int64(st, col, id) : sqlite3_bind_null(st, col);
}

int db_bind_text(sqlite3_stmt *st, int col, const char *s)
{
    return s ? sqlite3_bind_text(st, col, s, -1, SQLITE_STATIC) : sqlite3_bind_null(st, col);
}

char *db_column_strdup(sqlite3_stmt *st, int col)
{
    const unsigned char *s = sqlite3_column_text(st, col);
    return s ? strdup((const char *)s) : NULL;
}

char *db_json_strings(char *const *v, size_t n)
{
    json_t *a = json_string_array(v, n);
    char *s = a ? json_dumps(a, JSON_COMPACT) : NULL;
    json_decref(a);
    return s;
}

int db_collect_rows(db *d, sqlite3_stmt *st, db_row_array *a, const char *doing, char *err, size_t errlen)
{
    int rc;
    *a->v = NULL;
    *a->n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        void *grown = array_grow(*a->v, *a->n, &a->cap, a->size);
        if (!grown)
            break;
        *a->v = grown;
        void *elem = (char *)*a->v + *a->n * a->size;
        memset(elem, 0, a->size);
        ++*a->n;
        if (a->fill(elem, st, a->ctx) != 0)
            break;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW) {
        snprintf(err, errlen, "%s: cannot %s: out of memory", d->path, doing);
        return -1;
    }
    return rc == SQLITE_DONE ? 0 : db_fail(d, doing, err, errlen);
}

int db_query_rows(db *d, const char *sql, int64_t p1, int64_t p2, db_row_array *a, const char *doing, char *err,
                  size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d, sql, &st, doing, err, errlen) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, p1);
    if (p2)
        sqlite3_bind_int64(st, 2, p2);
    return db_collect_rows(d, st, a, doing, err, errlen);
}

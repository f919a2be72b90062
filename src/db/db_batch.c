/* db_batch.c — multi-row INSERT statements for bulk imports (see db_internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"

void db_batch_init(db_batch *b, const char *insert, int ncols)
{
    memset(b, 0, sizeof *b);
    b->insert = insert;
    b->ncols = ncols;
}

static void put(db_batch *b, db_value v)
{
    b->values[b->nvalues++] = v;
}

void db_batch_int(db_batch *b, int64_t v)
{
    put(b, (db_value){.type = SQLITE_INTEGER, .i = v});
}

void db_batch_u64(db_batch *b, uint64_t v)
{
    if (v <= (uint64_t)INT64_MAX)
        put(b, (db_value){.type = SQLITE_INTEGER, .i = (int64_t)v});
    else
        put(b, (db_value){.type = SQLITE_FLOAT, .r = (double)v});
}

void db_batch_id(db_batch *b, int64_t id)
{
    put(b, id ? (db_value){.type = SQLITE_INTEGER, .i = id} : (db_value){.type = SQLITE_NULL});
}

void db_batch_null(db_batch *b)
{
    put(b, (db_value){.type = SQLITE_NULL});
}

/* Prepare "INSERT ... VALUES (?, ...), ..." for `rows` rows. */
static int prepare_rows(db *d, const db_batch *b, int rows, sqlite3_stmt **st, const char *doing, char *err,
                        size_t errlen)
{
    size_t row_len = 2 + 3 * (size_t)b->ncols, len = strlen(b->insert) + (size_t)rows * row_len + 1;
    char *sql = malloc(len), *o = sql;
    if (!sql) {
        snprintf(err, errlen, "%s: cannot %s: out of memory", d->path, doing);
        return -1;
    }
    o += sprintf(o, "%s", b->insert);
    for (int r = 0; r < rows; r++) {
        o += sprintf(o, r ? ",(" : "(");
        for (int c = 0; c < b->ncols; c++)
            o += sprintf(o, c ? ",?" : "?");
        *o++ = ')';
    }
    *o = '\0';
    int rc = db_prepare(d, sql, st, doing, err, errlen);
    free(sql);
    return rc;
}

/* Bind the waiting values to st and insert them. */
static int insert_values(db *d, db_batch *b, sqlite3_stmt *st, const char *doing, char *err, size_t errlen)
{
    for (int k = 0; k < b->nvalues; k++) {
        const db_value *v = &b->values[k];
        if (v->type == SQLITE_INTEGER)
            sqlite3_bind_int64(st, k + 1, v->i);
        else if (v->type == SQLITE_FLOAT)
            sqlite3_bind_double(st, k + 1, v->r);
        else
            sqlite3_bind_null(st, k + 1);
    }
    b->nvalues = 0;
    return db_step_done(d, st, doing, err, errlen);
}

int db_batch_row(db *d, db_batch *b, const char *doing, char *err, size_t errlen)
{
    if (b->nvalues < DB_BATCH_ROWS * b->ncols)
        return 0;
    if (!b->full && prepare_rows(d, b, DB_BATCH_ROWS, &b->full, doing, err, errlen) != 0)
        return -1;
    return insert_values(d, b, b->full, doing, err, errlen);
}

int db_batch_flush(db *d, db_batch *b, const char *doing, char *err, size_t errlen)
{
    int rows = b->nvalues / b->ncols;
    if (rows == 0)
        return 0;
    sqlite3_stmt *st;
    if (prepare_rows(d, b, rows, &st, doing, err, errlen) != 0)
        return -1;
    int rc = insert_values(d, b, st, doing, err, errlen);
    sqlite3_finalize(st);
    return rc;
}

void db_batch_free(db_batch *b)
{
    sqlite3_finalize(b->full);
    b->full = NULL;
    b->nvalues = 0;
}

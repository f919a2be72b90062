/* db_static.c — the static models of `augur static --db`: stored per
 * build-id (a new model of a build replaces the old one), and read back
 * by the commands that compare or fit with them (docs/database.md,
 * "Static models"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"

#define DOING_PUT "store the static model"
#define DOING_GET "read the static model"

/* Insert the model's row, its id into *id. */
static int put_model(db *d, const db_static_model *m, int64_t *id, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d,
                   "INSERT INTO static_models (build_id, path, created, augur_version, unknowns, warnings) "
                   "VALUES (?, ?, ?, ?, ?, ?)",
                   &st, DOING_PUT, err, errlen) != 0)
        return -1;
    const char *v[] = {m->build_id, m->path, m->created, m->augur_version, m->unknowns, m->warnings};
    for (int k = 0; k < 6; k++)
        sqlite3_bind_text(st, k + 1, v[k], -1, SQLITE_STATIC);
    int rc = db_step_done(d, st, DOING_PUT, err, errlen);
    sqlite3_finalize(st);
    *id = sqlite3_last_insert_rowid(d->sql);
    return rc;
}

static int put_scopes(db *d, const db_static_model *m, int64_t id, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d,
                   "INSERT INTO static_scopes (model_id, position, kind, function, file, first_line, last_line, "
                   "parent, unknowns, formulas, forms, binary_loops) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   &st, DOING_PUT, err, errlen) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < m->nscopes && rc == 0; i++) {
        const db_static_scope *s = &m->scopes[i];
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_int64(st, 2, (int64_t)i);
        sqlite3_bind_text(st, 3, s->kind, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, s->function, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, s->file, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 6, s->first_line);
        sqlite3_bind_int(st, 7, s->last_line);
        if (s->parent >= 0)
            sqlite3_bind_int(st, 8, s->parent);
        else
            sqlite3_bind_null(st, 8);
        sqlite3_bind_text(st, 9, s->unknowns, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 10, s->formulas, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 11, s->forms, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 12, s->binary_loops ? s->binary_loops : "[]", -1, SQLITE_STATIC);
        rc = db_step_done(d, st, DOING_PUT, err, errlen);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Delete the model of build_id and its scopes (SQLite enforces no foreign
 * keys, and so cascades nothing, unless a connection asks it to). */
static int delete_model(db *d, const char *build_id, char *err, size_t errlen)
{
    static const char *const sql[] = {
        "DELETE FROM static_scopes WHERE model_id IN (SELECT id FROM static_models WHERE build_id = ?)",
        "DELETE FROM static_models WHERE build_id = ?"};
    int rc = 0;
    for (int k = 0; k < 2 && rc == 0; k++) {
        sqlite3_stmt *st;
        rc = db_prepare(d, sql[k], &st, DOING_PUT, err, errlen);
        if (rc == 0) {
            sqlite3_bind_text(st, 1, build_id, -1, SQLITE_STATIC);
            rc = db_step_done(d, st, DOING_PUT, err, errlen);
            sqlite3_finalize(st);
        }
    }
    return rc;
}

int db_static_put(db *d, const db_static_model *m, char *err, size_t errlen)
{
    if (db_exec(d, "BEGIN IMMEDIATE", DOING_PUT, err, errlen) != 0)
        return -1;
    int64_t id = 0;
    int rc = delete_model(d, m->build_id, err, errlen);
    if (rc == 0)
        rc = put_model(d, m, &id, err, errlen);
    if (rc == 0)
        rc = put_scopes(d, m, id, err, errlen);
    if (rc == 0)
        rc = db_exec(d, "COMMIT", DOING_PUT, err, errlen);
    if (rc != 0)
        sqlite3_exec(d->sql, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

static int fill_scope(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    db_static_scope *s = elem;
    s->kind = db_column_strdup(st, 0);
    s->function = db_column_strdup(st, 1);
    s->file = db_column_strdup(st, 2);
    s->first_line = sqlite3_column_int(st, 3);
    s->last_line = sqlite3_column_int(st, 4);
    s->parent = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 5);
    s->unknowns = db_column_strdup(st, 6);
    s->formulas = db_column_strdup(st, 7);
    s->forms = db_column_strdup(st, 8);
    s->binary_loops = db_column_strdup(st, 9);
    return s->kind && s->function && s->file && s->unknowns && s->formulas && s->forms && s->binary_loops ? 0 : -1;
}

/* The model's row into *out; *id its id. */
static int get_model(db *d, const char *build_id, db_static_model *out, int64_t *id, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d,
                   "SELECT id, build_id, path, created, augur_version, unknowns, warnings FROM static_models "
                   "WHERE build_id = ?",
                   &st, DOING_GET, err, errlen) != 0)
        return -1;
    sqlite3_bind_text(st, 1, build_id, -1, SQLITE_STATIC);
    int step = sqlite3_step(st), rc = DB_NOT_FOUND;
    if (step == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
        char **v[] = {&out->build_id, &out->path, &out->created, &out->augur_version, &out->unknowns,
                      &out->warnings};
        rc = 0;
        for (int k = 0; k < 6; k++)
            if (!(*v[k] = db_column_strdup(st, k + 1)))
                rc = -1;
        if (rc != 0)
            snprintf(err, errlen, "%s: cannot %s: out of memory", d->path, DOING_GET);
    } else if (step != SQLITE_DONE) {
        rc = db_fail(d, DOING_GET, err, errlen);
    }
    sqlite3_finalize(st);
    return rc;
}

int db_static_get(db *d, const char *build_id, db_static_model *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int64_t id = 0;
    int rc = get_model(d, build_id, out, &id, err, errlen);
    if (rc == 0) {
        db_row_array a = {(void **)&out->scopes, &out->nscopes, 0, sizeof *out->scopes, fill_scope, NULL};
        rc = db_query_rows(d,
                           "SELECT kind, function, file, first_line, last_line, parent, unknowns, formulas, forms, binary_loops "
                           "FROM static_scopes WHERE model_id = ?1 ORDER BY position",
                           id, 0, &a, DOING_GET, err, errlen);
    }
    if (rc != 0)
        db_static_model_free(out);
    return rc;
}

void db_static_model_free(db_static_model *m)
{
    for (size_t i = 0; i < m->nscopes; i++) {
        db_static_scope *s = &m->scopes[i];
        free(s->kind), free(s->function), free(s->file), free(s->unknowns), free(s->formulas), free(s->forms),
            free(s->binary_loops);
    }
    free(m->scopes);
    free(m->build_id), free(m->path), free(m->created), free(m->augur_version), free(m->unknowns),
        free(m->warnings);
    memset(m, 0, sizeof *m);
}

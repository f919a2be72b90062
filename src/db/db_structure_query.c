/* db_structure_query.c — reading stored structure back, and joining it with
 * the profiles of a run: counts per scope and instruction class, loop
 * entries and iterations, indirect-jump targets seen at run time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "structure/structure.h"

#define DOING "read the structure"

/* Matches the run's module rows (alias m) to the binary (alias b). */
#define MODULE_MATCH "((b.build_id <> '' AND m.build_id = b.build_id) OR (b.build_id = '' AND m.path = b.path))"

static int oom(const db *d, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: cannot %s: out of memory", d->path, DOING);
    return -1;
}

static int fill_target(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    st_jump_target *t = elem;
    t->jump = db_column_u64(st, 0);
    t->target = db_column_u64(st, 1);
    return 0;
}

int db_indirect_targets(db *d, const char *build_id, st_jump_target **out, size_t *n, char *err, size_t errlen)
{
    static const char sql[] = "SELECT DISTINCT i.addr, t.addr FROM branch_targets t"
                              " JOIN instructions i ON i.id = t.instruction_id"
                              " JOIN modules m ON m.id = i.module_id"
                              " WHERE m.build_id = ? AND t.module_id = i.module_id";
    sqlite3_stmt *st;
    *out = NULL;
    *n = 0;
    if (!build_id || !*build_id)
        return 0;
    if (db_prepare(d, sql, &st, DOING, err, errlen) != 0)
        return -1;
    sqlite3_bind_text(st, 1, build_id, -1, SQLITE_STATIC);
    db_row_array a = {(void **)out, n, 0, sizeof **out, fill_target, NULL};
    return db_collect_rows(d, st, &a, DOING, err, errlen);
}

int db_get_binary(db *d, int64_t binary_id, db_binary *out, char *err, size_t errlen)
{
    static const char sql[] = "SELECT key, build_id, path, warnings, stripped, has_dwarf, text_bytes, functions,"
                              " instructions, loops FROM binaries WHERE id = ?";
    sqlite3_stmt *st;
    memset(out, 0, sizeof *out);
    if (db_prepare(d, sql, &st, DOING, err, errlen) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, binary_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        out->id = binary_id;
        out->key = db_column_strdup(st, 0);
        out->build_id = db_column_strdup(st, 1);
        out->path = db_column_strdup(st, 2);
        out->warnings = db_column_strdup(st, 3);
        out->stripped = sqlite3_column_int(st, 4);
        out->has_dwarf = sqlite3_column_int(st, 5);
        out->text_bytes = db_column_u64(st, 6);
        out->functions = db_column_u64(st, 7);
        out->instructions = db_column_u64(st, 8);
        out->loops = db_column_u64(st, 9);
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE) {
        snprintf(err, errlen, "%s: no stored structure with id %lld", d->path, (long long)binary_id);
        return DB_NOT_FOUND;
    }
    if (rc != SQLITE_ROW)
        return db_fail(d, DOING, err, errlen);
    return out->key && out->build_id && out->path && out->warnings ? 0 : oom(d, err, errlen);
}

void db_binary_free(db_binary *b)
{
    free(b->key), free(b->build_id), free(b->path), free(b->warnings);
    memset(b, 0, sizeof *b);
}

static int read_scope(sqlite3_stmt *st, db_scope *s)
{
    memset(s, 0, sizeof *s);
    s->id = sqlite3_column_int64(st, 0);
    s->parent = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
    s->kind = db_column_strdup(st, 2);
    s->name = db_column_strdup(st, 3);
    s->file = db_column_strdup(st, 4);
    s->first_line = (uint32_t)sqlite3_column_int64(st, 5);
    s->last_line = (uint32_t)sqlite3_column_int64(st, 6);
    s->entry_addr = db_column_u64(st, 7);
    s->folded = (uint32_t)sqlite3_column_int(st, 8);
    s->call_file = db_column_strdup(st, 9);
    s->call_line = (uint32_t)sqlite3_column_int64(st, 10);
    s->instructions = db_column_u64(st, 11);
    return s->kind && s->name ? 0 : -1;
}

static int fill_scope(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    return read_scope(st, elem);
}

int db_get_scopes(db *d, int64_t binary_id, db_scope **out, size_t *n, char *err, size_t errlen)
{
    static const char sql[] =
        "SELECT s.id, s.parent, s.kind, s.name, s.file, s.first_line, s.last_line, s.entry_addr, s.folded,"
        " s.call_file, s.call_line, coalesce(c.n, 0) FROM scopes s"
        " LEFT JOIN (SELECT scope, count(*) AS n FROM static_instructions WHERE binary_id = ?1 GROUP BY scope) c"
        " ON c.scope = s.id WHERE s.binary_id = ?1 ORDER BY s.id";
    db_row_array a = {(void **)out, n, 0, sizeof **out, fill_scope, NULL};
    return db_query_rows(d, sql, binary_id, 0, &a, DOING, err, errlen);
}

void db_scopes_free(db_scope *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        free(s[i].kind), free(s[i].name), free(s[i].file), free(s[i].call_file);
    free(s);
}

static int fill_scope_count(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    *(db_scope_count *)elem = (db_scope_count){sqlite3_column_int64(st, 0), sqlite3_column_int(st, 1),
                                                db_column_u64(st, 2), db_column_u64(st, 3), db_column_u64(st, 4),
                                                db_column_u64(st, 5)};
    return 0;
}

int db_scope_counts(db *d, int64_t run_id, int64_t binary_id, db_scope_count **out, size_t *n, char *err,
                    size_t errlen)
{
    static const char sql[] =
        "SELECT s.scope, s.class, sum(i.executions), sum(i.executions * s.flops), sum(i.reads), sum(i.writes)"
        /* CROSS JOIN fixes the order: from the run's few instructions to
         * the binary's many static ones, by index */
        " FROM processes p CROSS JOIN instructions i ON i.process_id = p.id"
        " CROSS JOIN modules m ON m.id = i.module_id"
        " CROSS JOIN binaries b ON b.id = ?2 AND " MODULE_MATCH
        " JOIN static_instructions s ON s.binary_id = b.id AND s.addr = i.addr"
        " WHERE p.run_id = ?1 GROUP BY s.scope, s.class";
    db_row_array a = {(void **)out, n, 0, sizeof **out, fill_scope_count, NULL};
    return db_query_rows(d, sql, run_id, binary_id, &a, DOING, err, errlen);
}

static int fill_loop_count(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    *(db_loop_count *)elem = (db_loop_count){sqlite3_column_int64(st, 0), db_column_u64(st, 1), db_column_u64(st, 2)};
    return 0;
}

int db_loop_counts(db *d, int64_t run_id, int64_t binary_id, db_loop_count **out, size_t *n, char *err,
                   size_t errlen)
{
    static const char sql[] =
        "SELECT e.scope,"
        " sum(CASE e.kind WHEN 'header' THEN i.executions ELSE 0 END),"
        " sum(CASE e.kind WHEN 'back_taken' THEN i.taken"
        "                 WHEN 'back_fallthrough' THEN i.executions - i.taken"
        "                 WHEN 'back_always' THEN i.executions ELSE 0 END)"
        " FROM processes p CROSS JOIN instructions i ON i.process_id = p.id"
        " CROSS JOIN modules m ON m.id = i.module_id"
        " CROSS JOIN binaries b ON b.id = ?2 AND " MODULE_MATCH
        " JOIN loop_edges e ON e.binary_id = b.id AND e.addr = i.addr"
        " WHERE p.run_id = ?1 GROUP BY e.scope ORDER BY e.scope";
    db_row_array a = {(void **)out, n, 0, sizeof **out, fill_loop_count, NULL};
    return db_query_rows(d, sql, run_id, binary_id, &a, DOING, err, errlen);
}

static int fill_run_module(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    db_run_module *m = elem;
    m->path = db_column_strdup(st, 0);
    m->build_id = db_column_strdup(st, 1);
    m->is_program = sqlite3_column_int(st, 2); /* NULL (program unknown) reads as 0 */
    return m->path && m->build_id ? 0 : -1;
}

int db_run_modules(db *d, int64_t run_id, db_run_module **out, size_t *n, char *err, size_t errlen)
{
    static const char sql[] = "SELECT m.path, m.build_id, m.id = ?2 FROM modules m WHERE m.id IN"
                              " (SELECT DISTINCT i.module_id FROM instructions i"
                              "  JOIN processes p ON p.id = i.process_id WHERE p.run_id = ?1)"
                              " ORDER BY m.id = ?2 DESC, m.id"; /* program first */
    int64_t program;
    *out = NULL;
    *n = 0;
    if (db_run_program_id(d, run_id, &program, err, errlen) != 0)
        return -1;
    db_row_array a = {(void **)out, n, 0, sizeof **out, fill_run_module, NULL};
    return db_query_rows(d, sql, run_id, program, &a, DOING, err, errlen);
}

void db_run_modules_free(db_run_module *m, size_t n)
{
    for (size_t i = 0; m && i < n; i++)
        free(m[i].path), free(m[i].build_id);
    free(m);
}

static int fill_unit(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    st_unit *u = elem;
    u->file = db_column_strdup(st, 0);
    u->producer = db_column_strdup(st, 1);
    return u->file && u->producer ? 0 : -1;
}

int db_binary_units(db *d, int64_t binary_id, st_unit **out, size_t *n, char *err, size_t errlen)
{
    static const char sql[] = "SELECT file, producer FROM binary_units WHERE binary_id = ?1 ORDER BY position";
    *out = NULL;
    *n = 0;
    db_row_array a = {(void **)out, n, 0, sizeof **out, fill_unit, NULL};
    return db_query_rows(d, sql, binary_id, 0, &a, DOING, err, errlen);
}

static int fill_static_insn(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    *(db_static_insn *)elem = (db_static_insn){.addr = db_column_u64(st, 0),
                                               .len = (uint32_t)sqlite3_column_int64(st, 1),
                                               .scope = sqlite3_column_int64(st, 2),
                                               .line = (uint32_t)sqlite3_column_int64(st, 3),
                                               .cls = sqlite3_column_int(st, 4),
                                               .loads = sqlite3_column_int(st, 5),
                                               .stores = sqlite3_column_int(st, 6)};
    return 0;
}

int db_static_instructions(db *d, int64_t binary_id, db_static_insn **out, size_t *n, char *err, size_t errlen)
{
    static const char sql[] = "SELECT addr, len, scope, line, class, loads, stores FROM static_instructions"
                              " WHERE binary_id = ?1 ORDER BY addr";
    *out = NULL;
    *n = 0;
    db_row_array a = {(void **)out, n, 0, sizeof **out, fill_static_insn, NULL};
    return db_query_rows(d, sql, binary_id, 0, &a, DOING, err, errlen);
}

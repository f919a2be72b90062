/* db_structure.c — storing the static structure of binaries (scopes,
 * instructions with their classes, loop edges, address formulas and loop
 * dependences) and the queries that join it with the runs' profiles.
 * Tables: docs/database.md, section "Structure". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "db/db_internal.h"
#include "structure/structure.h"

#ifndef AUGUR_VERSION
#define AUGUR_VERSION "unknown"
#endif

#define DOING_STORE "store the structure"
#define DOING_READ "read the structure"


void db_binary_key(const char *path, const char *build_id, char *key, size_t keylen)
{
    struct stat sb;
    int have = stat(path, &sb) == 0;
    if (build_id && *build_id && have) /* a stripped copy of a build is a different file to analyse */
        snprintf(key, keylen, "%s:%lld", build_id, (long long)sb.st_size);
    else if (build_id && *build_id)
        snprintf(key, keylen, "%s", build_id);
    else if (have)
        snprintf(key, keylen, "file:%s:%lld:%lld", path, (long long)sb.st_size, (long long)sb.st_mtime);
    else
        snprintf(key, keylen, "file:%s", path);
}

/* The id of the binary `sql` selects with `value` bound to ?1; DB_NOT_FOUND,
 * with a message naming `what`, when none. */
static int find_binary_by(db *d, const char *sql, const char *value, const char *what, int64_t *binary_id,
                          char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d, sql, &st, DOING_READ, err, errlen) != 0)
        return -1;
    sqlite3_bind_text(st, 1, value, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *binary_id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW)
        return 0;
    if (rc == SQLITE_DONE) {
        snprintf(err, errlen, "%s: no structure stored for %s%s", d->path, what, value);
        return DB_NOT_FOUND;
    }
    return db_fail(d, DOING_READ, err, errlen);
}

int db_find_binary(db *d, const char *key, int64_t *binary_id, char *err, size_t errlen)
{
    return find_binary_by(d, "SELECT id FROM binaries WHERE key = ?1", key, "", binary_id, err, errlen);
}

int db_binary_of_build(db *d, const char *build_id, int64_t *binary_id, char *err, size_t errlen)
{
    /* a stripped copy of the build is a row of its own: the one with DWARF first */
    return find_binary_by(d,
                          "SELECT id FROM binaries WHERE build_id = ?1 AND build_id <> ''"
                          " ORDER BY has_dwarf DESC, stripped, id LIMIT 1",
                          build_id ? build_id : "", "build-id ", binary_id, err, errlen);
}

/* ---- storing ------------------------------------------------------------- */

/* The statements of one store, prepared once. */
enum { S_BINARY, S_SCOPE, S_EDGE, S_MEMOP, S_UNIT, NSTORE };
static const char *const store_sql[NSTORE] = {
    "INSERT INTO binaries (key, build_id, path, stripped, has_dwarf, text_bytes, functions, instructions, loops, "
    "warnings, analysed, augur_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    "INSERT INTO scopes (binary_id, id, parent, kind, name, file, first_line, last_line, entry_addr, folded, "
    "call_file, call_line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    "INSERT INTO loop_edges (binary_id, scope, kind, addr) VALUES (?, ?, ?, ?)",
    "INSERT INTO memory_operands (binary_id, addr, operand, access, size, formula, loops, strides) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    "INSERT INTO binary_units (binary_id, position, file, producer) VALUES (?, ?, ?, ?)",
};

typedef struct storer {
    db *d;
    const st_module *m;
    int64_t id;
    sqlite3_stmt *st[NSTORE];
    db_batch insns, deps;
    void (*progress)(void *ctx, size_t done, size_t total);
    void *progress_ctx;
    char *err;
    size_t errlen;
} storer;

static int done(storer *s, int k)
{
    return db_step_done(s->d, s->st[k], DOING_STORE, s->err, s->errlen);
}

static int store_binary(storer *s, const char *key)
{
    const st_module *m = s->m;
    uint64_t insns = 0, loops = 0;
    for (size_t i = 0; i < m->nfunctions; i++)
        insns += m->functions[i].ninsns, loops += m->functions[i].nloops;
    char when[32], *warnings = db_json_strings(m->warnings, m->nwarnings);
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    sqlite3_stmt *st = s->st[S_BINARY];
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, m->build_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, m->path, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, !!(m->flags & ST_NO_SYMBOLS));
    sqlite3_bind_int(st, 5, !(m->flags & ST_NO_DWARF));
    db_bind_u64(st, 6, m->text_bytes);
    db_bind_u64(st, 7, m->nfunctions);
    db_bind_u64(st, 8, insns);
    db_bind_u64(st, 9, loops);
    sqlite3_bind_text(st, 10, warnings ? warnings : "[]", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 11, when, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 12, AUGUR_VERSION, -1, SQLITE_STATIC);
    free(warnings);
    if (done(s, S_BINARY) != 0)
        return -1;
    s->id = sqlite3_last_insert_rowid(s->d->sql);
    return 0;
}

static int store_scopes(storer *s)
{
    sqlite3_stmt *st = s->st[S_SCOPE];
    for (size_t i = 0; i < s->m->nscopes; i++) {
        const st_scope *sc = &s->m->scopes[i];
        sqlite3_bind_int64(st, 1, s->id);
        sqlite3_bind_int64(st, 2, (int64_t)i);
        if (sc->parent < 0)
            sqlite3_bind_null(st, 3);
        else
            sqlite3_bind_int64(st, 3, sc->parent);
        sqlite3_bind_text(st, 4, st_scope_kind_name((enum st_scope_kind)sc->kind), -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, sc->name, -1, SQLITE_STATIC);
        db_bind_text(st, 6, sc->file);
        db_bind_id(st, 7, sc->first_line);
        db_bind_id(st, 8, sc->last_line);
        db_bind_u64(st, 9, sc->entry_addr);
        sqlite3_bind_int(st, 10, (int)sc->nfolded);
        db_bind_text(st, 11, sc->call_file);
        db_bind_id(st, 12, sc->call_line);
        if (done(s, S_SCOPE) != 0)
            return -1;
    }
    return 0;
}

static int store_units(storer *s)
{
    sqlite3_stmt *st = s->st[S_UNIT];
    for (size_t i = 0; i < s->m->nunits; i++) {
        sqlite3_bind_int64(st, 1, s->id);
        sqlite3_bind_int64(st, 2, (int64_t)i);
        sqlite3_bind_text(st, 3, s->m->units[i].file, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, s->m->units[i].producer, -1, SQLITE_STATIC);
        if (done(s, S_UNIT) != 0)
            return -1;
    }
    return 0;
}

static int store_instructions(storer *s, size_t fi)
{
    const st_function *f = &s->m->functions[fi];
    for (uint32_t i = 0; i < f->ninsns; i++) {
        const st_insn *in = &f->insns[i];
        const st_place *p = &s->m->places[fi][i];
        db_batch *b = &s->insns;
        db_batch_int(b, s->id);
        db_batch_u64(b, in->addr);
        db_batch_int(b, in->len);
        db_batch_int(b, p->scope);
        db_batch_id(b, p->line);
        db_batch_int(b, in->cls);
        db_batch_int(b, in->width);
        db_batch_int(b, in->elem_bits);
        db_batch_int(b, st_insn_flops(in));
        db_batch_int(b, in->nloads);
        db_batch_int(b, in->nstores);
        if (db_batch_row(s->d, b, DOING_STORE, s->err, s->errlen) != 0)
            return -1;
    }
    return 0;
}

static int store_edge(storer *s, uint32_t scope, const char *kind, uint64_t addr)
{
    sqlite3_stmt *st = s->st[S_EDGE];
    sqlite3_bind_int64(st, 1, s->id);
    sqlite3_bind_int64(st, 2, scope);
    sqlite3_bind_text(st, 3, kind, -1, SQLITE_STATIC);
    db_bind_u64(st, 4, addr);
    return done(s, S_EDGE);
}

/* Each loop's header, and how to count each back edge from the profile
 * of its source block's last instruction. */
static int store_loop_edges(storer *s, size_t fi)
{
    const st_function *f = &s->m->functions[fi];
    for (uint32_t l = 0; l < f->nloops; l++) {
        const st_loop *L = &f->loops[l];
        uint32_t scope = s->m->loop_scopes[fi][l];
        if (store_edge(s, scope, "header", f->insns[f->blocks[L->header].first].addr) != 0)
            return -1;
        for (uint32_t k = 0; k < L->nback; k++) {
            const st_edge *e = &f->edges[L->back[k]];
            const st_block *src = &f->blocks[e->from];
            const st_insn *last = &f->insns[src->first + src->n - 1];
            const char *kind = e->kind == ST_EDGE_TAKEN ? "back_taken"
                               : last->flow == ST_FLOW_CJUMP ? "back_fallthrough"
                                                             : "back_always";
            if (store_edge(s, scope, kind, last->addr) != 0)
                return -1;
        }
    }
    return 0;
}

/* "[5, 4]" and "[8, null]": the loops' scopes and strides, innermost first. */
static void loop_lists(const storer *s, size_t fi, const st_addr *a, char *loops, char *strides, size_t len)
{
    size_t lu = (size_t)snprintf(loops, len, "["), su = (size_t)snprintf(strides, len, "[");
    for (uint32_t k = 0; k < a->nloops && lu < len && su < len; k++) {
        const char *sep = k ? ", " : "";
        lu += (size_t)snprintf(loops + lu, len - lu, "%s%u", sep, s->m->loop_scopes[fi][a->loops[k]]);
        if (a->stride[k] == ST_STRIDE_UNKNOWN)
            su += (size_t)snprintf(strides + su, len - su, "%snull", sep);
        else
            su += (size_t)snprintf(strides + su, len - su, "%s%lld", sep, (long long)a->stride[k]);
    }
    if (lu < len)
        snprintf(loops + lu, len - lu, "]");
    if (su < len)
        snprintf(strides + su, len - su, "]");
}

/* Address formulas of the memory operands inside loops (outside loops a
 * formula has no stride to tell). */
static int store_memops(storer *s, size_t fi)
{
    const st_function *f = &s->m->functions[fi];
    const st_dataflow *df = &s->m->dataflow[fi];
    sqlite3_stmt *st = s->st[S_MEMOP];
    for (size_t k = 0; k < df->naddrs; k++) {
        const st_addr *a = &df->addrs[k];
        if (a->nloops == 0)
            continue;
        const st_memop *op = &f->insns[a->insn].mem[a->memop];
        char formula[256], loops[160], strides[256];
        st_addr_format(a, formula, sizeof formula);
        loop_lists(s, fi, a, loops, strides, sizeof loops);
        sqlite3_bind_int64(st, 1, s->id);
        db_bind_u64(st, 2, f->insns[a->insn].addr);
        sqlite3_bind_int(st, 3, a->memop);
        sqlite3_bind_text(st, 4, op->access == (ST_MEM_READ | ST_MEM_WRITE) ? "read-write"
                                 : op->access == ST_MEM_WRITE           ? "write"
                                                                         : "read", -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 5, op->size);
        sqlite3_bind_text(st, 6, formula, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 7, loops, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 8, strides, -1, SQLITE_TRANSIENT);
        if (done(s, S_MEMOP) != 0)
            return -1;
    }
    return 0;
}

/* Register dependences whose use lies in a loop: the loop bodies are what
 * a schedule is computed for.  `looped` is scratch of f->ninsns bytes. */
static int store_deps(storer *s, size_t fi, uint8_t *looped)
{
    const st_function *f = &s->m->functions[fi];
    const st_dataflow *df = &s->m->dataflow[fi];
    db_batch *b = &s->deps;
    for (uint32_t k = 0; k < f->nblocks; k++)
        memset(looped + f->blocks[k].first, f->blocks[k].loop >= 0, f->blocks[k].n);
    for (size_t k = 0; k < df->ndeps; k++) {
        const st_dep *dp = &df->deps[k];
        if (!looped[dp->use])
            continue;
        db_batch_int(b, s->id);
        db_batch_u64(b, f->insns[dp->use].addr);
        db_batch_u64(b, f->insns[dp->def].addr);
        db_batch_int(b, dp->reg);
        db_batch_id(b, dp->carried && dp->loop >= 0 ? s->m->loop_scopes[fi][dp->loop] : 0); /* a loop is never scope 0 */
        if (db_batch_row(s->d, b, DOING_STORE, s->err, s->errlen) != 0)
            return -1;
    }
    return 0;
}

static int store_functions(storer *s)
{
    size_t most = 1;
    for (size_t fi = 0; fi < s->m->nfunctions; fi++)
        if (s->m->functions[fi].ninsns > most)
            most = s->m->functions[fi].ninsns;
    uint8_t *looped = malloc(most);
    if (!looped) {
        snprintf(s->err, s->errlen, "%s: cannot %s: out of memory", s->d->path, DOING_STORE);
        return -1;
    }
    int rc = 0;
    size_t n = s->m->nfunctions;
    for (size_t fi = 0; fi < n && rc == 0; fi++) {
        rc = store_instructions(s, fi) || store_loop_edges(s, fi) || store_memops(s, fi) ||
             store_deps(s, fi, looped);
        if (s->progress && (fi % ST_PROGRESS_EVERY == ST_PROGRESS_EVERY - 1 || fi + 1 == n))
            s->progress(s->progress_ctx, fi + 1, n);
    }
    free(looped);
    if (rc == 0)
        rc = db_batch_flush(s->d, &s->insns, DOING_STORE, s->err, s->errlen);
    return rc == 0 ? db_batch_flush(s->d, &s->deps, DOING_STORE, s->err, s->errlen) : -1;
}

/* Inside the caller's transaction: the key's id if another process stored
 * it meanwhile, else everything. */
static int store_all(storer *s, const char *key, int64_t *binary_id)
{
    int rc = db_find_binary(s->d, key, binary_id, s->err, s->errlen);
    if (rc != DB_NOT_FOUND)
        return rc;
    for (int k = 0; k < NSTORE; k++)
        if (db_prepare(s->d, store_sql[k], &s->st[k], DOING_STORE, s->err, s->errlen) != 0)
            return -1;
    if (store_binary(s, key) != 0 || store_units(s) != 0 || store_scopes(s) != 0 || store_functions(s) != 0)
        return -1;
    *binary_id = s->id;
    return 0;
}

int db_store_structure(db *d, const char *key, const st_module *m, int64_t *binary_id,
                       void (*progress)(void *ctx, size_t done, size_t total), void *progress_ctx, char *err,
                       size_t errlen)
{
    storer *s = calloc(1, sizeof *s); /* large: the batch keeps its values */
    if (!s) {
        snprintf(err, errlen, "%s: cannot %s: out of memory", d->path, DOING_STORE);
        return -1;
    }
    *s = (storer){.d = d, .m = m, .progress = progress, .progress_ctx = progress_ctx, .err = err, .errlen = errlen};
    db_batch_init(&s->insns,
                  "INSERT INTO static_instructions (binary_id, addr, len, scope, line, class, width, elem_bits, "
                  "flops, loads, stores) VALUES ",
                  11);
    db_batch_init(&s->deps, "INSERT OR IGNORE INTO dependences (binary_id, use_addr, def_addr, reg, carried_by) VALUES ",
                  5);
    /* a larger page cache: a big binary writes hundreds of MB in one transaction */
    int rc = db_exec(d, "PRAGMA cache_size = -65536; BEGIN IMMEDIATE", DOING_STORE, err, errlen);
    if (rc == 0)
        rc = store_all(s, key, binary_id);
    if (rc == 0)
        rc = db_exec(d, "COMMIT", DOING_STORE, err, errlen);
    else
        sqlite3_exec(d->sql, "ROLLBACK", NULL, NULL, NULL);
    for (int k = 0; k < NSTORE; k++)
        sqlite3_finalize(s->st[k]);
    db_batch_free(&s->insns);
    db_batch_free(&s->deps);
    free(s);
    return rc;
}

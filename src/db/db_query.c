/* db_query.c — reading runs, instructions, histograms and names back from
 * the experiment database (see the query section of db.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "util/array.h"

#define DOING "read the database"

static int out_of_memory(const db *d, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: out of memory", d->path);
    return -1;
}

/* Step a query to its next row: 1 for a row, 0 at the end, -1 on error. */
static int next_row(db *d, sqlite3_stmt *st, char *err, size_t errlen)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        return 1;
    return rc == SQLITE_DONE ? 0 : db_fail(d, DOING, err, errlen);
}

/* ---- snapshots ----------------------------------------------------------- */

int db_read_begin(db *d, char *err, size_t errlen)
{
    return db_exec(d, "BEGIN", DOING, err, errlen);
}

void db_read_end(db *d)
{
    /* Nothing was written: ending the transaction cannot lose anything. */
    sqlite3_exec(d->sql, "COMMIT", NULL, NULL, NULL);
}

/* ---- runs ---------------------------------------------------------------- */

static int no_runs(const db *d, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s has no runs yet: run `augur collect --db %s -- PROGRAM` first", d->path, d->path);
    return DB_NOT_FOUND;
}

int db_newest_run(db *d, int64_t *run_id, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d, "SELECT max(id) FROM runs WHERE parent_id IS NULL", &st, DOING, err, errlen) != 0)
        return -1;
    int rc = next_row(d, st, err, errlen);
    if (rc == 1 && sqlite3_column_type(st, 0) == SQLITE_NULL)
        rc = no_runs(d, err, errlen);
    else if (rc == 1) {
        *run_id = sqlite3_column_int64(st, 0);
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc;
}

/* The message for a run id that does not exist, naming the ones that do. */
static int no_such_run(db *d, int64_t run_id, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d, "SELECT min(id), max(id), count(*) FROM runs", &st, DOING, err, errlen) != 0)
        return -1;
    int rc = next_row(d, st, err, errlen);
    if (rc == 1 && sqlite3_column_int64(st, 2) == 0)
        rc = no_runs(d, err, errlen);
    else if (rc == 1) {
        snprintf(err, errlen,
                 "no run %lld in %s (its run ids go from %lld to %lld; list the runs with: sqlite3 %s 'SELECT * "
                 "FROM run_list')",
                 (long long)run_id, d->path, (long long)sqlite3_column_int64(st, 0),
                 (long long)sqlite3_column_int64(st, 1), d->path);
        rc = DB_NOT_FOUND;
    }
    sqlite3_finalize(st);
    return rc;
}

static int read_run_row(db *d, sqlite3_stmt *st, db_run *r, char *err, size_t errlen)
{
    r->id = sqlite3_column_int64(st, 0);
    char **text[] = {&r->started, &r->finished, &r->host,          &r->cwd,
                     &r->command, &r->status,   &r->status_detail, &r->augur_version};
    for (int i = 0; i < 8; i++)
        if (!(*text[i] = db_column_strdup(st, 1 + i)))
            return out_of_memory(d, err, errlen);
    r->exit_code = sqlite3_column_int(st, 9);
    r->parent_id = sqlite3_column_int64(st, 10);
    if (sqlite3_column_type(st, 11) != SQLITE_NULL && !(r->phase = db_column_strdup(st, 11)))
        return out_of_memory(d, err, errlen);
    r->counted = db_counted_sentence((const char *)sqlite3_column_text(st, 12), r->phase, r->parent_id);
    r->sample_rd = sqlite3_column_double(st, 13); /* NULL reads as 0: exact */
    return r->counted ? 0 : out_of_memory(d, err, errlen);
}

static int read_params(db *d, db_run *r, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d, "SELECT name, value_text, value FROM params WHERE run_id = ? ORDER BY name", &st, DOING, err,
                   errlen) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, r->id);
    int rc;
    while ((rc = next_row(d, st, err, errlen)) == 1) {
        db_param *p = realloc(r->params, (r->nparams + 1) * sizeof *p);
        if (!p) {
            rc = out_of_memory(d, err, errlen);
            break;
        }
        r->params = p;
        p = &r->params[r->nparams++];
        p->name = db_column_strdup(st, 0);
        p->text = db_column_strdup(st, 1);
        p->value = sqlite3_column_double(st, 2);
        if (!p->name || !p->text) {
            rc = out_of_memory(d, err, errlen);
            break;
        }
    }
    sqlite3_finalize(st);
    return rc;
}

static int read_block_sizes(db *d, db_run *r, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d, "SELECT block_size FROM block_sizes WHERE run_id = ? ORDER BY block_size", &st, DOING, err,
                   errlen) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, r->id);
    int rc;
    while ((rc = next_row(d, st, err, errlen)) == 1 && r->nblock_sizes < PROFILE_MAX_BLOCK_SIZES)
        r->block_sizes[r->nblock_sizes++] = (uint32_t)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 0;
}

/* The run's set counts and ways (set_counts; none before schema 18). */
static int read_set_counts(db *d, db_run *r, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d, "SELECT sets, ways FROM set_counts WHERE run_id = ? ORDER BY sets", &st, DOING, err,
                   errlen) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, r->id);
    int rc;
    while ((rc = next_row(d, st, err, errlen)) == 1 && r->nset_counts < PROFILE_MAX_SET_COUNTS) {
        r->set_counts[r->nset_counts++] = (uint32_t)sqlite3_column_int64(st, 0);
        r->set_ways = (uint32_t)sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 0;
}

static int count_processes(db *d, db_run *r, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d, "SELECT count(*) FROM processes WHERE run_id = ?", &st, DOING, err, errlen) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, r->id);
    int rc = next_row(d, st, err, errlen);
    if (rc == 1) {
        r->nprocesses = sqlite3_column_int(st, 0);
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc;
}

int db_get_run(db *d, int64_t run_id, db_run *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    if (db_prepare(d,
                   "SELECT id, started, finished, host, cwd, command, status, status_detail, augur_version, "
                   "exit_code, parent_id, phase, (SELECT regions FROM processes p WHERE p.run_id = runs.id "
                   "ORDER BY position LIMIT 1), sample_rd FROM runs WHERE id = ?",
                   &st, DOING, err, errlen) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    int rc = next_row(d, st, err, errlen);
    if (rc == 1)
        rc = read_run_row(d, st, out, err, errlen);
    else if (rc == 0)
        rc = no_such_run(d, run_id, err, errlen);
    sqlite3_finalize(st);
    if (rc == 0)
        rc = read_params(d, out, err, errlen);
    if (rc == 0)
        rc = read_block_sizes(d, out, err, errlen);
    if (rc == 0)
        rc = read_set_counts(d, out, err, errlen);
    if (rc == 0)
        rc = count_processes(d, out, err, errlen);
    return rc;
}

void db_run_free(db_run *r)
{
    char *text[] = {r->started, r->finished, r->host, r->cwd, r->command, r->status, r->status_detail,
                    r->augur_version, r->phase, r->counted};
    for (size_t i = 0; i < sizeof text / sizeof *text; i++)
        free(text[i]);
    for (size_t i = 0; i < r->nparams; i++) {
        free(r->params[i].name);
        free(r->params[i].text);
    }
    free(r->params);
    memset(r, 0, sizeof *r);
}

/* ---- instructions and histograms ----------------------------------------- */

/* The index of the element with `id` in base[0..n) of `size`-byte
 * elements that begin with their int64_t id, ascending; n when none has. */
static size_t find_id(const void *base, size_t n, size_t size, int64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (*(const int64_t *)((const char *)base + mid * size) < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && *(const int64_t *)((const char *)base + lo * size) == id ? lo : n;
}

size_t db_instr_find(const db_instr *ins, size_t n, int64_t id)
{
    _Static_assert(offsetof(db_instr, id) == 0, "find_id reads the id first");
    return find_id(ins, n, sizeof *ins, id);
}

/* The counts of an instruction row (columns 5-7: executions, reads,
 * writes; 10: taken, NULL for no conditional branch) into in, each a whole
 * number from 0 to 2^63 - 1, and added to the run's sums[3], which must
 * stay within 2^63 - 1 too: the importer stores nothing else, so any other
 * value (a negative one, a REAL) is damage, and with these bounds the
 * report's sums over any instructions of the run cannot overflow. */
static int take_counts(const db *d, sqlite3_stmt *st, int64_t run_id, db_instr *in, uint64_t sums[3], char *err,
                       size_t errlen)
{
    static const char *const names[] = {"executions", "reads", "writes", "taken"};
    static const int cols[] = {5, 6, 7, 10};
    uint64_t *to[] = {&in->executions, &in->reads, &in->writes, &in->taken};
    for (int k = 0; k < 4; k++) {
        int type = sqlite3_column_type(st, cols[k]);
        int64_t v = sqlite3_column_int64(st, cols[k]);
        if (k == 3 && type == SQLITE_NULL)
            v = 0;
        else if (type != SQLITE_INTEGER || v < 0) {
            snprintf(err, errlen, "%s: instruction %lld of run %lld has %s %s, not a count (a whole number from 0 "
                     "to 2^63 - 1): the database is damaged (delete the run and collect it again)",
                     d->path, (long long)in->id, (long long)run_id, names[k],
                     type == SQLITE_NULL ? "NULL" : (const char *)sqlite3_column_text(st, cols[k]));
            return -1;
        }
        *to[k] = (uint64_t)v;
        if (k < 3 && (__builtin_add_overflow(sums[k], *to[k], &sums[k]) || sums[k] > (uint64_t)INT64_MAX)) {
            snprintf(err, errlen, "%s: the %s of run %lld add up to more than 2^63 - 1, the most a run may have: the "
                     "database is damaged (delete the run and collect it again)", d->path, names[k], (long long)run_id);
            return -1;
        }
    }
    return 0;
}

/* Give each instruction of ins[0..n) that has no module and no function
 * the function its indirect jumps took most often, as -id (a PLT stub:
 * `jmp *GOT` of the program's .plt.sec, lazily bound first through the
 * stub's own push; db_names names it).  0, or -1 with a message. */
static int name_stubs(db *d, db_instr *ins, size_t n, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (ins[i].module_id || ins[i].function_id)
            continue;
        if (!st && db_prepare(d,
                              "SELECT j.function_id FROM instructions i JOIN branch_targets b ON b.instruction_id = i.id "
                              "JOIN instructions j ON j.process_id = i.process_id AND j.module_id = b.module_id "
                              "AND j.addr = b.addr WHERE i.id = ? AND j.function_id IS NOT NULL "
                              "ORDER BY b.count DESC LIMIT 1",
                              &st, DOING, err, errlen) != 0)
            return -1;
        sqlite3_bind_int64(st, 1, ins[i].id);
        if ((rc = next_row(d, st, err, errlen)) == 1)
            ins[i].function_id = -sqlite3_column_int64(st, 0), rc = 0;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

int db_run_instructions(db *d, int64_t run_id, db_instr **out, size_t *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    if (db_prepare(d,
                   "SELECT i.id, i.module_id, i.function_id, i.file_id, i.line, i.executions, i.reads, i.writes, i.addr, "
                   "i.len, i.taken "
                   "FROM processes p JOIN instructions i ON i.process_id = p.id "
                   "WHERE p.run_id = ? ORDER BY i.id",
                   &st, DOING, err, errlen) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    size_t cap = 0;
    uint64_t sums[3] = {0, 0, 0};
    int rc;
    while ((rc = next_row(d, st, err, errlen)) == 1) {
        db_instr *a = array_grow(*out, *n, &cap, sizeof *a);
        if (!a) {
            rc = out_of_memory(d, err, errlen);
            break;
        }
        *out = a;
        db_instr *in = &(*out)[(*n)++];
        *in = (db_instr){
            .id = sqlite3_column_int64(st, 0),
            .module_id = sqlite3_column_int64(st, 1), /* NULL reads as 0: unknown */
            .function_id = sqlite3_column_int64(st, 2),
            .file_id = sqlite3_column_int64(st, 3),
            .line = (uint32_t)sqlite3_column_int64(st, 4),
            .addr = db_column_u64(st, 8),
            .len = (uint32_t)sqlite3_column_int64(st, 9),
        };
        if (take_counts(d, st, run_id, in, sums, err, errlen) != 0) {
            rc = -1;
            break;
        }
    }
    sqlite3_finalize(st);
    if (rc == 0)
        rc = name_stubs(d, *out, *n, err, errlen);
    if (rc != 0) {
        free(*out);
        *out = NULL;
        *n = 0;
        return -1;
    }
    return 0;
}

/* db_for_each_histogram's loop over the rows of `sql` (instruction id,
 * cold, bin, count, sum; ?1 the run, ?2 the key). */
static int for_each_hist(db *d, const char *sql, int64_t run_id, uint32_t key, db_hist_fn fn, void *ctx, char *err,
                         size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d, sql, &st, DOING, err, errlen) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, key);
    rd_binrec bins[RD_MAX_BINS];
    size_t nbins = 0;
    int64_t instr = 0; /* the histogram being gathered; ids are >= 1 */
    uint64_t cold = 0;
    int rc;
    while ((rc = next_row(d, st, err, errlen)) == 1) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (id != instr) {
            if (instr && (rc = fn(ctx, instr, cold, bins, nbins)) != 0)
                break;
            instr = id;
            cold = db_column_u64(st, 1);
            nbins = 0;
        }
        /* No bin row (NULL): a histogram of cold touches only. */
        if (sqlite3_column_type(st, 2) != SQLITE_NULL && nbins < RD_MAX_BINS)
            bins[nbins++] = (rd_binrec){.bin = (uint32_t)sqlite3_column_int64(st, 2),
                                        .count = db_column_u64(st, 3),
                                        .sum = db_column_u64(st, 4)};
    }
    if (rc == 0 && instr)
        rc = fn(ctx, instr, cold, bins, nbins);
    sqlite3_finalize(st);
    return rc;
}

int db_for_each_histogram(db *d, int64_t run_id, uint32_t block_size, db_hist_fn fn, void *ctx, char *err,
                          size_t errlen)
{
    return for_each_hist(d,
                         "SELECT h.instruction_id, h.cold, b.bin, b.count, b.sum "
                         "FROM processes p JOIN instructions i ON i.process_id = p.id "
                         "JOIN histograms h ON h.instruction_id = i.id AND h.block_size = ?2 "
                         "LEFT JOIN hist_bins b ON b.instruction_id = h.instruction_id AND b.block_size = h.block_size "
                         "WHERE p.run_id = ?1 ORDER BY h.instruction_id, b.bin",
                         run_id, block_size, fn, ctx, err, errlen);
}

int db_for_each_set_histogram(db *d, int64_t run_id, uint32_t sets, db_hist_fn fn, void *ctx, char *err,
                              size_t errlen)
{
    return for_each_hist(d,
                         "SELECT h.instruction_id, h.far, b.bin, b.count, b.sum "
                         "FROM processes p JOIN instructions i ON i.process_id = p.id "
                         "JOIN set_histograms h ON h.instruction_id = i.id AND h.sets = ?2 "
                         "LEFT JOIN set_bins b ON b.instruction_id = h.instruction_id AND b.sets = h.sets "
                         "WHERE p.run_id = ?1 ORDER BY h.instruction_id, b.bin",
                         run_id, sets, fn, ctx, err, errlen);
}

/* ---- strides -------------------------------------------------------------- */

static int fill_stride(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    db_stride *s = elem;
    *s = (db_stride){.instr_id = sqlite3_column_int64(st, 0), .delta = sqlite3_column_int64(st, 1),
                     .count = db_column_u64(st, 2), .deltas = db_column_u64(st, 3)};
    return 0;
}

int db_run_strides(db *d, int64_t run_id, db_stride **out, size_t *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    db_row_array a = {(void **)out, n, 0, sizeof **out, fill_stride, NULL};
    return db_query_rows(d,
                         "SELECT s.instruction_id, s.delta, s.count, s.deltas FROM processes p "
                         "JOIN instructions i ON i.process_id = p.id JOIN strides s ON s.instruction_id = i.id "
                         "WHERE p.run_id = ?1 ORDER BY s.instruction_id",
                         run_id, 0, &a, DOING, err, errlen);
}

static int fill_pow2(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    db_pow2 *c = elem;
    *c = (db_pow2){.instr_id = sqlite3_column_int64(st, 0), .addr = db_column_u64(st, 1),
                   .shift = sqlite3_column_int(st, 2), .count = db_column_u64(st, 3),
                   .accesses = db_column_u64(st, 4)};
    return 0;
}

int db_run_pow2(db *d, int64_t run_id, db_pow2 **out, size_t *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    db_row_array a = {(void **)out, n, 0, sizeof **out, fill_pow2, NULL};
    return db_query_rows(d,
                         "SELECT i.id, i.addr, c.shift, c.count, i.reads + i.writes FROM processes p "
                         "JOIN instructions i ON i.process_id = p.id JOIN strides s ON s.instruction_id = i.id "
                         "JOIN stride_pow2 c ON c.instruction_id = i.id "
                         "WHERE p.run_id = ?1 AND s.count < " DB_STRIDE_DOMINANT_SQL " * s.deltas AND "
                         "i.module_id = (SELECT exe_module_id FROM processes WHERE run_id = ?1 ORDER BY id LIMIT 1) "
                         "ORDER BY i.id, c.shift",
                         run_id, 0, &a, DOING, err, errlen);
}

size_t db_stride_find(const db_stride *s, size_t n, int64_t id)
{
    _Static_assert(offsetof(db_stride, instr_id) == 0, "find_id reads the id first");
    return find_id(s, n, sizeof *s, id);
}

int db_stride_dominant(const db_stride *s)
{
    return s->deltas > 0 && s->count <= s->deltas && (double)s->count >= DB_STRIDE_DOMINANT * (double)s->deltas;
}

double db_stride_run(const db_stride *s)
{
    return ((double)s->deltas + 1) / ((double)(s->deltas - s->count) + 1);
}

/* ---- names --------------------------------------------------------------- */

/* "F@plt" for function name F, a new string (NULL when out of memory). */
static char *stub_name(const char *f)
{
    f = f ? f : "?";
    size_t len = strlen(f) + sizeof "@plt";
    char *s = malloc(len);
    if (s)
        snprintf(s, len, "%s@plt", f);
    return s;
}

int db_names(db *d, enum db_name_kind kind, const int64_t *ids, size_t n, char **names, char *err, size_t errlen)
{
    static const char *const sql[] = {
        [DB_FUNCTION_NAME] = "SELECT name FROM functions WHERE id = ?",
        [DB_FILE_PATH] = "SELECT path FROM files WHERE id = ?",
        [DB_MODULE_PATH] = "SELECT path FROM modules WHERE id = ?",
    };
    for (size_t i = 0; i < n; i++)
        names[i] = NULL;
    sqlite3_stmt *st;
    if (db_prepare(d, sql[kind], &st, DOING, err, errlen) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!ids[i])
            continue;
        int stub = kind == DB_FUNCTION_NAME && ids[i] < 0;
        sqlite3_bind_int64(st, 1, stub ? -ids[i] : ids[i]);
        if ((rc = next_row(d, st, err, errlen)) == 1)
            rc = (names[i] = stub ? stub_name((const char *)sqlite3_column_text(st, 0))
                                  : db_column_strdup(st, 0)) ? 0 : out_of_memory(d, err, errlen);
        else if (rc == 0) {
            snprintf(err, errlen, "%s: name %lld is missing: the database is damaged", d->path, (long long)ids[i]);
            rc = -1;
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    if (rc != 0)
        for (size_t i = 0; i < n; i++) {
            free(names[i]);
            names[i] = NULL;
        }
    return rc;
}

/* db_import.c — storing one run and the profiles of its processes in the
 * experiment database, all in one transaction (see db_import_run in db.h).
 *
 * Everything that can be checked without the database (parameter values,
 * status, block sizes, build-ids) is done before the transaction starts, so
 * the write lock is held only while rows are inserted, through statements
 * prepared once per import. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "binary/buildid.h"
#include "db/db_internal.h"

#ifndef AUGUR_VERSION
#define AUGUR_VERSION "unknown"
#endif

#define DOING "import the run"

enum stmt_id {
    ST_RUN,
    ST_PARAM,
    ST_BLOCK_SIZE,
    ST_SET_COUNT,
    ST_PROCESS,
    ST_MODULE_FIND,
    ST_MODULE_ADD,
    ST_PROCESS_MODULE,
    ST_PROCESS_EXE,
    ST_FUNCTION_FIND,
    ST_FUNCTION_ADD,
    ST_FILE_FIND,
    ST_FILE_ADD,
    ST_LAST_INSTR,
    ST_TARGET,
    ST_RUN_PHASE,
    ST_PROCESS_REGIONS,
    ST_INTERVAL,
    ST_COMM,
    ST_PHASE_FIND,
    NSTMTS
};

static const char *const stmt_sql[NSTMTS] = {
    [ST_RUN] = "INSERT INTO runs (started, finished, host, cwd, command, status, status_detail, exit_code, "
               "augur_version, sample_rd) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    [ST_PARAM] = "INSERT INTO params (run_id, name, value, value_text) VALUES (?, ?, ?, ?)",
    [ST_BLOCK_SIZE] = "INSERT INTO block_sizes (run_id, block_size) VALUES (?, ?)",
    [ST_SET_COUNT] = "INSERT INTO set_counts (run_id, sets, line_size, ways) VALUES (?, ?, 64, ?)",
    [ST_PROCESS] = "INSERT INTO processes (run_id, position, pid, ppid, exe, args, threads, exit_code, tool) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    [ST_MODULE_FIND] = "SELECT id FROM modules WHERE path = ? AND build_id = ?",
    [ST_MODULE_ADD] = "INSERT INTO modules (path, build_id) VALUES (?, ?)",
    [ST_PROCESS_MODULE] = "INSERT OR IGNORE INTO process_modules (process_id, module_id, bias) VALUES (?, ?, ?)",
    [ST_PROCESS_EXE] = "UPDATE processes SET exe_module_id = ? WHERE id = ?",
    [ST_FUNCTION_FIND] = "SELECT id FROM functions WHERE name = ?",
    [ST_FUNCTION_ADD] = "INSERT INTO functions (name) VALUES (?)",
    [ST_FILE_FIND] = "SELECT id FROM files WHERE path = ?",
    [ST_FILE_ADD] = "INSERT INTO files (path) VALUES (?)",
    /* Rows left by deleting runs without cascades keep their instruction ids taken. */
    [ST_LAST_INSTR] = "SELECT max(ifnull((SELECT max(id) FROM instructions), 0), "
                      "ifnull((SELECT max(instruction_id) FROM histograms), 0), "
                      "ifnull((SELECT max(instruction_id) FROM hist_bins), 0), "
                      "ifnull((SELECT max(instruction_id) FROM set_histograms), 0), "
                      "ifnull((SELECT max(instruction_id) FROM set_bins), 0), "
                      "ifnull((SELECT max(instruction_id) FROM branch_targets), 0), "
                      "ifnull((SELECT max(call_id) FROM call_edges), 0), "
                      "ifnull((SELECT max(instruction_id) FROM strides), 0), "
                      "ifnull((SELECT max(instruction_id) FROM stride_pow2), 0))",
    [ST_TARGET] = "INSERT INTO branch_targets (instruction_id, module_id, addr, count) VALUES (?, ?, ?, ?)",
    [ST_RUN_PHASE] = "UPDATE runs SET parent_id = ?, phase = ? WHERE id = ?",
    [ST_PROCESS_REGIONS] = "UPDATE processes SET regions = ? WHERE id = ?",
    [ST_INTERVAL] = "INSERT INTO intervals (process_id, first, count, closed_by, module_id, addr, function_id, "
                    "file_id, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    [ST_COMM] = "INSERT INTO comm (process_id, function_id, peer, communicator, interval, calls, bytes_sent, "
                "bytes_received, file_id, line, stack) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    /* an MPI run's phase that another rank stored */
    [ST_PHASE_FIND] = "SELECT id FROM runs WHERE parent_id = ? AND phase = ?",
};

/* The bulk of a run goes through multi-row inserts. */
enum batch_id { B_INSTR, B_HIST, B_BIN, B_SET_HIST, B_SET_BIN, B_CALL, B_STRIDE, B_POW2, NBATCHES };

static const struct {
    const char *insert;
    int ncols;
} batch_sql[NBATCHES] = {
    [B_INSTR] = {"INSERT INTO instructions (id, process_id, module_id, addr, len, function_id, file_id, line, "
                 "executions, reads, writes, taken) VALUES ",
                 12},
    [B_HIST] = {"INSERT INTO histograms (instruction_id, block_size, cold, touches) VALUES ", 4},
    [B_BIN] = {"INSERT INTO hist_bins (instruction_id, block_size, bin, count, sum) VALUES ", 5},
    [B_SET_HIST] = {"INSERT INTO set_histograms (instruction_id, sets, far, touches) VALUES ", 4},
    [B_SET_BIN] = {"INSERT INTO set_bins (instruction_id, sets, bin, count, sum) VALUES ", 5},
    [B_CALL] = {"INSERT INTO call_edges (call_id, callee_id, count) VALUES ", 3},
    [B_STRIDE] = {"INSERT INTO strides (instruction_id, delta, count, deltas) VALUES ", 4},
    [B_POW2] = {"INSERT INTO stride_pow2 (instruction_id, shift, count) VALUES ", 3},
};

/* One import in progress.  Binding a value cannot fail with these
 * statements (indexes are in range, strings are SQLITE_STATIC), so bind
 * results are not checked; step results are.  Instructions get their ids
 * from the importer (it holds the write lock), so that their histograms
 * can be batched before the instructions are inserted. */
typedef struct importer {
    db *d;
    sqlite3_stmt *st[NSTMTS];
    db_batch batch[NBATCHES];
    int64_t last_instr_id;
    int64_t last_process_id; /* of the last import_process */
    int position_base;       /* the run's position of this import's first process (an MPI rank's: after
                                the ranks stored before it) */
    char *err;
    size_t errlen;
} importer;

/* Database ids of one profile's modules, functions and files, indexed by
 * the profile's ids; its instruction i gets id first_instr + i. */
typedef struct id_maps {
    int64_t *module, *fn, *file;
    int64_t first_instr;
} id_maps;

/* The database id for a profile id; 0 (NULL) for -1, unknown. */
static int64_t mapped(const int64_t *map, int32_t id)
{
    return id < 0 ? 0 : map[id];
}

static int step(importer *im, enum stmt_id s)
{
    return db_step_done(im->d, im->st[s], DOING, im->err, im->errlen);
}

static int64_t last_id(const importer *im)
{
    return sqlite3_last_insert_rowid(im->d->sql);
}

static int end_row(importer *im, enum batch_id b)
{
    return db_batch_row(im->d, &im->batch[b], DOING, im->err, im->errlen);
}

/* ---- checks before the transaction --------------------------------------- */

/* A parameter value: a finite number written in full. */
static int param_value(const char *text, double *v)
{
    char *end;
    *v = strtod(text, &end);
    return end != text && *end == '\0' && isfinite(*v) ? 0 : -1;
}

static int check_params(const db *d, const run_info *ri, char *err, size_t errlen)
{
    for (int i = 0; i < ri->nparams; i++) {
        double v;
        if (param_value(ri->param_values[i], &v) != 0) {
            snprintf(err, errlen, "%s: parameter %s: '%s' is not a number (give --param %s=NUMBER)", d->path,
                     ri->param_names[i], ri->param_values[i], ri->param_names[i]);
            return -1;
        }
        for (int j = 0; j < i; j++)
            if (strcmp(ri->param_names[i], ri->param_names[j]) == 0) {
                snprintf(err, errlen, "%s: parameter %s is given twice", d->path, ri->param_names[i]);
                return -1;
            }
    }
    return 0;
}

/* The same block sizes, and set counts and ways. */
static int same_block_sizes(const profile *a, const profile *b)
{
    return a->nblock_sizes == b->nblock_sizes &&
           memcmp(a->block_sizes, b->block_sizes, (size_t)a->nblock_sizes * sizeof *a->block_sizes) == 0 &&
           a->nset_counts == b->nset_counts && a->set_ways == b->set_ways &&
           memcmp(a->set_counts, b->set_counts, (size_t)a->nset_counts * sizeof *a->set_counts) == 0;
}

static int check_run(const db *d, const run_info *ri, profile *const *procs, size_t nprocs, char *err, size_t errlen)
{
    if (!ri->status || (strcmp(ri->status, "complete") != 0 && strcmp(ri->status, "partial") != 0)) {
        snprintf(err, errlen, "%s: cannot import a run with status '%s' (it must be complete or partial)", d->path,
                 ri->status ? ri->status : "(none)");
        return -1;
    }
    for (size_t i = 1; i < nprocs; i++)
        if (!same_block_sizes(procs[0], procs[i]) || procs[0]->sample_threshold != procs[i]->sample_threshold) {
            snprintf(err, errlen,
                     "%s: the profiles of process %lld and of the main process %lld have different %s: they do not "
                     "come from the same collection",
                     d->path, (long long)procs[i]->pid, (long long)procs[0]->pid,
                     same_block_sizes(procs[0], procs[i]) ? "sampling rates (sample-rd)" : "block sizes or set counts");
            return -1;
        }
    size_t ranks = 0;
    for (size_t i = 0; i < nprocs; i++)
        ranks += procs[i]->mpi.has_mpi != 0;
    if (ranks > 1) {
        snprintf(err, errlen, "%s: the profiles are of %zu MPI ranks: a run holds one rank's processes per import "
                 "(collect the launch under mpirun, each rank's augur collect storing its own; or import each "
                 "rank's profiles by themselves)", d->path, ranks);
        return -1;
    }
    return check_params(d, ri, err, errlen);
}

static void fill_build_ids(profile *const *procs, size_t nprocs)
{
    for (size_t i = 0; i < nprocs; i++)
        for (int m = 0; m < procs[i]->nmodules; m++)
            elf_build_id(procs[i]->modules[m].path, procs[i]->modules[m].build_id,
                         sizeof procs[i]->modules[m].build_id);
}

/* ---- rows ---------------------------------------------------------------- */

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* A run's row; `p`, its main process's profile (or an interval's), says
 * whether its histograms were sampled (runs.sample_rd, NULL when exact). */
static int insert_run(importer *im, const run_info *ri, const char *command, const profile *p, int64_t *run_id)
{
    sqlite3_stmt *s = im->st[ST_RUN];
    db_bind_text(s, 1, or_empty(ri->started));
    db_bind_text(s, 2, or_empty(ri->finished));
    db_bind_text(s, 3, or_empty(ri->host));
    db_bind_text(s, 4, or_empty(ri->cwd));
    db_bind_text(s, 5, command);
    db_bind_text(s, 6, ri->status);
    db_bind_text(s, 7, or_empty(ri->status_detail));
    sqlite3_bind_int(s, 8, ri->exit_code);
    db_bind_text(s, 9, AUGUR_VERSION);
    if (p && p->sample_threshold)
        sqlite3_bind_double(s, 10, (double)p->sample_threshold / RD_SAMPLE_MODULUS);
    else
        sqlite3_bind_null(s, 10);
    if (step(im, ST_RUN) != 0)
        return -1;
    *run_id = last_id(im);
    return 0;
}

static int insert_params(importer *im, const run_info *ri, int64_t run_id)
{
    sqlite3_stmt *s = im->st[ST_PARAM];
    for (int i = 0; i < ri->nparams; i++) {
        double v;
        param_value(ri->param_values[i], &v); /* checked by check_params */
        sqlite3_bind_int64(s, 1, run_id);
        db_bind_text(s, 2, ri->param_names[i]);
        sqlite3_bind_double(s, 3, v);
        db_bind_text(s, 4, ri->param_values[i]);
        if (step(im, ST_PARAM) != 0)
            return -1;
    }
    return 0;
}

/* The run's block sizes, and set counts (set_counts). */
static int insert_block_sizes(importer *im, const profile *p, int64_t run_id)
{
    for (int i = 0; i < p->nblock_sizes; i++) {
        sqlite3_bind_int64(im->st[ST_BLOCK_SIZE], 1, run_id);
        sqlite3_bind_int64(im->st[ST_BLOCK_SIZE], 2, p->block_sizes[i]);
        if (step(im, ST_BLOCK_SIZE) != 0)
            return -1;
    }
    for (int i = 0; i < p->nset_counts; i++) {
        sqlite3_bind_int64(im->st[ST_SET_COUNT], 1, run_id);
        sqlite3_bind_int64(im->st[ST_SET_COUNT], 2, p->set_counts[i]);
        sqlite3_bind_int64(im->st[ST_SET_COUNT], 3, p->set_ways);
        if (step(im, ST_SET_COUNT) != 0)
            return -1;
    }
    return 0;
}

static int insert_process(importer *im, const profile *p, int64_t run_id, int position, int64_t *process_id)
{
    char *args = db_json_strings(p->argv, (size_t)p->argc);
    if (!args) {
        snprintf(im->err, im->errlen, "%s: cannot %s: out of memory", im->d->path, DOING);
        return -1;
    }
    sqlite3_stmt *s = im->st[ST_PROCESS];
    sqlite3_bind_int64(s, 1, run_id);
    sqlite3_bind_int(s, 2, position);
    sqlite3_bind_int64(s, 3, p->pid);
    sqlite3_bind_int64(s, 4, p->ppid);
    db_bind_text(s, 5, or_empty(p->exe));
    db_bind_text(s, 6, args);
    sqlite3_bind_int64(s, 7, p->threads);
    if (p->has_exit)
        sqlite3_bind_int(s, 8, p->exit_code);
    else
        sqlite3_bind_null(s, 8);
    db_bind_text(s, 9, or_empty(p->tool));
    int rc = step(im, ST_PROCESS);
    free(args);
    if (rc == 0)
        *process_id = last_id(im);
    return rc;
}

/* The id of the row holding key values (a[, b]) in a table of unique
 * keys, added when missing. */
static int intern(importer *im, enum stmt_id find, enum stmt_id add, const char *a, const char *b, int64_t *id)
{
    sqlite3_stmt *f = im->st[find];
    db_bind_text(f, 1, a);
    if (b)
        db_bind_text(f, 2, b);
    int rc = sqlite3_step(f);
    if (rc == SQLITE_ROW)
        *id = sqlite3_column_int64(f, 0);
    sqlite3_reset(f);
    if (rc == SQLITE_ROW)
        return 0;
    if (rc != SQLITE_DONE)
        return db_fail(im->d, DOING, im->err, im->errlen);
    db_bind_text(im->st[add], 1, a);
    if (b)
        db_bind_text(im->st[add], 2, b);
    if (step(im, add) != 0)
        return -1;
    *id = last_id(im);
    return 0;
}

static int intern_modules(importer *im, const profile *p, int64_t process_id, int64_t *ids)
{
    for (int m = 0; m < p->nmodules; m++) {
        const prof_module *mod = &p->modules[m];
        if (intern(im, ST_MODULE_FIND, ST_MODULE_ADD, mod->path, mod->build_id, &ids[m]) != 0)
            return -1;
        sqlite3_stmt *s = im->st[ST_PROCESS_MODULE];
        sqlite3_bind_int64(s, 1, process_id);
        sqlite3_bind_int64(s, 2, ids[m]);
        db_bind_u64(s, 3, mod->bias);
        if (step(im, ST_PROCESS_MODULE) != 0)
            return -1;
    }
    return 0;
}

/* Record which module is the process's executable (db_exe_module: `exe`
 * resolved in the run's directory), when one is; ids are the modules'
 * database ids. */
static int set_exe_module(importer *im, const profile *p, const char *cwd, int64_t process_id, const int64_t *ids)
{
    const char **paths = malloc(((size_t)p->nmodules + 1) * sizeof *paths);
    if (!paths) {
        snprintf(im->err, im->errlen, "%s: cannot %s: out of memory", im->d->path, DOING);
        return -1;
    }
    for (int m = 0; m < p->nmodules; m++)
        paths[m] = p->modules[m].path;
    long exe = db_exe_module(p->exe, cwd, paths, (size_t)p->nmodules);
    free(paths);
    if (exe < 0)
        return 0; /* unknown: left NULL */
    sqlite3_stmt *s = im->st[ST_PROCESS_EXE];
    sqlite3_bind_int64(s, 1, ids[exe]);
    sqlite3_bind_int64(s, 2, process_id);
    return step(im, ST_PROCESS_EXE);
}

static int intern_names(importer *im, enum stmt_id find, enum stmt_id add, char *const *names, int n, int64_t *ids)
{
    for (int i = 0; i < n; i++)
        if (intern(im, find, add, names[i], NULL, &ids[i]) != 0)
            return -1;
    return 0;
}

static int insert_targets(importer *im, const prof_instr *in, int64_t instr_id, const id_maps *maps)
{
    sqlite3_stmt *s = im->st[ST_TARGET];
    for (uint32_t t = 0; t < in->ntargets; t++) {
        sqlite3_bind_int64(s, 1, instr_id);
        db_bind_id(s, 2, mapped(maps->module, in->targets[t].module));
        db_bind_u64(s, 3, in->targets[t].addr);
        db_bind_u64(s, 4, in->targets[t].count);
        if (step(im, ST_TARGET) != 0)
            return -1;
    }
    return 0;
}

/* The call's callees: instructions of the same process. */
static int insert_calls(importer *im, const prof_instr *in, int64_t instr_id, const id_maps *maps)
{
    db_batch *b = &im->batch[B_CALL];
    for (uint32_t c = 0; c < in->ncalls; c++) {
        db_batch_int(b, instr_id);
        db_batch_int(b, maps->first_instr + (int64_t)in->calls[c].instr);
        db_batch_u64(b, in->calls[c].count);
        if (end_row(im, B_CALL) != 0)
            return -1;
    }
    return 0;
}

/* A histogram's rows: into histograms and hist_bins (batches B_HIST,
 * B_BIN), or a set-local one's into set_histograms and set_bins
 * (B_SET_HIST, B_SET_BIN). */
static int insert_hist(importer *im, const prof_hist *h, int64_t instr_id, enum batch_id head, enum batch_id bins)
{
    db_batch *b = &im->batch[head];
    db_batch_int(b, instr_id);
    db_batch_int(b, h->block_size);
    db_batch_u64(b, h->cold);
    db_batch_u64(b, h->touches);
    if (end_row(im, head) != 0)
        return -1;
    b = &im->batch[bins];
    for (uint32_t k = 0; k < h->nbins; k++) {
        db_batch_int(b, instr_id);
        db_batch_int(b, h->block_size);
        db_batch_int(b, h->bins[k].bin);
        db_batch_u64(b, h->bins[k].count);
        db_batch_u64(b, h->bins[k].sum);
        if (end_row(im, bins) != 0)
            return -1;
    }
    return 0;
}

/* The instruction's dominant address delta and its deltas' non-empty
 * 2-adic classes, when the profile gives them. */
static int insert_stride(importer *im, const prof_instr *in, int64_t instr_id)
{
    if (!in->stride_deltas)
        return 0;
    db_batch *b = &im->batch[B_STRIDE];
    db_batch_int(b, instr_id);
    db_batch_int(b, in->stride);
    db_batch_u64(b, in->stride_count);
    db_batch_u64(b, in->stride_deltas);
    if (end_row(im, B_STRIDE) != 0)
        return -1;
    for (int k = 0; k < PROFILE_POW2_CLASSES; k++)
        if (in->stride_pow2[k]) {
            b = &im->batch[B_POW2];
            db_batch_int(b, instr_id);
            db_batch_int(b, PROFILE_POW2_FIRST + k);
            db_batch_u64(b, in->stride_pow2[k]);
            if (end_row(im, B_POW2) != 0)
                return -1;
        }
    return 0;
}

static int insert_instr(importer *im, const prof_instr *in, int64_t process_id, const id_maps *maps)
{
    int64_t instr_id = ++im->last_instr_id;
    db_batch *b = &im->batch[B_INSTR];
    db_batch_int(b, instr_id);
    db_batch_int(b, process_id);
    db_batch_id(b, mapped(maps->module, in->module));
    db_batch_u64(b, in->addr);
    db_batch_int(b, in->len);
    db_batch_id(b, mapped(maps->fn, in->fn));
    db_batch_id(b, mapped(maps->file, in->file));
    db_batch_id(b, in->line);
    db_batch_u64(b, in->execs);
    db_batch_u64(b, in->reads);
    db_batch_u64(b, in->writes);
    if (in->is_cond_branch)
        db_batch_u64(b, in->taken);
    else
        db_batch_null(b);
    if (end_row(im, B_INSTR) != 0 || insert_targets(im, in, instr_id, maps) != 0 ||
        insert_calls(im, in, instr_id, maps) != 0)
        return -1;
    for (uint32_t h = 0; h < in->nhists; h++)
        if (insert_hist(im, &in->hists[h], instr_id, B_HIST, B_BIN) != 0)
            return -1;
    for (uint32_t h = 0; h < in->nsets; h++)
        if (insert_hist(im, &in->sets[h], instr_id, B_SET_HIST, B_SET_BIN) != 0)
            return -1;
    return insert_stride(im, in, instr_id);
}

/* processes.regions: what of the process was counted, as JSON
 * (docs/database.md); NULL for a process counted whole. */
static int set_regions(importer *im, const prof_regions *g, int64_t process_id)
{
    if (!g->has_regions)
        return 0;
    json_t *o = json_pack("{s:b,s:I,s:I,s:I,s:I}", "instr_at_start", g->instr_at_start, "starts",
                          (json_int_t)g->starts, "stops", (json_int_t)g->stops, "zeros", (json_int_t)g->zeros,
                          "dumps", (json_int_t)g->dumps);
    json_t *fns[2] = {json_object(), json_object()};
    for (int i = 0; i < g->nregion_fns; i++)
        json_object_set_new(fns[0], g->region_fns[i].glob, json_integer((json_int_t)g->region_fns[i].entries));
    for (int i = 0; i < g->ninterval_fns; i++)
        json_object_set_new(fns[1], g->interval_fns[i].glob, json_integer((json_int_t)g->interval_fns[i].entries));
    json_object_set_new(o, "region_functions", fns[0]);
    json_object_set_new(o, "interval_functions", fns[1]);
    char *text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    if (!text) {
        snprintf(im->err, im->errlen, "%s: cannot %s: out of memory", im->d->path, DOING);
        return -1;
    }
    sqlite3_bind_text(im->st[ST_PROCESS_REGIONS], 1, text, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(im->st[ST_PROCESS_REGIONS], 2, process_id);
    free(text);
    return step(im, ST_PROCESS_REGIONS);
}

/* The intervals row of an interval run's process. */
static int insert_interval(importer *im, const prof_interval *iv, int64_t process_id, const id_maps *maps)
{
    sqlite3_stmt *s = im->st[ST_INTERVAL];
    sqlite3_bind_int64(s, 1, process_id);
    db_bind_u64(s, 2, iv->index);
    db_bind_u64(s, 3, iv->count);
    db_bind_text(s, 4, iv->closed_by);
    int64_t ids[3] = {mapped(maps->module, iv->module), mapped(maps->fn, iv->fn), mapped(maps->file, iv->file)};
    for (int k = 0; k < 3; k++)
        if (ids[k])
            sqlite3_bind_int64(s, k == 0 ? 5 : 6 + k, ids[k]);
        else
            sqlite3_bind_null(s, k == 0 ? 5 : 6 + k);
    db_bind_u64(s, 6, iv->addr);
    if (iv->line)
        sqlite3_bind_int64(s, 9, iv->line);
    else
        sqlite3_bind_null(s, 9);
    return step(im, ST_INTERVAL);
}

/* A signed comm field: NULL for -1 (none). */
static void bind_or_null(sqlite3_stmt *s, int col, int64_t v)
{
    if (v < 0)
        sqlite3_bind_null(s, col);
    else
        sqlite3_bind_int64(s, col, v);
}

/* The process's MPI calls (its comm lines). */
static int insert_comms(importer *im, const profile *p, int64_t process_id, const id_maps *maps)
{
    sqlite3_stmt *s = im->st[ST_COMM];
    for (size_t i = 0; i < p->ncomms; i++) {
        const prof_comm *c = &p->comms[i];
        char *names[PROFILE_MAX_COMM_DEPTH];
        for (uint32_t k = 0; k < c->depth; k++)
            names[k] = p->fns[c->frames[k]];
        char *stack = db_json_strings(names, c->depth);
        if (!stack) {
            snprintf(im->err, im->errlen, "%s: cannot %s: out of memory", im->d->path, DOING);
            return -1;
        }
        sqlite3_bind_int64(s, 1, process_id);
        sqlite3_bind_int64(s, 2, mapped(maps->fn, c->fn));
        bind_or_null(s, 3, c->peer);
        bind_or_null(s, 4, c->comm);
        bind_or_null(s, 5, c->interval);
        db_bind_u64(s, 6, c->calls);
        db_bind_u64(s, 7, c->sent);
        db_bind_u64(s, 8, c->received);
        db_bind_id(s, 9, mapped(maps->file, c->file));
        sqlite3_bind_int64(s, 10, c->line);
        db_bind_text(s, 11, stack);
        int rc = step(im, ST_COMM);
        free(stack);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int import_process(importer *im, const profile *p, const char *cwd, int64_t run_id, int position)
{
    int64_t process_id;
    if (insert_process(im, p, run_id, im->position_base + position, &process_id) != 0 ||
        set_regions(im, &p->regions, process_id) != 0)
        return -1;
    im->last_process_id = process_id;
    /* One allocation for the three maps (+1: never malloc(0)). */
    size_t n = (size_t)p->nmodules + (size_t)p->nfns + (size_t)p->nfiles + 1;
    int64_t *ids = malloc(n * sizeof *ids);
    if (!ids) {
        snprintf(im->err, im->errlen, "%s: cannot %s: out of memory", im->d->path, DOING);
        return -1;
    }
    id_maps maps = {.module = ids, .fn = ids + p->nmodules, .file = ids + p->nmodules + p->nfns,
                    .first_instr = im->last_instr_id + 1};
    int rc = intern_modules(im, p, process_id, maps.module);
    if (rc == 0)
        rc = set_exe_module(im, p, cwd, process_id, maps.module);
    if (rc == 0)
        rc = intern_names(im, ST_FUNCTION_FIND, ST_FUNCTION_ADD, p->fns, p->nfns, maps.fn);
    if (rc == 0)
        rc = intern_names(im, ST_FILE_FIND, ST_FILE_ADD, p->files, p->nfiles, maps.file);
    for (size_t i = 0; rc == 0 && i < p->ninstrs; i++)
        rc = insert_instr(im, &p->instrs[i], process_id, &maps);
    if (rc == 0 && p->interval.is_interval)
        rc = insert_interval(im, &p->interval, process_id, &maps);
    if (rc == 0)
        rc = insert_comms(im, p, process_id, &maps);
    free(ids);
    return rc;
}

/* The largest instruction id so far, from which the run's ids continue. */
static int read_last_instr_id(importer *im)
{
    sqlite3_stmt *s = im->st[ST_LAST_INSTR];
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        im->last_instr_id = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    return rc == SQLITE_ROW ? 0 : db_fail(im->d, DOING, im->err, im->errlen);
}

void db_phase_key(const profile *p, int by_callsite, char *key, size_t len)
{
    const prof_interval *iv = &p->interval;
    if (!strcmp(iv->closed_by, "end"))
        snprintf(key, len, "end");
    else if (!by_callsite)
        snprintf(key, len, "%llu", (unsigned long long)iv->index);
    else if (iv->line && iv->file >= 0) {
        const char *slash = strrchr(p->files[iv->file], '/');
        snprintf(key, len, "%s:%u", slash ? slash + 1 : p->files[iv->file], iv->line);
    } else
        snprintf(key, len, "%s+0x%llx", iv->fn >= 0 ? p->fns[iv->fn] : "?", (unsigned long long)iv->addr);
}

/* The position in the run of the process with pid, or -1. */
static int position_of(profile *const *procs, size_t nprocs, int64_t pid)
{
    for (size_t i = 0; i < nprocs; i++)
        if (procs[i]->pid == pid)
            return (int)i;
    return -1;
}

/* The phase `key` of run `parent` an earlier rank of an MPI run stored:
 * *found 1 and its id in *run_id, or *found 0. */
static int find_phase(importer *im, int64_t parent, const char *key, int64_t *run_id, int *found)
{
    sqlite3_stmt *s = im->st[ST_PHASE_FIND];
    sqlite3_bind_int64(s, 1, parent);
    db_bind_text(s, 2, key);
    int rc = sqlite3_step(s);
    *found = rc == SQLITE_ROW;
    if (*found)
        *run_id = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_fail(im->d, DOING, im->err, im->errlen);
}

/* A new run for phase `key` of run `parent`, with ri's parameters and
 * the block sizes of profile p. */
static int insert_phase(importer *im, const run_info *ri, const char *command, int64_t parent, const char *key,
                        const profile *p, int64_t *run_id)
{
    if (insert_run(im, ri, command, p, run_id) != 0)
        return -1;
    sqlite3_bind_int64(im->st[ST_RUN_PHASE], 1, parent);
    db_bind_text(im->st[ST_RUN_PHASE], 2, key);
    sqlite3_bind_int64(im->st[ST_RUN_PHASE], 3, *run_id);
    if (step(im, ST_RUN_PHASE) != 0 || insert_params(im, ri, *run_id) != 0)
        return -1;
    return insert_block_sizes(im, p, *run_id);
}

/* One run per phase of ri->intervals, child of run `parent`, in the order
 * the phases first appear: its processes are those that had the phase,
 * at their positions in the parent run. */
static int import_phases(importer *im, const run_info *ri, const char *command, profile *const *procs, size_t nprocs,
                         int64_t parent)
{
    size_t n = ri->nintervals;
    char (*keys)[256] = calloc(n + 1, sizeof *keys);
    char *done = calloc(n + 1, 1);
    int rc = keys && done ? 0 : -1;
    if (rc != 0)
        snprintf(im->err, im->errlen, "%s: cannot %s: out of memory", im->d->path, DOING);
    for (size_t i = 0; rc == 0 && i < n; i++)
        db_phase_key(ri->intervals[i], ri->by_callsite, keys[i], sizeof keys[i]);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (done[i])
            continue;
        int64_t run_id;
        int found;
        rc = find_phase(im, parent, keys[i], &run_id, &found);
        if (rc == 0 && !found)
            rc = insert_phase(im, ri, command, parent, keys[i], ri->intervals[i], &run_id);
        for (size_t j = i; rc == 0 && j < n; j++) {
            if (done[j] || strcmp(keys[i], keys[j]) != 0)
                continue;
            done[j] = 1;
            int position = position_of(procs, nprocs, ri->intervals[j]->pid);
            if (position < 0) {
                snprintf(im->err, im->errlen, "%s: an interval's profile of process %lld, which has no profile of "
                         "its own: the profiles are not of one collection", im->d->path,
                         (long long)ri->intervals[j]->pid);
                rc = -1;
            } else
                rc = import_process(im, ri->intervals[j], ri->cwd, run_id, position);
        }
    }
    free(keys);
    free(done);
    return rc;
}

/* The process that called MPI_Init (the rank), or NULL. */
static const profile *mpi_rank_of(profile *const *procs, size_t nprocs)
{
    for (size_t i = 0; i < nprocs; i++)
        if (procs[i]->mpi.has_mpi)
            return procs[i];
    return NULL;
}

/* The run an MPI rank joins: the one its launch's first rank made
 * (checked, and *made 0), else none yet (*made 1: the caller makes it). */
static int mpi_run(importer *im, const run_info *ri, const profile *rank, int64_t *run_id, int *made)
{
    *made = 1;
    if (!ri->mpi_launch || db_mpi_find_run(im->d, ri->mpi_launch, run_id, im->err, im->errlen) != 0)
        return ri->mpi_launch ? -1 : 0;
    if (!*run_id)
        return 0;
    *made = 0;
    return db_mpi_join_run(im->d, *run_id, ri, rank, &im->position_base, im->err, im->errlen);
}

/* Insert every row of the run; the caller owns the transaction. */
static int import_rows(importer *im, const run_info *ri, const char *command, profile *const *procs, size_t nprocs,
                       int64_t *run_id)
{
    const profile *rank = mpi_rank_of(procs, nprocs);
    int made = 1;
    *run_id = 0;
    if (read_last_instr_id(im) != 0 || (rank && mpi_run(im, ri, rank, run_id, &made) != 0))
        return -1;
    if (made && (insert_run(im, ri, command, nprocs > 0 ? procs[0] : NULL, run_id) != 0 || insert_params(im, ri, *run_id) != 0 ||
                 (nprocs > 0 && insert_block_sizes(im, procs[0], *run_id) != 0) ||
                 (rank && db_mpi_add_run(im->d, *run_id, ri->mpi_launch, rank->mpi.size, im->err, im->errlen) != 0)))
        return -1;
    int64_t rank_process = 0;
    for (size_t i = 0; i < nprocs; i++) {
        if (import_process(im, procs[i], ri->cwd, *run_id, (int)i) != 0)
            return -1;
        if (procs[i] == rank)
            rank_process = im->last_process_id;
    }
    if (import_phases(im, ri, command, procs, nprocs, *run_id) != 0)
        return -1;
    if (rank && db_mpi_add_rank(im->d, *run_id, rank->mpi.rank, rank_process, ri, im->err, im->errlen) != 0)
        return -1;
    for (int b = 0; b < NBATCHES; b++)
        if (db_batch_flush(im->d, &im->batch[b], DOING, im->err, im->errlen) != 0)
            return -1;
    return 0;
}

static int prepare_all(importer *im)
{
    for (int b = 0; b < NBATCHES; b++)
        db_batch_init(&im->batch[b], batch_sql[b].insert, batch_sql[b].ncols);
    for (int s = 0; s < NSTMTS; s++)
        if (db_prepare(im->d, stmt_sql[s], &im->st[s], DOING, im->err, im->errlen) != 0)
            return -1;
    return 0;
}

static void finalize_all(importer *im)
{
    for (int s = 0; s < NSTMTS; s++)
        sqlite3_finalize(im->st[s]);
    for (int b = 0; b < NBATCHES; b++)
        db_batch_free(&im->batch[b]);
}

int db_import_run(db *d, const run_info *ri, profile *const *procs, size_t nprocs, int64_t *run_id, char *err,
                  size_t errlen)
{
    if (check_run(d, ri, procs, nprocs, err, errlen) != 0)
        return -1;
    fill_build_ids(procs, nprocs);
    fill_build_ids(ri->intervals, ri->nintervals);
    char *command = db_json_strings(ri->argv, (size_t)ri->argc);
    if (!command) {
        snprintf(err, errlen, "%s: cannot %s: out of memory", d->path, DOING);
        return -1;
    }
    importer *im = calloc(1, sizeof *im); /* large: the batches keep their values */
    if (!im) {
        free(command);
        snprintf(err, errlen, "%s: cannot %s: out of memory", d->path, DOING);
        return -1;
    }
    im->d = d;
    im->err = err;
    im->errlen = errlen;
    int rc = prepare_all(im);
    if (rc == 0)
        rc = db_exec(d, "BEGIN IMMEDIATE", DOING, err, errlen);
    if (rc == 0) {
        rc = import_rows(im, ri, command, procs, nprocs, run_id);
        if (rc == 0)
            rc = db_exec(d, "COMMIT", DOING, err, errlen);
        if (rc != 0)
            sqlite3_exec(d->sql, "ROLLBACK", NULL, NULL, NULL);
    }
    finalize_all(im);
    free(im);
    free(command);
    return rc;
}

/* modelset_series.c — every executed instruction location (module,
 * address) as a series over the training runs: its executions, reads and
 * writes in each run, the processes of a run added up.  A location a run
 * never executed has 0 there.  Instruction rows of all runs are sorted by
 * location once and swept, so the cost is O(R log R) for R rows.  Runs of
 * several builds have their program's rows moved to the reference build's
 * locations first (ms_series_load). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modelset/modelset.h"

/* One instruction row of one run, for sorting by location. */
typedef struct row_ref {
    int64_t module_id;
    uint64_t addr;
    uint32_t run;
    size_t index;
} row_ref;

static int by_location(const void *pa, const void *pb)
{
    const row_ref *a = pa, *b = pb;
    if (a->module_id != b->module_id)
        return a->module_id < b->module_id ? -1 : 1;
    if (a->addr != b->addr)
        return a->addr < b->addr ? -1 : 1;
    if (a->run != b->run)
        return a->run < b->run ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* All rows of all runs, sorted by location. */
static row_ref *sorted_rows(const ms_series *s, size_t *nrows)
{
    size_t n = 0;
    for (size_t r = 0; r < s->runs->n; r++)
        n += s->run_nins[r];
    row_ref *rows = malloc((n + 1) * sizeof *rows);
    if (!rows)
        return NULL;
    n = 0;
    for (size_t r = 0; r < s->runs->n; r++)
        for (size_t i = 0; i < s->run_nins[r]; i++) {
            const db_instr *in = &s->run_ins[r][i];
            rows[n++] = (row_ref){.module_id = in->module_id, .addr = in->addr, .run = (uint32_t)r, .index = i};
        }
    qsort(rows, n, sizeof *rows, by_location);
    *nrows = n;
    return rows;
}

static size_t count_locations(const row_ref *rows, size_t n)
{
    size_t locs = 0;
    for (size_t i = 0; i < n; i++)
        locs += i == 0 || rows[i].module_id != rows[i - 1].module_id || rows[i].addr != rows[i - 1].addr;
    return locs;
}

static int allocate(ms_series *s, size_t nlocs)
{
    size_t values = nlocs * s->runs->n + 1;
    s->nlocs = nlocs;
    s->locs = calloc(nlocs + 1, sizeof *s->locs);
    s->exec = calloc(values, sizeof *s->exec);
    s->reads = calloc(values, sizeof *s->reads);
    s->writes = calloc(values, sizeof *s->writes);
    s->taken = calloc(values, sizeof *s->taken);
    int ok = s->locs && s->exec && s->reads && s->writes && s->taken;
    for (size_t r = 0; ok && r < s->runs->n; r++)
        ok = (s->run_loc[r] = malloc((s->run_nins[r] + 1) * sizeof *s->run_loc[r])) != NULL;
    return ok ? 0 : -1;
}

/* Sweep the sorted rows into locations and their per-run sums. */
static void merge(ms_series *s, const row_ref *rows, size_t nrows)
{
    size_t loc = 0, nruns = s->runs->n;
    for (size_t i = 0; i < nrows; i++) {
        const db_instr *in = &s->run_ins[rows[i].run][rows[i].index];
        if (i > 0 && (rows[i].module_id != rows[i - 1].module_id || rows[i].addr != rows[i - 1].addr))
            loc++;
        ms_loc *l = &s->locs[loc];
        if (!l->len) /* first row of the location names it */
            *l = (ms_loc){.module_id = in->module_id, .function_id = in->function_id, .file_id = in->file_id,
                          .line = in->line, .len = in->len ? in->len : 1, .addr = in->addr};
        size_t v = loc * nruns + rows[i].run;
        s->exec[v] += (double)in->executions;
        s->reads[v] += (double)in->reads;
        s->writes[v] += (double)in->writes;
        s->taken[v] += (double)in->taken;
        s->run_loc[rows[i].run][rows[i].index] = loc;
    }
}

/* Function, file and module names of every location. */
static int load_names(db *d, ms_series *s, char *err, size_t errlen)
{
    int64_t *ids = malloc((s->nlocs + 1) * sizeof *ids);
    char ***dst[3] = {&s->function, &s->file, &s->module};
    enum db_name_kind kind[3] = {DB_FUNCTION_NAME, DB_FILE_PATH, DB_MODULE_PATH};
    int rc = ids ? 0 : -1;
    for (int k = 0; rc == 0 && k < 3; k++) {
        if (!(*dst[k] = calloc(s->nlocs + 1, sizeof **dst[k]))) {
            rc = -1;
            break;
        }
        for (size_t i = 0; i < s->nlocs; i++)
            ids[i] = k == 0 ? s->locs[i].function_id : k == 1 ? s->locs[i].file_id : s->locs[i].module_id;
        if (db_names(d, kind[k], ids, s->nlocs, *dst[k], err, errlen) != 0) {
            free(ids);
            return -1;
        }
    }
    free(ids);
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    return rc;
}

/* ---- builds: rows moved to the reference's locations -------------------------- */

/* A source line of a function: where unmatched instructions are counted. */
typedef struct line_key {
    int64_t function_id, file_id;
    uint32_t line;
} line_key;

static int by_line_key(const void *pa, const void *pb)
{
    const line_key *a = pa, *b = pb;
    if (a->function_id != b->function_id)
        return a->function_id < b->function_id ? -1 : 1;
    if (a->file_id != b->file_id)
        return a->file_id < b->file_id ? -1 : 1;
    return (a->line > b->line) - (a->line < b->line);
}

/* Is row `in` of run r an instruction of its build's program that is not
 * matched to the reference's? *m gets the match, when there is one. */
static int unmatched_row(const ms_series *s, const ms_builds *bs, size_t r, const db_instr *in,
                         const build_insn_map **m)
{
    size_t b = s->runs->run_build[r];
    *m = NULL;
    if (in->module_id != s->runs->builds[b].module_id)
        return 0;
    *m = build_insn_find(bs->b[b].map, bs->b[b].nmap, in->addr);
    return *m == NULL;
}

/* The distinct lines of the unmatched rows of all runs, sorted; NULL when
 * memory runs out. */
static line_key *unmatched_lines(const ms_series *s, const ms_builds *bs, size_t *n)
{
    size_t cap = 1;
    for (size_t r = 0; r < s->runs->n; r++)
        cap += s->run_nins[r];
    line_key *k = malloc(cap * sizeof *k);
    *n = 0;
    for (size_t r = 0; k && r < s->runs->n; r++)
        for (size_t i = 0; i < s->run_nins[r]; i++) {
            const db_instr *in = &s->run_ins[r][i];
            const build_insn_map *m;
            if (unmatched_row(s, bs, r, in, &m))
                k[(*n)++] = (line_key){in->function_id, in->file_id, in->line};
        }
    if (!k)
        return NULL;
    qsort(k, *n, sizeof *k, by_line_key);
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++)
        if (kept == 0 || by_line_key(&k[kept - 1], &k[i]))
            k[kept++] = k[i];
    *n = kept;
    return k;
}

/* Move every run's program rows to the reference build's locations. */
static int move_to_reference(ms_series *s, const ms_builds *bs)
{
    size_t nlines;
    line_key *lines = unmatched_lines(s, bs, &nlines);
    if (!lines)
        return -1;
    for (size_t r = 0; r < s->runs->n; r++)
        for (size_t i = 0; i < s->run_nins[r]; i++) {
            db_instr *in = &s->run_ins[r][i];
            const build_insn_map *m;
            if (unmatched_row(s, bs, r, in, &m)) {
                line_key key = {in->function_id, in->file_id, in->line};
                const line_key *at = bsearch(&key, lines, nlines, sizeof *lines, by_line_key);
                in->addr = MS_UNMATCHED_ADDR + (uint64_t)(at - lines);
                in->len = 0;
            } else if (m) {
                in->addr = m->to;
                in->len = m->len;
            } else
                continue; /* another module: the same in every build */
            in->module_id = s->runs->program_module;
        }
    free(lines);
    return 0;
}

int ms_series_load(db *d, const ms_runs *runs, const ms_builds *builds, ms_series *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->runs = runs;
    out->run_ins = calloc(runs->n + 1, sizeof *out->run_ins);
    out->run_nins = calloc(runs->n + 1, sizeof *out->run_nins);
    out->run_loc = calloc(runs->n + 1, sizeof *out->run_loc);
    if (!out->run_ins || !out->run_nins || !out->run_loc)
        return snprintf(err, errlen, "out of memory"), -1;
    for (size_t r = 0; r < runs->n; r++)
        if (db_run_instructions(d, runs->ids[r], &out->run_ins[r], &out->run_nins[r], err, errlen) != 0)
            return -1;
    if (builds && move_to_reference(out, builds) != 0)
        return snprintf(err, errlen, "out of memory"), -1;
    size_t nrows;
    row_ref *rows = sorted_rows(out, &nrows);
    if (!rows || allocate(out, count_locations(rows, nrows)) != 0) {
        free(rows);
        return snprintf(err, errlen, "out of memory"), -1;
    }
    merge(out, rows, nrows);
    free(rows);
    return load_names(d, out, err, errlen);
}

void ms_series_free(ms_series *s)
{
    for (size_t r = 0; s->runs && r < s->runs->n; r++) {
        if (s->run_ins)
            free(s->run_ins[r]);
        if (s->run_loc)
            free(s->run_loc[r]);
    }
    free(s->run_ins), free(s->run_nins), free(s->run_loc);
    char **names[3] = {s->function, s->file, s->module};
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; names[k] && i < s->nlocs; i++)
            free(names[k][i]);
        free(names[k]);
    }
    free(s->locs), free(s->exec), free(s->reads), free(s->writes), free(s->taken);
    memset(s, 0, sizeof *s);
}

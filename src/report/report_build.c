/* report_build.c — gathers a report's numbers from the database.
 *
 * The run's instructions are read once.  For each line size among the
 * report's caches, every instruction's histogram at that block size gives
 * its misses for each cache of that line size (rd_misses).  Misses are
 * linear in the histogram, so adding up instructions' misses gives a
 * group's misses exactly as if its histograms had been merged first.
 * Functions and source lines are then formed by sorting the instructions by
 * their group key and adding up runs of equal keys; names are looked up for
 * the groups only.
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

#define NKEYS 3

/* An instruction with its group key, for sorting. */
typedef struct keyed {
    int64_t key[NKEYS];
    size_t index;
} keyed;

/* A group of instructions with equal keys and their summed counts. */
typedef struct group {
    int64_t key[NKEYS];
    report_counts c;
} group;

typedef void (*key_of)(const db_instr *in, int64_t key[NKEYS]);

/* Functions: (function, module). */
static void function_key(const db_instr *in, int64_t key[NKEYS])
{
    key[0] = in->function_id;
    key[1] = in->module_id;
    key[2] = 0;
}

/* Source lines: (file, line, function). */
static void line_key(const db_instr *in, int64_t key[NKEYS])
{
    key[0] = in->file_id;
    key[1] = in->line;
    key[2] = in->function_id;
}

/* What report_build works with: the instructions and their misses. */
typedef struct builder {
    db *d;
    const db_run *run;
    const report_cache *caches;
    size_t ncaches;
    db_instr *ins;  /* ascending ids */
    size_t n;
    double *misses; /* misses[i * ncaches + c]: instruction i, cache c */
    uint32_t line;  /* the line size whose histograms are being read */
    char *err;
    size_t errlen;
} builder;

/* ---- misses -------------------------------------------------------------- */

/* db_for_each_histogram callback: one instruction's misses for the caches
 * of line size b->line. */
static int on_histogram(void *ctx, int64_t instr_id, uint64_t cold, const rd_binrec *bins, size_t nbins)
{
    builder *b = ctx;
    size_t i = db_instr_find(b->ins, b->n, instr_id);
    if (i == b->n)
        return 0; /* cannot happen: the same query selects both */
    for (size_t c = 0; c < b->ncaches; c++)
        if (b->caches[c].line == b->line)
            b->misses[i * b->ncaches + c] = rd_misses(cold, bins, nbins, b->caches[c].size / b->caches[c].line);
    return 0;
}

static int compute_misses(builder *b)
{
    b->misses = calloc(b->n * b->ncaches + 1, sizeof *b->misses);
    if (!b->misses) {
        snprintf(b->err, b->errlen, "out of memory");
        return -1;
    }
    for (size_t c = 0; c < b->ncaches; c++) {
        int seen = 0; /* this line size was done for an earlier cache */
        for (size_t e = 0; e < c; e++)
            seen |= b->caches[e].line == b->caches[c].line;
        if (seen)
            continue;
        b->line = b->caches[c].line;
        if (db_for_each_histogram(b->d, b->run->id, b->line, on_histogram, b, b->err, b->errlen) != 0)
            return -1;
    }
    return 0;
}

/* ---- grouping ------------------------------------------------------------ */

static void add_counts(report_counts *to, const builder *b, size_t i)
{
    to->instructions += b->ins[i].executions;
    to->reads += b->ins[i].reads;
    to->writes += b->ins[i].writes;
    for (size_t c = 0; c < b->ncaches; c++)
        to->misses[c] += b->misses[i * b->ncaches + c];
}

static int compare_keyed(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    for (int k = 0; k < NKEYS; k++)
        if (a->key[k] != b->key[k])
            return a->key[k] < b->key[k] ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Group the instructions by key into a new array *out of *ngroups groups. */
static int group_by(const builder *b, key_of key, group **out, size_t *ngroups)
{
    keyed *k = malloc((b->n + 1) * sizeof *k);
    group *g = calloc(b->n + 1, sizeof *g);
    if (!k || !g) {
        free(k);
        free(g);
        snprintf(b->err, b->errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < b->n; i++) {
        key(&b->ins[i], k[i].key);
        k[i].index = i;
    }
    qsort(k, b->n, sizeof *k, compare_keyed);
    size_t n = 0;
    for (size_t i = 0; i < b->n; i++) {
        if (n == 0 || memcmp(g[n - 1].key, k[i].key, sizeof k[i].key) != 0)
            memcpy(g[n++].key, k[i].key, sizeof k[i].key);
        add_counts(&g[n - 1].c, b, k[i].index);
    }
    free(k);
    *out = g;
    *ngroups = n;
    return 0;
}

/* ---- ordering ------------------------------------------------------------ */

/* Most instructions first, then most accesses (start-up rows are put last
 * before this, when hidden). */
static int by_counts(const report_counts *a, const report_counts *b)
{
    if (a->instructions != b->instructions)
        return a->instructions > b->instructions ? -1 : 1;
    uint64_t aa = a->reads + a->writes, ba = b->reads + b->writes;
    return aa != ba ? (aa > ba ? -1 : 1) : 0;
}

int report_cmp_names(const char *a, const char *b)
{
    if (!a || !b)
        return !a - !b;
    return strcmp(a, b);
}

static int compare_functions(const void *pa, const void *pb)
{
    const report_function *a = pa, *b = pb;
    int c = a->startup - b->startup;
    if (!c)
        c = by_counts(&a->c, &b->c);
    if (!c)
        c = report_cmp_names(a->function, b->function);
    return c ? c : report_cmp_names(a->module, b->module);
}

static int compare_lines(const void *pa, const void *pb)
{
    const report_line *a = pa, *b = pb;
    int c = a->startup - b->startup;
    if (!c)
        c = by_counts(&a->c, &b->c);
    if (!c)
        c = report_cmp_names(a->file, b->file);
    if (!c && a->line != b->line)
        c = a->line < b->line ? -1 : 1;
    return c ? c : report_cmp_names(a->function, b->function);
}

void report_sort(report *r)
{
    qsort(r->functions, r->nfunctions, sizeof *r->functions, compare_functions);
    qsort(r->lines, r->nlines, sizeof *r->lines, compare_lines);
}

/* ---- tables -------------------------------------------------------------- */

/* Groups of instructions with the names of two of their key columns:
 * names[k][i] is the name of key column col[k] of group i (NULL: unknown). */
typedef struct named_groups {
    group *g;
    size_t n;
    char **names[2];
} named_groups;

/* Free the arrays; the names too when `with_names` (else they have been
 * handed over to the report). */
static void free_named_groups(named_groups *ng, int with_names)
{
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; with_names && ng->names[k] && i < ng->n; i++)
            free(ng->names[k][i]);
        free(ng->names[k]);
    }
    free(ng->g);
    memset(ng, 0, sizeof *ng);
}

static int name_groups(const builder *b, key_of key, const int col[2], const enum db_name_kind kind[2],
                       named_groups *ng)
{
    memset(ng, 0, sizeof *ng);
    if (group_by(b, key, &ng->g, &ng->n) != 0)
        return -1;
    int64_t *ids = malloc((ng->n + 1) * sizeof *ids);
    int rc = ids ? 0 : -1;
    for (int k = 0; k < 2 && rc == 0; k++) {
        if (!(ng->names[k] = calloc(ng->n + 1, sizeof *ng->names[k]))) {
            rc = -1;
            break;
        }
        for (size_t i = 0; i < ng->n; i++)
            ids[i] = ng->g[i].key[col[k]];
        if (db_names(b->d, kind[k], ids, ng->n, ng->names[k], b->err, b->errlen) != 0) {
            free(ids);
            free_named_groups(ng, 1);
            return -1;
        }
    }
    free(ids);
    if (rc != 0) {
        free_named_groups(ng, 1);
        snprintf(b->err, b->errlen, "out of memory");
    }
    return rc;
}

static int build_functions(const builder *b, report *r)
{
    static const int col[2] = {0, 1};
    static const enum db_name_kind kind[2] = {DB_FUNCTION_NAME, DB_MODULE_PATH};
    named_groups ng;
    if (name_groups(b, function_key, col, kind, &ng) != 0)
        return -1;
    if (!(r->functions = calloc(ng.n + 1, sizeof *r->functions))) {
        free_named_groups(&ng, 1);
        snprintf(b->err, b->errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < ng.n; i++)
        r->functions[i] = (report_function){.function = ng.names[0][i], .module = ng.names[1][i], .c = ng.g[i].c};
    r->nfunctions = ng.n;
    free_named_groups(&ng, 0);
    return 0;
}

static int build_lines(const builder *b, report *r)
{
    static const int col[2] = {0, 2};
    static const enum db_name_kind kind[2] = {DB_FILE_PATH, DB_FUNCTION_NAME};
    named_groups ng;
    if (name_groups(b, line_key, col, kind, &ng) != 0)
        return -1;
    if (!(r->lines = calloc(ng.n + 1, sizeof *r->lines))) {
        free_named_groups(&ng, 1);
        snprintf(b->err, b->errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < ng.n; i++)
        r->lines[i] = (report_line){
            .file = ng.names[0][i], .line = (uint32_t)ng.g[i].key[1], .function = ng.names[1][i], .c = ng.g[i].c};
    r->nlines = ng.n;
    free_named_groups(&ng, 0);
    return 0;
}

int report_build(db *d, const db_run *run, const report_cache *caches, size_t ncaches, report *out, char *err,
                 size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->run = run;
    if (ncaches > REPORT_MAX_CACHES) {
        snprintf(err, errlen, "too many caches (%zu): a report computes at most %d", ncaches, REPORT_MAX_CACHES);
        return -1;
    }
    out->ncaches = ncaches;
    if (ncaches) /* caches may be NULL then */
        memcpy(out->caches, caches, ncaches * sizeof *caches);
    builder b = {.d = d, .run = run, .caches = caches, .ncaches = ncaches, .err = err, .errlen = errlen};
    int rc = db_run_instructions(d, run->id, &b.ins, &b.n, err, errlen);
    if (rc == 0)
        rc = compute_misses(&b);
    if (rc == 0) {
        for (size_t i = 0; i < b.n; i++)
            add_counts(&out->total, &b, i);
        rc = build_functions(&b, out);
    }
    if (rc == 0)
        rc = build_lines(&b, out);
    if (rc == 0)
        report_sort(out);
    free(b.ins);
    free(b.misses);
    return rc;
}

void report_free(report *r)
{
    for (size_t i = 0; i < r->nfunctions; i++) {
        free(r->functions[i].function);
        free(r->functions[i].module);
    }
    free(r->functions);
    for (size_t i = 0; i < r->nlines; i++) {
        free(r->lines[i].file);
        free(r->lines[i].function);
    }
    free(r->lines);
    memset(r, 0, sizeof *r);
}

/* report_diff_write.c — a diff (diff.h) as text for people and as JSON
 * (docs/exports.md, "augur diff"). */
#include <math.h>
#include <string.h>

#include "report/diff.h"
#include "report/text_table.h"
#include "util/json_util.h"

/* The figures a diff compares, per row: instructions, accesses, then the
 * misses of each cache. */
#define NFIGURES(d) (2 + (d)->a->ncaches)

static double figure(const report_counts *c, size_t k)
{
    if (k == 0)
        return (double)c->instructions;
    if (k == 1)
        return (double)(c->reads + c->writes);
    return c->misses[k - 2];
}

static void figure_name(const report_diff *d, size_t k, char *buf, size_t len)
{
    if (k < 2) {
        snprintf(buf, len, "%s", k == 0 ? "instructions" : "accesses");
        return;
    }
    char label[64];
    report_cache_label(&d->a->caches[k - 2], label, sizeof label);
    snprintf(buf, len, "misses %s", label);
}

static const char *sort_name(enum diff_sort s)
{
    return s == DIFF_BY_ACCESSES ? "accesses" : s == DIFF_BY_MISSES ? "misses" : "instructions";
}

/* ---- text ------------------------------------------------------------------------- */

/* B - A of a figure, whole, with its sign ("0" for none). */
static void change_cell(text_table *t, double a, double b, num_style numbers)
{
    char buf[NUMFMT_LEN];
    long long change = llround(b - a);
    text_table_cell(t, "%s", change ? numfmt_signed(change, numbers, buf) : "0");
}

/* (B - A) / A in percent, one decimal; "new" when A is 0 and B is not. */
static void relative_cell(text_table *t, double a, double b)
{
    if (a == b)
        text_table_cell(t, "0.0");
    else if (a == 0)
        text_table_cell(t, "new");
    else
        text_table_cell(t, "%+.1f", 100.0 * (b - a) / a);
}

static int print_run(const char *which, const db_run *run, const char *db, FILE *out)
{
    fprintf(out, "  %s  run %lld of %s: ", which, (long long)run->id, db);
    report_print_command(run->command, out);
    for (size_t i = 0; i < run->nparams; i++)
        fprintf(out, "%s%s=%s", i ? " " : "  (", run->params[i].name, run->params[i].text);
    fputs(run->nparams ? ")\n" : "\n", out);
    return ferror(out) ? -1 : 0;
}

static int print_totals(const report_diff *d, num_style numbers, FILE *out)
{
    text_table t = {.ncols = 5, .align = "lrrrr"};
    text_table_cell(&t, "%s", "");
    text_table_cell(&t, "A");
    text_table_cell(&t, "B");
    text_table_cell(&t, "change");
    text_table_cell(&t, "%%");
    for (size_t k = 0; k < NFIGURES(d); k++) {
        char name[80], a[NUMFMT_LEN], b[NUMFMT_LEN];
        double va = figure(&d->a->total, k), vb = figure(&d->b->total, k);
        figure_name(d, k, name, sizeof name);
        text_table_cell(&t, "%s", name);
        text_table_cell(&t, "%s", numfmt_fixed(va, 0, numbers, a));
        text_table_cell(&t, "%s", numfmt_fixed(vb, 0, numbers, b));
        change_cell(&t, va, vb, numbers);
        relative_cell(&t, va, vb);
    }
    fputs("\nTotals\n", out);
    int rc = text_table_print(&t, out);
    text_table_free(&t);
    return rc;
}

/* One table of rows: the changes of each figure, then `names` columns
 * filled by name_cells. */
static int print_rows(const report_diff *d, const char *what, const diff_row *rows, size_t n, size_t nchanged,
                      size_t top, num_style numbers, const char *const *names,
                      void (*name_cells)(text_table *, const diff_row *), FILE *out)
{
    size_t shown = top && top < nchanged ? top : nchanged;
    if (shown < nchanged)
        fprintf(out, "\n%s: %zu of the %zu changed (of %zu), largest change in %s first\n", what, shown, nchanged, n,
                sort_name(d->sort));
    else
        fprintf(out, "\n%s: %zu changed (of %zu), largest change in %s first\n", what, nchanged, n,
                sort_name(d->sort));
    if (shown == 0)
        return ferror(out) ? -1 : 0;
    text_table t = {.ncols = 2 * NFIGURES(d) + 2};
    memset(t.align, 'r', 2 * NFIGURES(d));
    memset(t.align + 2 * NFIGURES(d), 'l', 2);
    for (size_t k = 0; k < NFIGURES(d); k++) {
        char name[80];
        figure_name(d, k, name, sizeof name);
        text_table_cell(&t, "%s", name);
        text_table_cell(&t, "%%");
    }
    text_table_cell(&t, "%s", names[0]);
    text_table_cell(&t, "%s", names[1]);
    for (size_t i = 0; i < shown; i++) {
        for (size_t k = 0; k < NFIGURES(d); k++) {
            change_cell(&t, figure(&rows[i].a, k), figure(&rows[i].b, k), numbers);
            relative_cell(&t, figure(&rows[i].a, k), figure(&rows[i].b, k));
        }
        name_cells(&t, &rows[i]);
    }
    int rc = text_table_print(&t, out);
    text_table_free(&t);
    return rc;
}

static void function_cells(text_table *t, const diff_row *r)
{
    char name[REPORT_NAME_WIDTH + 1];
    text_table_cell(t, "%s", r->function ? st_short_name(r->function, REPORT_NAME_WIDTH, name, sizeof name)
                                         : "(unknown)");
    text_table_cell(t, "%s", r->module ? report_base_name(r->module) : "(unknown)");
}

static void line_cells(text_table *t, const diff_row *r)
{
    char name[REPORT_NAME_WIDTH + 1];
    if (r->line)
        text_table_cell(t, "%s:%u", r->file ? r->file : "(unknown)", r->line);
    else
        text_table_cell(t, "%s", r->file ? r->file : "(unknown)");
    text_table_cell(t, "%s", r->function ? st_short_name(r->function, REPORT_NAME_WIDTH, name, sizeof name)
                                         : "(unknown)");
}

int report_diff_write_text(const report_diff *d, size_t top, num_style numbers, FILE *out)
{
    static const char *const fn_names[] = {"function", "module"}, *const line_names[] = {"file:line", "function"};
    fputs("Diff: B - A, and relative to A\n", out);
    if (print_run("A", d->a->run, d->db_a, out) != 0 || print_run("B", d->b->run, d->db_b, out) != 0 ||
        print_totals(d, numbers, out) != 0 ||
        print_rows(d, "Functions", d->functions, d->nfunctions, d->functions_changed, top, numbers, fn_names,
                   function_cells, out) != 0 ||
        print_rows(d, "Source lines", d->lines, d->nlines, d->lines_changed, top, numbers, line_names, line_cells,
                   out) != 0)
        return -1;
    if (d->a->ncaches)
        fputs("\nMisses are those of fully-associative LRU caches from the reuse distances (docs/report.md).\n", out);
    return ferror(out) ? -1 : 0;
}

/* ---- JSON ------------------------------------------------------------------------- */

/* (B - A) / A * 100, or null when A is 0. */
static json_t *relative_json(double a, double b)
{
    return a != 0 ? json_real(100.0 * (b - a) / a) : json_null();
}

/* {"a": A, "b": B, "change": B - A, "relative_percent": ...} of misses. */
static json_t *change_json(double a, double b)
{
    return json_pack("{s:o, s:o, s:o, s:o}", "a", json_whole_or_real(a), "b", json_whole_or_real(b), "change",
                     json_whole_or_real(b - a), "relative_percent", relative_json(a, b));
}

/* The same of a count, in whole numbers (counts and their differences
 * are below 2^63). */
static json_t *count_change_json(uint64_t a, uint64_t b)
{
    return json_pack("{s:I, s:I, s:I, s:o}", "a", (json_int_t)a, "b", (json_int_t)b, "change",
                     (json_int_t)b - (json_int_t)a, "relative_percent", relative_json((double)a, (double)b));
}

/* The changes of every count of a row: instructions, reads, writes,
 * accesses, and misses by cache key. */
static json_t *changes_json(const report_diff *d, const report_counts *a, const report_counts *b)
{
    json_t *misses = json_object();
    for (size_t k = 0; misses && k < d->a->ncaches; k++) {
        char key[64];
        report_cache_key(&d->a->caches[k], key, sizeof key);
        json_object_set_new(misses, key, change_json(a->misses[k], b->misses[k]));
    }
    return json_pack("{s:o, s:o, s:o, s:o, s:o}", "instructions", count_change_json(a->instructions, b->instructions),
                     "reads", count_change_json(a->reads, b->reads), "writes", count_change_json(a->writes, b->writes),
                     "accesses", count_change_json(a->reads + a->writes, b->reads + b->writes), "misses", misses);
}

static json_t *side_json(const char *db, const db_run *run)
{
    return json_pack("{s:o, s:o}", "database", json_string_lossy(db), "run", report_run_json(run));
}

static json_t *rows_json(const report_diff *d, const diff_row *rows, size_t nchanged, size_t top, int lines)
{
    size_t shown = top && top < nchanged ? top : nchanged;
    json_t *a = json_array();
    for (size_t i = 0; a && i < shown; i++) {
        const diff_row *r = &rows[i];
        json_t *o = lines ? json_pack("{s:o, s:o, s:o}", "file", json_string_lossy(r->file), "line",
                                      r->line ? json_integer(r->line) : json_null(), "function",
                                      json_string_lossy(r->function))
                          : json_pack("{s:o, s:o}", "function", json_string_lossy(r->function), "module",
                                      json_string_lossy(r->module));
        if (!o || json_object_update_new(o, json_pack("{s:b, s:b}", "in_a", r->in_a, "in_b", r->in_b)) != 0 ||
            json_object_update_new(o, changes_json(d, &r->a, &r->b)) != 0 || json_array_append_new(a, o) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

int report_diff_write_json(const report_diff *d, size_t top, FILE *out)
{
    json_t *j = json_pack("{s:o, s:o, s:o, s:s, s:o, s:o, s:I, s:I, s:o, s:I, s:I}", "a",
                          side_json(d->db_a, d->a->run), "b", side_json(d->db_b, d->b->run), "caches",
                          report_caches_array_json(d->a->caches, d->a->ncaches), "sort", sort_name(d->sort), "total",
                          changes_json(d, &d->a->total, &d->b->total), "functions",
                          rows_json(d, d->functions, d->functions_changed, top, 0), "function_count",
                          (json_int_t)d->nfunctions, "functions_changed", (json_int_t)d->functions_changed,
                          "lines", rows_json(d, d->lines, d->lines_changed, top, 1), "line_count",
                          (json_int_t)d->nlines, "lines_changed", (json_int_t)d->lines_changed);
    if (!j)
        return -1;
    int rc = json_dumpf(j, out, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) == 0 && fputc('\n', out) != EOF ? 0 : -1;
    json_decref(j);
    return rc;
}

/* report_text.c — renders a report as text for people: the run, the
 * totals, then the functions and the source lines with the most executed
 * instructions, in tables whose columns are aligned.  Function names longer
 * than REPORT_NAME_WIDTH (C++ signatures) are shortened (st_short_name);
 * the JSON keeps them whole. */
#define _GNU_SOURCE /* vasprintf, sigabbrev_np */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/text_table.h"
#include "util/array.h"
#include "util/numfmt.h"

#define UNKNOWN "(unknown)"

/* A function's name for a table cell: shortened into buf, UNKNOWN when
 * there is none.  Returns buf or UNKNOWN. */
static const char *name_cell(const char *function, char *buf, size_t len)
{
    return function ? st_short_name(function, REPORT_NAME_WIDTH, buf, len) : UNKNOWN;
}

/* ---- cells --------------------------------------------------------------- */

/* A count or a miss count as a whole number, predicted ones rounded as
 * shown_value says: a fraction of a miss comes from a capacity inside a
 * histogram bin or from a model, and is not a figure known to a tenth of a
 * miss (JSON keeps it). */
static void ranged_cell(text_table *t, double v, double lo, double hi, num_style numbers)
{
    char buf[NUMFMT_LEN];
    text_table_cell(t, "%s", numfmt_fixed(numfmt_shown(v, lo, hi), 0, numbers, buf));
}

/* "range LO to HI" of a prediction's figure, then `more`. */
static void range_cell(text_table *t, double lo, double hi, const char *more, num_style numbers)
{
    char r[NUMFMT_RANGE_LEN];
    text_table_cell(t, "range %s%s", numfmt_range(lo, hi, numbers, r), more);
}

static void percent_cell(text_table *t, uint64_t part, uint64_t whole)
{
    text_table_cell(t, "%.1f", whole ? 100.0 * (double)part / (double)whole : 0.0);
}

/* The counts columns shared by the function and line tables. */
static void counts_cells(text_table *t, const report *r, const report_counts *c, num_style numbers)
{
    ranged_cell(t, (double)c->instructions, c->count_low[0], c->count_high[0], numbers);
    percent_cell(t, c->instructions, r->total.instructions);
    ranged_cell(t, (double)(c->reads + c->writes), c->count_low[1] + c->count_low[2], c->count_high[1] + c->count_high[2],
                numbers);
    for (size_t k = 0; k < r->ncaches; k++)
        ranged_cell(t, c->misses[k], c->misses_low[k], c->misses_high[k], numbers);
}

/* Header row of the counts columns, then `names` (NULL-terminated). */
static void header_cells(text_table *t, const report *r, const char *const *names)
{
    text_table_cell(t, "instructions");
    text_table_cell(t, "%%");
    text_table_cell(t, "accesses");
    for (size_t k = 0; k < r->ncaches; k++) {
        char label[64];
        report_cache_label(&r->caches[k], label, sizeof label);
        text_table_cell(t, "misses %s", label);
    }
    for (; *names; names++)
        text_table_cell(t, "%s", *names);
}

/* A table for the counts columns and `extra` name columns. */
static text_table counts_table(const report *r, size_t extra)
{
    text_table t = {.ncols = 3 + r->ncaches + extra};
    memset(t.align, 'r', 3 + r->ncaches);
    memset(t.align + 3 + r->ncaches, 'l', extra);
    return t;
}

const char *report_base_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path;
}

const char *report_relative_path(const char *path, const char *cwd)
{
    size_t n = strlen(cwd);
    if (n > 0 && strncmp(path, cwd, n) == 0 && path[n] == '/')
        return path + n + 1;
    return path;
}

/* ---- sections ------------------------------------------------------------ */

const char *report_signal_text(int sig, char *buf, size_t len)
{
    snprintf(buf, len, "signal %d (SIG%s)", sig, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
    return buf;
}

void report_shell_word(const char *s, FILE *out)
{
    int plain = *s != '\0' &&
                strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=:,+@%-") == strlen(s);
    if (plain) {
        fputs(s, out);
        return;
    }
    fputc('\'', out);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", out); /* end quote, escaped quote, reopen */
        else
            fputc(*s, out);
    }
    fputc('\'', out);
}

void report_print_command(const char *command_json, FILE *out)
{
    json_t *cmd = json_loads(command_json, 0, NULL);
    size_t i;
    json_t *word;
    json_array_foreach(cmd, i, word)
    {
        const char *s = json_string_value(word);
        if (!s)
            continue;
        fputs(i ? " " : "", out);
        report_shell_word(s, out);
    }
    json_decref(cmd);
}

static int print_run(const report *r, FILE *out)
{
    const db_run *run = r->run;
    fprintf(out, "Run %lld: ", (long long)run->id);
    report_print_command(run->command, out);
    fputc('\n', out);
    text_table t = {.ncols = 2, .align = "ll"};
    text_table_cell(&t, "status");
    if (*run->status_detail) /* "killed by signal 11 (SIGSEGV)": its 139 is augur's status, not an exit */
        text_table_cell(&t, "%s: %s", run->status, run->status_detail);
    else
        text_table_cell(&t, "%s, exit status %d", run->status, run->exit_code);
    if (run->nparams) {
        text_table_cell(&t, "parameters");
        char *list = NULL;
        size_t len = 0;
        FILE *s = open_memstream(&list, &len);
        for (size_t i = 0; s && i < run->nparams; i++)
            fprintf(s, "%s%s=%s", i ? " " : "", run->params[i].name, run->params[i].text);
        if (s)
            fclose(s);
        text_table_cell(&t, "%s", list ? list : "");
        free(list);
    }
    text_table_cell(&t, "started");
    text_table_cell(&t, "%s, finished %s", run->started, run->finished);
    text_table_cell(&t, "host");
    text_table_cell(&t, "%s, in %s", run->host, run->cwd);
    text_table_cell(&t, "processes");
    text_table_cell(&t, "%d", run->nprocesses);
    if (run->counted && *run->counted) {
        text_table_cell(&t, "counted");
        text_table_cell(&t, "%s", run->counted);
    }
    char sampled[160];
    if (*db_sampled_sentence(run->sample_rd, sampled, sizeof sampled)) {
        text_table_cell(&t, "histograms");
        text_table_cell(&t, "%s", sampled);
    }
    int rc = text_table_print(&t, out);
    text_table_free(&t);
    return rc;
}

void report_print_wrapped(FILE *out, const char *lead, const char *text, int width)
{
    int col = fprintf(out, "%s", lead);
    for (const char *w = text + strspn(text, " "); *w; w += strspn(w, " ")) {
        int n = (int)strcspn(w, " ");
        if (col + 1 + n > width && col > 4)
            col = fprintf(out, "\n   ");
        col += fprintf(out, " %.*s", n, w);
        w += n;
    }
    fputc('\n', out);
}

void report_print_sampled_runs(FILE *out, const db_run *runs, size_t n)
{
    for (size_t t = 0; t < n; t++)
        if (runs[t].sample_rd > 0) {
            char lead[64], sampled[160];
            snprintf(lead, sizeof lead, "  run %lld:", (long long)runs[t].id);
            report_print_wrapped(out, lead, db_sampled_sentence(runs[t].sample_rd, sampled, sizeof sampled),
                                 REPORT_WRAP_COLUMN);
        }
}

static int print_prediction(const report *r, FILE *out)
{
    const report_prediction *p = r->prediction;
    fputs("Prediction at", out);
    for (int k = 0; k < p->nparams; k++)
        fprintf(out, " %s=%.10g", p->names[k], p->values[k]);
    if (p->phase)
        fprintf(out, ", phase %s\n  from model set %lld (phase %s of set %lld), fitted on runs %s\n", p->phase,
                (long long)p->set_id, p->phase, (long long)p->parent_set, p->runs);
    else
        fprintf(out, "\n  from model set %lld, fitted on runs %s\n", (long long)p->set_id, p->runs);
    if (!p->phase && p->nphases) {
        char text[1024] = "";
        size_t len = 0;
        for (size_t i = 0; i < p->nphases && len < sizeof text; i++)
            len += (size_t)snprintf(text + len, sizeof text - len, "%s%s", p->phases[i],
                                    i + 1 < p->nphases ? ", " : "");
        report_print_wrapped(out, "  phases with models (augur predict --phase PHASE predicts one):", text,
                             REPORT_WRAP_COLUMN);
    }
    for (size_t t = 0; t < p->ntrain; t++) /* the models are of the part counted (docs/collector.md, "Regions") */
        if (p->train[t].counted && *p->train[t].counted) {
            char lead[64];
            snprintf(lead, sizeof lead, "  run %lld counted", (long long)p->train[t].id);
            report_print_wrapped(out, lead, p->train[t].counted, REPORT_WRAP_COLUMN);
        }
    report_print_sampled_runs(out, p->train, p->ntrain);
    for (size_t i = 0; i < p->nwarnings; i++)
        report_print_wrapped(out, "  warning:", p->warnings[i], REPORT_WRAP_COLUMN);
    return ferror(out) ? -1 : 0;
}

static int print_totals(const report *r, num_style numbers, FILE *out)
{
    const report_counts *c = &r->total;
    text_table t = {.ncols = 3, .align = "lrl"};
    char reads[NUMFMT_LEN], writes[NUMFMT_LEN], lines[NUMFMT_LEN];
    text_table_cell(&t, "instructions");
    ranged_cell(&t, (double)c->instructions, c->count_low[0], c->count_high[0], numbers);
    if (r->prediction && c->count_high[0] > c->count_low[0])
        range_cell(&t, c->count_low[0], c->count_high[0], "", numbers);
    else
        text_table_cell(&t, "%s", "");
    text_table_cell(&t, "accesses");
    ranged_cell(&t, (double)(c->reads + c->writes), c->count_low[1] + c->count_low[2], c->count_high[1] + c->count_high[2],
                numbers);
    text_table_cell(&t, "reads %s, writes %s",
                    numfmt_fixed(numfmt_shown((double)c->reads, c->count_low[1], c->count_high[1]), 0, numbers, reads),
                    numfmt_fixed(numfmt_shown((double)c->writes, c->count_low[2], c->count_high[2]), 0, numbers, writes));
    for (size_t k = 0; k < r->ncaches; k++) {
        char label[64];
        report_cache_label(&r->caches[k], label, sizeof label);
        text_table_cell(&t, "misses %s", label);
        ranged_cell(&t, c->misses[k], c->misses_low[k], c->misses_high[k], numbers);
        if (r->prediction) {
            char more[128];
            snprintf(more, sizeof more, "; fully-associative LRU cache of %s lines of %u bytes",
                     numfmt_count(r->caches[k].size / r->caches[k].line, numbers, lines), r->caches[k].line);
            range_cell(&t, c->misses_low[k], c->misses_high[k], more, numbers);
        } else
            text_table_cell(&t, "fully-associative LRU cache of %s lines of %u bytes",
                            numfmt_count(r->caches[k].size / r->caches[k].line, numbers, lines), r->caches[k].line);
    }
    fputs("\nTotals\n", out);
    int rc = text_table_print(&t, out);
    text_table_free(&t);
    return rc;
}

/* "Functions: 20 of 57, most instructions first" */
static size_t print_title(const char *what, size_t n, size_t top, FILE *out)
{
    size_t shown = top && top < n ? top : n;
    if (shown < n)
        fprintf(out, "\n%s: %zu of %zu, most instructions first\n", what, shown, n);
    else
        fprintf(out, "\n%s: all %zu, most instructions first\n", what, n);
    return shown;
}

/* Under a ranking: how many start-up and loader rows it leaves out, with
 * their instructions (functions) and the option that lists them. */
static void print_startup_note(const report *r, size_t hidden, const char *rows, int with_instructions,
                               num_style numbers, FILE *out)
{
    if (!r->startup.hidden || hidden == 0)
        return;
    char n[NUMFMT_LEN];
    fputs("  start-up and loader: ", out);
    if (with_instructions)
        fprintf(out, "%s instructions (%.1f%%) in ", numfmt_count(r->startup.c.instructions, numbers, n),
                r->total.instructions ? 100.0 * (double)r->startup.c.instructions / (double)r->total.instructions
                                      : 0.0);
    fprintf(out, "%s %s, hidden; --show-startup lists them\n", numfmt_count(hidden, numbers, n), rows);
}

static int print_functions(const report *r, size_t top, num_style numbers, FILE *out)
{
    static const char *const names[] = {"function", "module", NULL};
    size_t shown = print_title("Functions", report_ranked_functions(r), top, out);
    text_table t = counts_table(r, 2);
    header_cells(&t, r, names);
    for (size_t i = 0; i < shown; i++) {
        const report_function *f = &r->functions[i];
        counts_cells(&t, r, &f->c, numbers);
        char name[REPORT_NAME_WIDTH + 1];
        text_table_cell(&t, "%s", name_cell(f->function, name, sizeof name));
        text_table_cell(&t, "%s", f->module ? report_base_name(f->module) : UNKNOWN);
    }
    int rc = text_table_print(&t, out);
    text_table_free(&t);
    print_startup_note(r, r->startup.nfunctions, "functions", 1, numbers, out);
    return rc;
}

static int print_lines(const report *r, size_t top, num_style numbers, FILE *out)
{
    static const char *const names[] = {"file:line", "function", NULL};
    size_t shown = print_title("Source lines", report_ranked_lines(r), top, out);
    text_table t = counts_table(r, 2);
    header_cells(&t, r, names);
    for (size_t i = 0; i < shown; i++) {
        const report_line *l = &r->lines[i];
        counts_cells(&t, r, &l->c, numbers);
        const char *file = l->file ? report_relative_path(l->file, r->run ? r->run->cwd : "") : UNKNOWN;
        if (l->line)
            text_table_cell(&t, "%s:%u", file, l->line);
        else
            text_table_cell(&t, "%s", file);
        char name[REPORT_NAME_WIDTH + 1];
        text_table_cell(&t, "%s", name_cell(l->function, name, sizeof name));
    }
    int rc = text_table_print(&t, out);
    text_table_free(&t);
    print_startup_note(r, r->startup.nlines, "source lines", 0, numbers, out);
    return rc;
}

/* How many functions the lines-and-total note names. */
#define GAP_FUNCTIONS_NAMED 3

/* After a prediction's lines: what their models add up to against the
 * total, when the two differ (report_line_gap), and where. */
static int print_line_gap(const report *r, num_style numbers, FILE *out)
{
    const report_line_gap *g = r->prediction ? &r->prediction->line_gap : NULL;
    if (!g || (!g->instructions && !g->reads && !g->writes))
        return 0;
    char *text = NULL, a[NUMFMT_LEN], b[NUMFMT_LEN], c[NUMFMT_LEN], d[NUMFMT_LEN];
    size_t len = 0;
    FILE *s = open_memstream(&text, &len);
    if (!s)
        return -1;
    int64_t accesses = g->reads + g->writes;
    fprintf(s,
            "the lines' models%s add up to %s instructions and %s accesses; the total (the functions' models summed) "
            "differs by %s and %s (line_model_difference in JSON): each line and each function is modeled on its "
            "own, and series that no polynomial fits exactly extrapolate each their own way.",
            r->startup.hidden && r->startup.nlines ? " (the hidden start-up and loader lines included)" : "",
            numfmt_count(r->total.instructions - (uint64_t)g->instructions, numbers, a),
            numfmt_count(r->total.reads + r->total.writes - (uint64_t)accesses, numbers, b),
            numfmt_signed(g->instructions, numbers, c), numfmt_signed(accesses, numbers, d));
    const report_prediction *p = r->prediction;
    for (size_t i = 0; i < p->ngap_functions && i < GAP_FUNCTIONS_NAMED; i++) {
        char name[REPORT_NAME_WIDTH + 1];
        fprintf(s, "%s %s %s", i ? "," : " The largest differences, a function's instructions minus its lines':",
                name_cell(p->gap_functions[i].function, name, sizeof name),
                numfmt_signed(p->gap_functions[i].instructions, numbers, a));
    }
    fclose(s);
    if (!text)
        return -1;
    fputc('\n', out);
    report_print_wrapped(out, "Lines and total:", text, REPORT_WRAP_COLUMN);
    free(text);
    return ferror(out) ? -1 : 0;
}

int report_write_text(const report *r, size_t top, num_style numbers, FILE *out)
{
    if ((r->run ? print_run(r, out) : print_prediction(r, out)) != 0 || print_totals(r, numbers, out) != 0 ||
        print_functions(r, top, numbers, out) != 0 || print_lines(r, top, numbers, out) != 0 ||
        print_line_gap(r, numbers, out) != 0)
        return -1;
    if (r->ncaches)
        fprintf(out,
                "\nMisses are those of a fully-associative LRU cache of the given SIZE:LINE, from the reuse "
                "distances\nof each instruction's accesses (see docs/report.md%s).\n",
                r->prediction ? "; predicted from the reuse-distance models of docs/models.md" : "");
    return ferror(out) ? -1 : 0;
}

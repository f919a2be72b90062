/* export_csv.c — `augur export --format csv`: every run's program total,
 * functions and source lines, one record per run, scope and metric, in
 * RFC 4180 CSV (CRLF line ends; a field holding a comma, a double quote or
 * a line break is quoted, its quotes doubled). */
#include <stdlib.h>
#include <string.h>

#include "report/export.h"

/* One field, quoted when it must be; NULL is an empty field. */
static void field(FILE *out, const char *s, int last)
{
    if (s && s[strcspn(s, ",\"\r\n")]) {
        fputc('"', out);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', out);
            fputc(*s, out);
        }
        fputc('"', out);
    } else if (s)
        fputs(s, out);
    fputs(last ? "\r\n" : ",", out);
}

/* The parameter names of all runs into names (room for all the runs'),
 * in name order, each once; how many. */
static size_t param_names(const export_set *s, const char **names)
{
    size_t n = 0;
    for (size_t r = 0; r < s->nruns; r++)
        for (size_t p = 0; p < s->runs[r].nparams; p++) {
            const char *name = s->runs[r].params[p].name;
            size_t at = 0;
            while (at < n && strcmp(names[at], name) < 0)
                at++;
            if (at < n && !strcmp(names[at], name))
                continue;
            memmove(names + at + 1, names + at, (n - at) * sizeof *names);
            names[at] = name;
            n++;
        }
    return n;
}

/* The value of parameter `name` in run r as the run's CSV field; NULL
 * (an empty field) when the run has no such parameter. */
static const char *param_value(const db_run *r, const char *name)
{
    for (size_t p = 0; p < r->nparams; p++)
        if (!strcmp(r->params[p].name, name))
            return r->params[p].text;
    return NULL;
}

typedef struct csv_row {
    const char *scope, *function, *module, *file;
    uint32_t line;
    const report_counts *c;
} csv_row;

/* The records of one row of run r: one per metric. */
static void put_row(FILE *out, const export_set *s, size_t r, const char *const *params, size_t nparams,
                    const csv_row *row)
{
    char id[32], line[16], value[48], key[64];
    snprintf(id, sizeof id, "%lld", (long long)s->runs[r].id);
    snprintf(line, sizeof line, "%u", row->line);
    for (size_t k = 0; k < EXPORT_NMETRICS(s); k++) {
        const report_cache *cache;
        const char *metric = export_metric(s, k, row->c, value, &cache);
        if (cache)
            report_cache_key(cache, key, sizeof key);
        field(out, id, 0);
        for (size_t p = 0; p < nparams; p++)
            field(out, param_value(&s->runs[r], params[p]), 0);
        field(out, row->scope, 0);
        field(out, row->function, 0);
        field(out, row->module, 0);
        field(out, row->file, 0);
        field(out, row->line ? line : NULL, 0);
        field(out, metric, 0);
        field(out, cache ? key : NULL, 0);
        field(out, value, 1);
    }
}

int export_csv(const export_set *s, FILE *out, char *err, size_t errlen)
{
    size_t room = 1;
    for (size_t r = 0; r < s->nruns; r++)
        room += s->runs[r].nparams;
    const char **params = malloc(room * sizeof *params);
    if (!params) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    size_t nparams = param_names(s, params);
    field(out, "run", 0);
    for (size_t p = 0; p < nparams; p++)
        field(out, params[p], 0);
    static const char *const columns[] = {"scope", "function", "module", "file", "line", "metric", "cache", "value"};
    for (size_t c = 0; c < 8; c++)
        field(out, columns[c], c == 7);
    for (size_t r = 0; r < s->nruns; r++) {
        const report *rep = &s->reps[r];
        put_row(out, s, r, params, nparams, &(csv_row){.scope = "program", .c = &rep->total});
        for (size_t f = 0; f < rep->nfunctions; f++) {
            const report_function *fn = &rep->functions[f];
            put_row(out, s, r, params, nparams,
                    &(csv_row){.scope = "function", .function = fn->function, .module = fn->module, .c = &fn->c});
        }
        for (size_t l = 0; l < rep->nlines; l++) {
            const report_line *ln = &rep->lines[l];
            put_row(out, s, r, params, nparams,
                    &(csv_row){.scope = "line", .function = ln->function, .file = ln->file, .line = ln->line,
                               .c = &ln->c});
        }
    }
    free(params);
    if (fflush(out) != 0 || ferror(out)) {
        snprintf(err, errlen, "cannot write the CSV table");
        return -1;
    }
    return 0;
}

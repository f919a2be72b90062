/* report_startup.c — a report's start-up and loader rows
 * (src/binary/startup.h): found, summed and, unless the user asked to see
 * them, put out of the rankings of `augur report` and `augur predict`.
 *
 * Functions carry their module, lines do not (a line row adds up a
 * (file, line, function) over every module, as the models do), so a line
 * counts as start-up when its function's name is start-up code in every
 * module the report has a function of that name in: the loader's strcmp
 * and libc's IFUNC resolver named strcmp are both start-up, a program's
 * own function sharing a name with a loader function keeps its lines. */
#include <stdlib.h>
#include <string.h>

#include "binary/startup.h"
#include "report/report.h"

/* One function name and whether every function of that name is start-up. */
typedef struct name_verdict {
    const char *name;
    int startup;
} name_verdict;

static int by_name(const void *a, const void *b)
{
    return strcmp(((const name_verdict *)a)->name, ((const name_verdict *)b)->name);
}

/* The verdicts of the named functions of r, one per name, sorted; *n of
 * them.  is[i] says whether function row i is start-up. */
static name_verdict *verdicts_of(const report *r, const int *is, size_t *n)
{
    name_verdict *v = malloc((r->nfunctions + 1) * sizeof *v);
    *n = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; i < r->nfunctions; i++)
        if (r->functions[i].function)
            v[(*n)++] = (name_verdict){r->functions[i].function, is[i]};
    qsort(v, *n, sizeof *v, by_name);
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++) {
        if (kept && !strcmp(v[kept - 1].name, v[i].name))
            v[kept - 1].startup &= v[i].startup;
        else
            v[kept++] = v[i];
    }
    *n = kept;
    return v;
}

static int line_is_startup(const report_line *l, const name_verdict *v, size_t n)
{
    name_verdict key = {l->function, 0};
    const name_verdict *found = l->function ? bsearch(&key, v, n, sizeof *v, by_name) : NULL;
    return found && found->startup;
}

/* to += c, a prediction's ranges too: the start-up code's range is the sum
 * of its functions', as the total's is of every function's. */
static void add_counts(report_counts *to, const report_counts *c, size_t ncaches)
{
    to->instructions += c->instructions;
    to->reads += c->reads;
    to->writes += c->writes;
    for (int k = 0; k < 3; k++) {
        to->count_low[k] += c->count_low[k];
        to->count_high[k] += c->count_high[k];
    }
    for (size_t k = 0; k < ncaches; k++) {
        to->misses[k] += c->misses[k];
        to->misses_low[k] += c->misses_low[k];
        to->misses_high[k] += c->misses_high[k];
    }
}

/* is[i] for every function row of r, and their sum into r->startup. */
static int classify_functions(report *r, int *is)
{
    startup_rules *rules = startup_rules_new();
    int rc = rules ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < r->nfunctions; i++) {
        const report_function *f = &r->functions[i];
        if ((is[i] = startup_is(rules, f->function, f->module)) < 0)
            rc = -1;
        else if (is[i]) {
            r->startup.nfunctions++;
            add_counts(&r->startup.c, &f->c, r->ncaches);
        }
    }
    startup_rules_free(rules);
    return rc;
}

int report_hide_startup(report *r, int hide, char *err, size_t errlen)
{
    memset(&r->startup, 0, sizeof r->startup);
    int *is = calloc(r->nfunctions + 1, sizeof *is);
    name_verdict *v = NULL;
    size_t nv = 0;
    int rc = is && classify_functions(r, is) == 0 && (v = verdicts_of(r, is, &nv)) ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < r->nlines; i++) {
        int startup = line_is_startup(&r->lines[i], v, nv);
        r->startup.nlines += startup;
        r->lines[i].startup = hide && startup;
    }
    for (size_t i = 0; rc == 0 && i < r->nfunctions; i++)
        r->functions[i].startup = hide && is[i];
    free(v);
    free(is);
    if (rc != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    r->startup.classified = 1;
    r->startup.hidden = hide;
    report_sort(r);
    return 0;
}

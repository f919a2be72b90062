/* report_labels.c — names of function rows that tell them apart in files
 * that name a function by one string (Callgrind's fn=, Extra-P's REGION):
 * one name in several modules (crt's frame_dummy, ld.so's and libc's
 * strcmp, unknown code) gets its module. */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

static const char *shown_name(const report_function *f)
{
    return f->function ? f->function : "(unknown)";
}

/* qsort_r order of row indices by shown name. */
static int by_shown_name(const void *pa, const void *pb, void *rows)
{
    const report_function *f = rows;
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    int c = strcmp(shown_name(&f[a]), shown_name(&f[b]));
    return c ? c : (a > b) - (a < b);
}

/* labels[i]: "NAME" or "NAME [MODULE]" (no module: "no module"). */
static int make_label(const report_function *f, int shared, char **label)
{
    const char *name = shown_name(f), *module = f->module ? report_base_name(f->module) : "no module";
    size_t len = strlen(name) + strlen(module) + 4;
    if (!(*label = malloc(len)))
        return -1;
    snprintf(*label, len, shared ? "%s [%s]" : "%s", name, module);
    return 0;
}

int report_function_labels(const report_function *rows, size_t n, char **labels)
{
    size_t *order = malloc((n + 1) * sizeof *order);
    if (!order)
        return -1;
    for (size_t i = 0; i < n; i++)
        order[i] = i, labels[i] = NULL;
    qsort_r(order, n, sizeof *order, by_shown_name, (void *)rows);
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < n; k++) {
        const char *name = shown_name(&rows[order[k]]);
        int shared = (k > 0 && !strcmp(name, shown_name(&rows[order[k - 1]]))) ||
                     (k + 1 < n && !strcmp(name, shown_name(&rows[order[k + 1]])));
        rc = make_label(&rows[order[k]], shared, &labels[order[k]]);
    }
    free(order);
    if (rc != 0)
        for (size_t i = 0; i < n; i++)
            free(labels[i]), labels[i] = NULL;
    return rc;
}

/* report_export.c — the runs of `augur export` and their reports, and the
 * numbers and metrics both formats write (export.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/export.h"

/* ---- numbers and metrics ------------------------------------------------------ */

const char *export_misses(double v, char *buf)
{
    snprintf(buf, 48, "%.1f", v);
    size_t n = strlen(buf);
    if (n > 2 && !strcmp(buf + n - 2, ".0"))
        buf[n - 2] = '\0';
    return buf;
}

const char *export_param(double v, char *buf)
{
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, 64, "%.0f", v);
        return buf;
    }
    int decimals = 14 - (int)floor(log10(fabs(v))); /* 15 significant digits */
    snprintf(buf, 64, "%.*f", decimals < 0 ? 0 : decimals > 40 ? 40 : decimals, v);
    if (strchr(buf, '.')) { /* trailing zeros say nothing */
        size_t n = strlen(buf);
        while (buf[n - 1] == '0')
            buf[--n] = '\0';
        if (buf[n - 1] == '.')
            buf[n - 1] = '\0';
    }
    return buf;
}

const char *export_metric(const export_set *s, size_t k, const report_counts *c, char *buf,
                          const report_cache **cache)
{
    static const char *const names[] = {"instructions", "reads", "writes", "accesses"};
    const uint64_t counts[] = {c->instructions, c->reads, c->writes, c->reads + c->writes};
    *cache = k < 4 ? NULL : &s->caches[k - 4];
    if (k < 4) {
        snprintf(buf, 48, "%llu", (unsigned long long)counts[k]);
        return names[k];
    }
    export_misses(c->misses[k - 4], buf);
    return "misses";
}

/* ---- runs ------------------------------------------------------------------------ */

/* The complete runs whose program exited with status 0 into *ids (a new
 * array, *n of them); -1 with a message when there are none. */
static int default_runs(db *d, int64_t **ids, size_t *n, char *err, size_t errlen)
{
    int64_t *all, newest;
    size_t nall;
    if (db_newest_run(d, &newest, err, errlen) != 0 || db_complete_runs(d, &all, &nall, err, errlen) != 0)
        return -1;
    *n = 0;
    *ids = all;
    for (size_t i = 0; i < nall; i++) {
        db_run r;
        if (db_get_run(d, all[i], &r, err, errlen) != 0) {
            db_run_free(&r);
            return -1;
        }
        if (r.exit_code == 0)
            all[(*n)++] = all[i];
        db_run_free(&r);
    }
    if (*n == 0) {
        snprintf(err, errlen, "%s: no run is complete with exit status 0 (a failed program's counts are those of "
                 "its error path): collect the program again, or name the runs to export with --runs",
                 db_path(d));
        return -1;
    }
    return 0;
}

/* The caches given, or 32K and 1M in 64-byte lines when every run
 * measured 64-byte blocks; each checked against every run. */
static int choose_caches(export_set *s, const report_cache *caches, size_t ncaches, char *err, size_t errlen)
{
    int all64 = 1;
    for (size_t i = 0; i < s->nruns; i++) {
        report_cache c64 = {.size = 64, .line = REPORT_DEFAULT_LINE};
        char why[256];
        all64 &= report_cache_check(&c64, &s->runs[i], why, sizeof why) == 0;
    }
    if (ncaches)
        memcpy(s->caches, caches, ncaches * sizeof *caches), s->ncaches = ncaches;
    else if (all64) {
        s->caches[0] = (report_cache){.size = 32 << 10, .line = REPORT_DEFAULT_LINE};
        s->caches[1] = (report_cache){.size = 1 << 20, .line = REPORT_DEFAULT_LINE};
        s->ncaches = 2;
    }
    for (size_t i = 0; i < s->nruns; i++)
        for (size_t k = 0; k < s->ncaches; k++)
            if (report_cache_check(&s->caches[k], &s->runs[i], err, errlen) != 0)
                return -1;
    return 0;
}

static int by_id(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* ids[0..*n) ascending, each once. */
static void sort_unique(int64_t *ids, size_t *n)
{
    qsort(ids, *n, sizeof *ids, by_id);
    size_t k = 0;
    for (size_t i = 0; i < *n; i++)
        if (k == 0 || ids[k - 1] != ids[i])
            ids[k++] = ids[i];
    *n = k;
}

int export_set_load(db *d, const int64_t *ids, size_t n, const report_cache *caches, size_t ncaches, export_set *out,
                    char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int64_t *use = NULL;
    if (n == 0 && default_runs(d, &use, &n, err, errlen) != 0) {
        free(use);
        return -1;
    }
    if (!use && (use = malloc((n + 1) * sizeof *use)))
        memcpy(use, ids, n * sizeof *ids);
    if (!use) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    sort_unique(use, &n);
    out->runs = calloc(n + 1, sizeof *out->runs);
    out->reps = calloc(n + 1, sizeof *out->reps);
    int rc = out->runs && out->reps ? 0 : -1;
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        out->nruns = i + 1; /* db_run_free frees a part read */
        rc = db_get_run(d, use[i], &out->runs[i], err, errlen) != 0 ? -1 : 0;
    }
    if (rc == 0)
        rc = choose_caches(out, caches, ncaches, err, errlen);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = report_build(d, &out->runs[i], out->caches, out->ncaches, &out->reps[i], err, errlen);
    free(use);
    return rc;
}

void export_set_free(export_set *s)
{
    for (size_t i = 0; i < s->nruns; i++) {
        if (s->reps)
            report_free(&s->reps[i]);
        if (s->runs)
            db_run_free(&s->runs[i]);
    }
    free(s->runs), free(s->reps);
    memset(s, 0, sizeof *s);
}

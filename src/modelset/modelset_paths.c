/* modelset_paths.c — functions whose code paths change with the size
 * (docs/models.md, "Library routines: work per call"): the functions of a
 * library (any module but the program: glibc's memcpy, memset, strlen
 * switch paths with the length they are given) and any function whose set
 * of executed instructions differs between the training runs.  For each,
 * the calls entering it in every run (their work is modeled as calls times
 * work per call, model_compose) and the run where it executed the most
 * instructions, whose mix of lines and blocks carries the function's
 * model down to them (ms_path_share). */
#include <stdlib.h>
#include <string.h>

#include "modelset/modelset.h"
#include "util/array.h"

/* One location of the series, keyed by its function. */
typedef struct fn_loc {
    int64_t function_id, module_id;
    size_t loc;
} fn_loc;

static int by_function(const void *pa, const void *pb)
{
    const fn_loc *a = pa, *b = pb;
    if (a->function_id != b->function_id)
        return a->function_id < b->function_id ? -1 : 1;
    if (a->module_id != b->module_id)
        return a->module_id < b->module_id ? -1 : 1;
    return a->loc < b->loc ? -1 : a->loc > b->loc;
}

/* Does location l run in some runs and not in others? */
static int comes_and_goes(const ms_series *s, size_t l)
{
    size_t n = s->runs->n, ran = 0;
    for (size_t r = 0; r < n; r++)
        ran += s->exec[l * n + r] > 0;
    return ran > 0 && ran < n;
}

/* The entry of locations k[first..end) (one function), whether it switches
 * paths, and its largest run; *keep 0 when it does not switch. */
static int describe(const ms_series *s, const fn_loc *k, size_t first, size_t end, ms_path_fn *fn, int *keep)
{
    size_t n = s->runs->n, l0 = k[first].loc;
    *fn = (ms_path_fn){.function_id = k[first].function_id, .module_id = k[first].module_id,
                       .function = s->function[l0], .module = s->module[l0],
                       .library = k[first].module_id != s->runs->program_module};
    for (size_t i = first; i < end && !fn->switches; i++)
        fn->switches = comes_and_goes(s, k[i].loc);
    *keep = fn->library || fn->switches;
    if (!*keep)
        return 0;
    double best = -1;
    for (size_t r = 0; r < n; r++) {
        double t[3] = {0};
        for (size_t i = first; i < end; i++) {
            size_t v = k[i].loc * n + r;
            t[0] += s->exec[v], t[1] += s->reads[v], t[2] += s->writes[v];
        }
        if (t[0] > best)
            best = t[0], fn->largest = r, memcpy(fn->totals, t, sizeof t);
    }
    return (fn->calls = calloc(n + 1, sizeof *fn->calls)) ? 0 : -1;
}

/* Add run r's calls to the entries they enter (matched by function and
 * module name: the series' names are the database's). */
static int add_calls(db *d, ms_paths *p, size_t r, char *err, size_t errlen)
{
    db_call *c;
    size_t nc;
    if (db_run_calls(d, p->runs->ids[r], &c, &nc, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < nc; i++)
        for (size_t e = 0; c[i].callee && e < p->n; e++) {
            ms_path_fn *fn = &p->fn[e];
            if (fn->function && !strcmp(fn->function, c[i].callee) &&
                (fn->module == c[i].callee_module ||
                 (fn->module && c[i].callee_module && !strcmp(fn->module, c[i].callee_module))))
                fn->calls[r] += (double)c[i].count;
        }
    db_calls_free(c, nc);
    return 0;
}

int ms_paths_load(db *d, const ms_series *s, ms_paths *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->runs = s->runs;
    fn_loc *k = malloc((s->nlocs + 1) * sizeof *k);
    if (!k)
        return snprintf(err, errlen, "out of memory"), -1;
    for (size_t i = 0; i < s->nlocs; i++)
        k[i] = (fn_loc){s->locs[i].function_id, s->locs[i].module_id, i};
    qsort(k, s->nlocs, sizeof *k, by_function);
    size_t cap = 0;
    int rc = 0;
    for (size_t first = 0, end; rc == 0 && first < s->nlocs; first = end) {
        for (end = first + 1; end < s->nlocs && k[end].function_id == k[first].function_id &&
                              k[end].module_id == k[first].module_id;
             end++)
            ;
        ms_path_fn fn;
        int keep;
        ms_path_fn *grown = array_grow(out->fn, out->n, &cap, sizeof *grown);
        if (grown)
            out->fn = grown;
        if (!grown || describe(s, k, first, end, &fn, &keep) != 0) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
            break;
        }
        if (keep)
            out->fn[out->n++] = fn;
    }
    free(k);
    for (size_t r = 0; rc == 0 && r < s->runs->n; r++)
        rc = add_calls(d, out, r, err, errlen);
    return rc;
}

void ms_paths_free(ms_paths *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->fn[i].calls);
    free(p->fn);
    memset(p, 0, sizeof *p);
}

ms_path_fn *ms_paths_find(const ms_paths *p, const ms_loc *l)
{
    if (!p)
        return NULL;
    size_t lo = 0, hi = p->n;
    fn_loc key = {l->function_id, l->module_id, 0};
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        fn_loc at = {p->fn[mid].function_id, p->fn[mid].module_id, 0};
        if (by_function(&at, &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->n && p->fn[lo].function_id == l->function_id && p->fn[lo].module_id == l->module_id ? &p->fn[lo]
                                                                                                        : NULL;
}

int ms_path_called(const ms_path_fn *fn, size_t nruns)
{
    for (size_t r = 0; r < nruns; r++)
        if (!(fn->calls[r] > 0))
            return 0;
    return 1;
}

int ms_path_distributes(const ms_path_fn *fn)
{
    return fn->kept[0].npoints > 0 && fn->kept[0].method != MODEL_EXACT && fn->kept[0].method != MODEL_CONSTANT;
}

int ms_path_share(const ms_path_fn *fn, int metric, double part, model *out)
{
    if (fn->kept[metric].npoints == 0 || !(fn->totals[metric] > 0))
        return -1;
    double share = part / fn->totals[metric];
    *out = fn->kept[metric];
    out->constant *= share;
    for (int t = 0; t < out->nterms; t++)
        out->terms[t].coef *= share;
    return 0;
}

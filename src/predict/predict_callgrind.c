/* predict_callgrind.c — the machine's events and the predicted calls of a
 * prediction's call graph (predict_callgrind.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "predict/predict_callgrind.h"
#include "predict/predict_internal.h"
#include "predict/predict_perf_body.h"

int predict_callgrind_machine(cg_graph *g, const prediction *p, const predict_perf *pp)
{
    size_t nf = p->rep.nfunctions, nl = p->rep.nlines;
    double *fn = malloc((nf + 1) * sizeof *fn), *line = malloc((nl + 1) * sizeof *line);
    int rc = fn && line ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < pp->nlevels; i++) {
        char name[CG_EVENT_NAME], desc[160];
        const perf_level *L = &pp->levels[i];
        snprintf(name, sizeof name, "%sm", L->name);
        snprintf(desc, sizeof desc, "misses of %s's %s (%g sets of %g ways of %u-byte lines; set-associative model)",
                 pp->m->name, L->name, L->sets, L->ways, L->block);
        for (size_t f = 0; f < nf; f++)
            fn[f] = pp->functions[f].misses[i];
        for (size_t k = 0; k < nl; k++)
            line[k] = pp->line_misses[k * PERF_MAX_LEVELS + i];
        rc = cg_add_event(g, name, desc, pp->misses[i], fn, line);
    }
    if (rc == 0) {
        char desc[160];
        snprintf(desc, sizeof desc, "cycles on %s at %g GHz (performance model; a function's lines share its "
                 "cycles by their instructions)", pp->m->name, pp->m->clock_ghz);
        for (size_t f = 0; f < nf; f++)
            fn[f] = pp->functions[f].cycles;
        rc = cg_add_event(g, "Cyc", desc, pp->cycles, fn, NULL);
    }
    free(fn), free(line);
    return rc;
}

/* ---- predicted calls ------------------------------------------------------------ */

/* A call instruction and callee over the training runs: the calls and the
 * instruction's executions, summed over the runs. */
typedef struct call_sum {
    db_call c; /* names borrowed from one run's row */
    double calls, executions;
} call_sum;

static int same(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* qsort order of calls by call instruction (module, address) and callee. */
static int by_call(const void *pa, const void *pb)
{
    const db_call *a = &((const call_sum *)pa)->c, *b = &((const call_sum *)pb)->c;
    int c = report_cmp_names(a->caller_module, b->caller_module);
    if (!c && a->addr != b->addr)
        c = a->addr < b->addr ? -1 : 1;
    if (!c)
        c = report_cmp_names(a->callee_module, b->callee_module);
    return c ? c : report_cmp_names(a->callee, b->callee);
}

/* The calls of every run (runs[t][0..nruns[t])) summed per call
 * instruction and callee into s, *n of them. */
static void sum_runs(db_call *const *runs, const size_t *nruns, size_t ntrain, call_sum *s, size_t *n)
{
    size_t all = 0;
    for (size_t t = 0; t < ntrain; t++)
        for (size_t i = 0; i < nruns[t]; i++)
            s[all++] = (call_sum){.c = runs[t][i], .calls = (double)runs[t][i].count,
                                  .executions = (double)runs[t][i].executions};
    qsort(s, all, sizeof *s, by_call);
    *n = 0;
    for (size_t i = 0; i < all; i++) {
        if (*n && by_call(&s[*n - 1], &s[i]) == 0) {
            s[*n - 1].calls += s[i].calls;
            s[*n - 1].executions += s[i].executions;
        } else
            s[(*n)++] = s[i];
    }
}

/* The predicted executions of the instruction at module:addr, from the
 * block models; blocks are loaded per module once (*bl, *bl_module). */
static int predicted_executions(const prediction *p, const char *module, uint64_t addr, predict_blocks **bl,
                                const char **bl_module, double *out)
{
    *out = 0;
    if (!module)
        return 0; /* code outside a module has no block models */
    if (!*bl || !same(*bl_module, module)) {
        predict_blocks_free(*bl);
        *bl = NULL;
        if (predict_blocks_load(p, module, bl) != 0)
            return -1;
        *bl_module = module;
    }
    *out = predict_blocks_executions(*bl, addr);
    return 0;
}

static int add_predicted(const prediction *p, cg_graph *g, const call_sum *s, size_t n, size_t *added)
{
    predict_blocks *bl = NULL;
    const char *bl_module = NULL;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        double executions;
        rc = predicted_executions(p, s[i].c.caller_module, s[i].c.addr, &bl, &bl_module, &executions);
        double calls = s[i].executions > 0 ? executions * s[i].calls / s[i].executions : 0;
        if (rc == 0 && calls > 0) {
            const db_call *c = &s[i].c;
            int r = cg_add_call(g, c->caller, c->caller_module, c->file, c->line, c->callee, c->callee_module, calls);
            rc = r < 0 ? -1 : 0;
            *added += r == 0;
        }
    }
    predict_blocks_free(bl);
    return rc;
}

static int out_of_memory(char *err, size_t errlen)
{
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* The calls of every training run of p: runs[t][0 .. nruns[t]), *total in all. */
static int load_runs(db *d, const prediction *p, db_call **runs, size_t *nruns, size_t *total, char *err,
                     size_t errlen)
{
    *total = 0;
    for (size_t t = 0; t < p->ntrain; t++) {
        if (db_run_calls(d, p->train_runs[t].id, &runs[t], &nruns[t], err, errlen) != 0)
            return -1;
        *total += nruns[t];
    }
    return 0;
}

int predict_callgrind_calls(db *d, prediction *p, cg_graph *g, size_t *added, char *err, size_t errlen)
{
    *added = 0;
    if (!p->ntrain && predict_load_training(d, p, err, errlen) != 0)
        return -1;
    db_call **runs = calloc(p->ntrain + 1, sizeof *runs);
    size_t *nruns = calloc(p->ntrain + 1, sizeof *nruns), total = 0, nsums = 0;
    int rc = runs && nruns ? load_runs(d, p, runs, nruns, &total, err, errlen) : out_of_memory(err, errlen);
    call_sum *sums = NULL;
    if (rc == 0 && !(sums = malloc((total + 1) * sizeof *sums)))
        rc = out_of_memory(err, errlen);
    if (rc == 0) {
        sum_runs(runs, nruns, p->ntrain, sums, &nsums);
        if (add_predicted(p, g, sums, nsums, added) != 0)
            rc = out_of_memory(err, errlen);
    }
    free(sums);
    for (size_t t = 0; runs && t < p->ntrain; t++)
        db_calls_free(runs[t], nruns[t]);
    free(runs), free(nruns);
    return rc;
}

int predict_callgrind_write(db *d, const report *rep, prediction *p, const predict_perf *pp, const db_run *run,
                            const cg_header *h, const char *command, FILE *out, char *err, size_t errlen)
{
    cg_graph *g = cg_new(rep);
    if (!g)
        return out_of_memory(err, errlen);
    size_t added = 0;
    int rc = pp && predict_callgrind_machine(g, p, pp) != 0 ? out_of_memory(err, errlen) : 0;
    if (rc == 0)
        rc = run ? cg_add_run_calls(g, d, run->id, &added, err, errlen)
                 : predict_callgrind_calls(d, p, g, &added, err, errlen);
    if (rc == 0 && added == 0)
        fprintf(stderr, "augur %s: warning: %s no calls recorded (collected before augur recorded calls): the "
                "file has each function's own costs but no call graph; collect %s again for inclusive costs\n",
                command, run ? "the run has" : "the runs of the models have", run ? "it" : "them");
    errno = 0;
    if (rc == 0 && (cg_write(g, h, out) != 0 || fflush(out) != 0)) {
        snprintf(err, errlen, "cannot write the callgrind file: %s", errno ? strerror(errno) : "out of memory");
        rc = -1;
    }
    cg_free(g);
    return rc;
}

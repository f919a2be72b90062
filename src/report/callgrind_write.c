/* callgrind_write.c — writing a call graph (callgrind.h) in Callgrind's
 * format: costs become whole numbers (a function's lines add up to its
 * row, rounded), names get compressed ids, functions of one name in
 * several modules get the module in their name, and each call gets its
 * inclusive cost. */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/callgrind_internal.h"

/* What the writer works out before it writes. */
typedef struct plan {
    size_t *order;   /* line rows by (function, file, line), CG_NONE functions left out */
    size_t nordered;
    size_t *start;   /* order[start[f] .. start[f + 1]): the lines of function f */
    int64_t *line;   /* [k * CG_MAX_EVENTS + e]: whole-number cost of order[k] */
    int64_t *self;   /* [f * CG_MAX_EVENTS + e]: a function's cost, rounded */
    const char **primary; /* a function's file: the one of most of its instructions */
    char **display;  /* a function's name in the file */
    int64_t *calls;  /* per call of the graph: whole calls */
    int64_t *incl;   /* [c * CG_MAX_EVENTS + e]: inclusive cost of call c */
} plan;

/* ---- whole numbers --------------------------------------------------------- */

static int64_t whole(double v)
{
    return v > 0 ? llround(v) : 0;
}

/* Whole numbers out[0..n) adding up to target, each near v[i] scaled to
 * the target: the floors, plus one for the largest remainders.  With no
 * positive v, the whole target goes to out[0]. */
static void apportion(const double *v, size_t n, int64_t target, int64_t *out, double *frac, size_t *idx)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i] > 0 ? v[i] : 0;
    int64_t given = 0;
    for (size_t i = 0; i < n; i++) {
        double w = sum > 0 && v[i] > 0 ? v[i] * (double)target / sum : 0;
        out[i] = (int64_t)floor(w);
        frac[i] = w - (double)out[i];
        given += out[i];
        idx[i] = i;
    }
    if (sum <= 0 && n) {
        out[0] = target;
        return;
    }
    for (size_t i = 1; i < n; i++) /* insertion sort by remainder, largest first: n is a function's lines */
        for (size_t j = i; j > 0 && frac[idx[j]] > frac[idx[j - 1]]; j--) {
            size_t t = idx[j];
            idx[j] = idx[j - 1], idx[j - 1] = t;
        }
    for (size_t k = 0; n && given != target; k = (k + 1) % n) {
        int64_t step = given < target ? 1 : -1;
        if (step < 0 && out[idx[n - 1 - k]] == 0)
            continue; /* floors above the target (rounding): lower the smallest remainders first */
        out[step > 0 ? idx[k] : idx[n - 1 - k]] += step;
        given += step;
    }
}

/* ---- the plan --------------------------------------------------------------- */

static int by_function_file_line(const void *pa, const void *pb, void *ctx)
{
    const cg_graph *g = ctx;
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    if (g->line_fn[a] != g->line_fn[b])
        return g->line_fn[a] < g->line_fn[b] ? -1 : 1;
    const report_line *x = &g->r->lines[a], *y = &g->r->lines[b];
    int c = !x->file || !y->file ? !x->file - !y->file : strcmp(x->file, y->file);
    if (c)
        return c;
    return x->line != y->line ? (x->line < y->line ? -1 : 1) : (a > b) - (a < b);
}

/* The value of event e on line row l of function f before rounding. */
static double line_value(const cg_graph *g, size_t f, size_t l, size_t e, double fn_instructions)
{
    if (!g->by_instructions[e])
        return g->line_cost[l * CG_MAX_EVENTS + e];
    double share = fn_instructions > 0 ? g->line_cost[l * CG_MAX_EVENTS] / fn_instructions : 0;
    return share * g->fn_cost[f * CG_MAX_EVENTS + e];
}

/* The whole-number costs of function f's lines order[from .. to). */
static void round_lines(const cg_graph *g, plan *p, size_t f, size_t from, size_t to, double *v, double *frac,
                        size_t *idx, int64_t *out)
{
    double instructions = 0;
    for (size_t k = from; k < to; k++)
        instructions += g->line_cost[p->order[k] * CG_MAX_EVENTS];
    for (size_t e = 0; e < g->nev; e++) {
        for (size_t k = from; k < to; k++)
            v[k - from] = line_value(g, f, p->order[k], e, instructions);
        apportion(v, to - from, p->self[f * CG_MAX_EVENTS + e], out, frac, idx);
        for (size_t k = from; k < to; k++)
            p->line[k * CG_MAX_EVENTS + e] = out[k - from];
    }
}

/* The file of most of function f's instructions (order[from .. to)). */
static const char *primary_file(const cg_graph *g, const plan *p, size_t from, size_t to)
{
    const char *best = NULL;
    double most = -1;
    for (size_t k = from; k < to;) {
        const char *file = g->r->lines[p->order[k]].file;
        double sum = 0;
        for (; k < to && (g->r->lines[p->order[k]].file == file ||
                          (file && g->r->lines[p->order[k]].file && !strcmp(g->r->lines[p->order[k]].file, file)));
             k++)
            sum += g->line_cost[p->order[k] * CG_MAX_EVENTS];
        if (sum > most)
            most = sum, best = file;
    }
    return best;
}

/* Lines of every function, rounded to add up to its rounded costs. */
static int plan_lines(const cg_graph *g, plan *p)
{
    const report *r = g->r;
    size_t n = r->nlines;
    double *v = malloc((n + 1) * sizeof *v), *frac = malloc((n + 1) * sizeof *frac);
    size_t *idx = malloc((n + 1) * sizeof *idx);
    int64_t *out = malloc((n + 1) * sizeof *out);
    int rc = v && frac && idx && out ? 0 : -1;
    for (size_t l = 0; rc == 0 && l < n; l++)
        if (g->line_fn[l] != CG_NONE)
            p->order[p->nordered++] = l;
    if (rc == 0)
        qsort_r(p->order, p->nordered, sizeof *p->order, by_function_file_line, (void *)g);
    for (size_t f = 0, k = 0; rc == 0 && f < r->nfunctions; f++) {
        p->start[f] = k;
        while (k < p->nordered && g->line_fn[p->order[k]] == f)
            k++;
        p->start[f + 1] = k;
        round_lines(g, p, f, p->start[f], k, v, frac, idx, out);
        p->primary[f] = primary_file(g, p, p->start[f], k);
    }
    free(v), free(frac), free(idx), free(out);
    return rc;
}

static int plan_calls(const cg_graph *g, plan *p)
{
    size_t n = g->r->nfunctions, nev = g->nev;
    cg_arc *arcs = malloc((g->ncalls + 1) * sizeof *arcs);
    double *self = malloc((n + 1) * nev * sizeof *self), *cost = malloc((g->ncalls + 1) * nev * sizeof *cost);
    int rc = arcs && self && cost ? 0 : -1;
    for (size_t f = 0; rc == 0 && f < n; f++)
        for (size_t e = 0; e < nev; e++)
            self[f * nev + e] = (double)p->self[f * CG_MAX_EVENTS + e];
    for (size_t c = 0; rc == 0 && c < g->ncalls; c++) {
        arcs[c] = (cg_arc){g->calls[c].caller, g->calls[c].callee, g->calls[c].calls};
        p->calls[c] = whole(g->calls[c].calls);
    }
    if (rc == 0)
        rc = cg_inclusive(n, nev, self, g->ncalls, arcs, cost);
    for (size_t c = 0; rc == 0 && c < g->ncalls; c++)
        for (size_t e = 0; e < nev; e++)
            p->incl[c * CG_MAX_EVENTS + e] = whole(cost[c * nev + e]);
    free(arcs), free(self), free(cost);
    return rc;
}

static void plan_free(plan *p, size_t nfunctions)
{
    for (size_t f = 0; p->display && f < nfunctions; f++)
        free(p->display[f]);
    free(p->order), free(p->start), free(p->line), free(p->self), free(p->primary), free(p->display);
    free(p->calls), free(p->incl);
}

static int plan_make(const cg_graph *g, plan *p)
{
    const report *r = g->r;
    memset(p, 0, sizeof *p);
    p->order = malloc((r->nlines + 1) * sizeof *p->order);
    p->start = calloc(r->nfunctions + 2, sizeof *p->start);
    p->line = calloc((r->nlines + 1) * CG_MAX_EVENTS, sizeof *p->line);
    p->self = calloc((r->nfunctions + 1) * CG_MAX_EVENTS, sizeof *p->self);
    p->primary = calloc(r->nfunctions + 1, sizeof *p->primary);
    p->display = calloc(r->nfunctions + 1, sizeof *p->display);
    p->calls = calloc(g->ncalls + 1, sizeof *p->calls);
    p->incl = calloc((g->ncalls + 1) * CG_MAX_EVENTS, sizeof *p->incl);
    if (!p->order || !p->start || !p->line || !p->self || !p->primary || !p->display || !p->calls || !p->incl)
        return -1;
    for (size_t f = 0; f < r->nfunctions; f++)
        for (size_t e = 0; e < g->nev; e++)
            p->self[f * CG_MAX_EVENTS + e] = whole(g->fn_cost[f * CG_MAX_EVENTS + e]);
    if (plan_lines(g, p) != 0 || report_function_labels(r->functions, r->nfunctions, p->display) != 0)
        return -1;
    return plan_calls(g, p);
}

/* ---- the file ---------------------------------------------------------------- */

/* Compressed names: one id per distinct string of a kind (ob, fl, fn). */
typedef struct names {
    size_t n, cap;
    const char **s;
} names;

/* Write "KEY=(id)" and, the first time, " NAME" (control bytes, which
 * would end the line, as '?'). */
static int put_name(FILE *out, const char *key, names *ids, const char *name)
{
    if (!name)
        name = "???";
    for (size_t i = 0; i < ids->n; i++)
        if (!strcmp(ids->s[i], name))
            return fprintf(out, "%s=(%zu)\n", key, i + 1) < 0 ? -1 : 0;
    if (ids->n == ids->cap) {
        size_t cap = ids->cap ? 2 * ids->cap : 64;
        const char **s = realloc(ids->s, cap * sizeof *s);
        if (!s)
            return -1;
        ids->s = s, ids->cap = cap;
    }
    ids->s[ids->n++] = name;
    fprintf(out, "%s=(%zu) ", key, ids->n);
    for (const char *c = name; *c; c++)
        fputc((unsigned char)*c < 0x20 ? '?' : *c, out);
    return fputc('\n', out) == EOF ? -1 : 0;
}

typedef struct writer {
    const cg_graph *g;
    const plan *p;
    FILE *out;
    names ob, fl, fn;
} writer;

static void put_costs(writer *w, uint32_t line, const int64_t *cost)
{
    fprintf(w->out, "%u", line);
    for (size_t e = 0; e < w->g->nev; e++)
        fprintf(w->out, " %lld", (long long)cost[e]);
    fputc('\n', w->out);
}

static int same_file(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* The first line of function f in its primary file (0: none), where a
 * call to it is said to go. */
static uint32_t first_line(const writer *w, size_t f)
{
    for (size_t k = w->p->start[f]; k < w->p->start[f + 1]; k++) {
        const report_line *l = &w->g->r->lines[w->p->order[k]];
        if (same_file(l->file, w->p->primary[f]) && l->line)
            return l->line;
    }
    return 0;
}

static int put_call(writer *w, size_t c)
{
    const cg_call *call = &w->g->calls[c];
    const report *r = w->g->r;
    if (w->p->calls[c] == 0)
        return 0;
    if (!same_file(r->functions[call->callee].module, r->functions[call->caller].module) &&
        put_name(w->out, "cob", &w->ob, r->functions[call->callee].module) != 0)
        return -1;
    if (put_name(w->out, "cfi", &w->fl, w->p->primary[call->callee]) != 0 ||
        put_name(w->out, "cfn", &w->fn, w->p->display[call->callee]) != 0)
        return -1;
    fprintf(w->out, "calls=%lld %u\n", (long long)w->p->calls[c], first_line(w, call->callee));
    put_costs(w, call->line, &w->p->incl[c * CG_MAX_EVENTS]);
    return 0;
}

/* The calls of function f made from `file`. */
static int put_calls_from(writer *w, size_t f, const char *file)
{
    for (size_t c = 0; c < w->g->ncalls; c++)
        if (w->g->calls[c].caller == f && same_file(w->g->calls[c].file, file) && put_call(w, c) != 0)
            return -1;
    return 0;
}

/* Switch to `file` inside function f (fi=) unless it is the current one. */
static int enter_file(writer *w, const char **current, const char *file)
{
    if (same_file(*current, file))
        return 0;
    *current = file;
    return put_name(w->out, "fi", &w->fl, file);
}

/* Function f: its lines by file, the primary file first, each file's
 * calls after its lines, then calls from files without a line. */
static int put_function(writer *w, size_t f)
{
    const plan *p = w->p;
    const report_function *fn = &w->g->r->functions[f];
    const char *current = p->primary[f];
    if (put_name(w->out, "ob", &w->ob, fn->module) != 0 || put_name(w->out, "fl", &w->fl, current) != 0 ||
        put_name(w->out, "fn", &w->fn, p->display[f]) != 0)
        return -1;
    if (p->start[f] == p->start[f + 1]) /* no line rows: the row's costs at line 0 */
        put_costs(w, 0, &p->self[f * CG_MAX_EVENTS]);
    for (int pass = 0; pass < 2; pass++) /* the primary file, then the others */
        for (size_t k = p->start[f]; k < p->start[f + 1]; k++) {
            const char *file = w->g->r->lines[p->order[k]].file;
            int primary = same_file(file, p->primary[f]);
            if (primary != (pass == 0))
                continue;
            if (enter_file(w, &current, file) != 0)
                return -1;
            put_costs(w, w->g->r->lines[p->order[k]].line, &p->line[k * CG_MAX_EVENTS]);
            int last = k + 1 == p->start[f + 1] || !same_file(w->g->r->lines[p->order[k + 1]].file, file);
            if (last && put_calls_from(w, f, file) != 0)
                return -1;
        }
    for (size_t c = 0; c < w->g->ncalls; c++) { /* calls from a file none of f's lines is in */
        const cg_call *call = &w->g->calls[c];
        int placed = 0;
        for (size_t k = p->start[f]; k < p->start[f + 1] && !placed; k++)
            placed = same_file(w->g->r->lines[p->order[k]].file, call->file);
        if (call->caller == f && !placed && (enter_file(w, &current, call->file) != 0 || put_call(w, c) != 0))
            return -1;
    }
    return fputc('\n', w->out) == EOF ? -1 : 0;
}

static void put_header(const writer *w, const cg_header *h)
{
    fprintf(w->out, "# callgrind format\nversion: 1\ncreator: augur %s\n", AUGUR_VERSION);
    fprintf(w->out, "cmd: %s\n", h->cmd);
    for (size_t i = 0; i < h->ndesc; i++)
        fprintf(w->out, "desc: %s\n", h->desc[i]);
    fprintf(w->out, "positions: line\n");
    for (size_t e = 0; e < w->g->nev; e++)
        fprintf(w->out, "event: %s : %s\n", w->g->name[e], w->g->desc[e]);
    fprintf(w->out, "events:");
    for (size_t e = 0; e < w->g->nev; e++)
        fprintf(w->out, " %s", w->g->name[e]);
    fprintf(w->out, "\n\n");
}

int cg_write(cg_graph *g, const cg_header *h, FILE *out)
{
    plan p;
    int rc = plan_make(g, &p);
    writer w = {.g = g, .p = &p, .out = out};
    if (rc == 0) {
        put_header(&w, h);
        for (size_t f = 0; rc == 0 && f < g->r->nfunctions; f++)
            rc = put_function(&w, f);
    }
    if (rc == 0) {
        fprintf(out, "totals:");
        for (size_t e = 0; e < g->nev; e++)
            fprintf(out, " %lld", (long long)whole(g->total[e]));
        fputc('\n', out);
    }
    free(w.ob.s), free(w.fl.s), free(w.fn.s);
    plan_free(&p, g->r->nfunctions);
    return rc == 0 && !ferror(out) ? 0 : -1;
}

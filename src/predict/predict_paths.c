/* predict_paths.c — library routines whose code path may change beyond the
 * training sizes (docs/models.md, "Library routines: work per call").
 * A library function (of a module other than the program) whose work per
 * call grows over the training runs is given lengths that grow with the
 * parameters, and glibc's routines switch paths at length thresholds
 * (memset: 32-byte vector stores up to rep_stosb_threshold, 2048 bytes by
 * default, `rep stosb` beyond, which Valgrind counts once per byte): no
 * model of the training runs can know a path they did not take, so the
 * range of its counts is widened to hold the costliest path, one
 * instruction per byte its calls move at the predicted size (its bytes
 * models), and a model whose form its calls do not explain is named in a
 * warning. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predict/predict_internal.h"

/* Bytes one access of a vector path can move: 32 (AVX2; Valgrind 3.19 runs
 * no AVX-512, so glibc picks AVX2 routines under it).  A byte-wise path
 * (`rep stosb`, `rep movsb`) executes one instruction and makes one access
 * per byte: without the function's bytes models (its module's file was not
 * at hand when it was modeled), at most PATH_BYTES_PER_ACCESS per access
 * of the path the training runs took. */
#define PATH_BYTES_PER_ACCESS 32.0

/* Work per call counts as growing when it rises by more than this share
 * between the smallest and the largest training parameters. */
#define PATH_GROWTH 1e-3

/* Forms are judged for functions predicted to hold at least this share of
 * the program's instructions (predict_wide.c names no smaller ones). */
#define FORM_MIN_SHARE 0.01

/* The model row of (function, module) with `metric` in p, or NULL. */
static const db_model_row *function_model(const prediction *p, const db_model_row *of, const char *metric)
{
    for (size_t i = 0; i < p->nrows; i++) {
        const db_model_row *r = &p->rows[i];
        if (!strcmp(r->kind, "function") && !strcmp(r->metric, metric) &&
            !predict_cmp_function(&(report_function){.function = r->function, .module = r->module}, of->function,
                                  of->module))
            return r;
    }
    return NULL;
}

/* Is calls row c of a library function (not the program's module)? */
static int library_calls(const prediction *p, const db_model_row *c)
{
    return !strcmp(c->kind, "function") && !strcmp(c->metric, "calls") &&
           !(c->module && p->set.program && !strcmp(c->module, p->set.program));
}

/* Does the work per call of instructions model f over calls model c grow
 * from the smallest to the largest training parameters? */
static int work_grows(const prediction *p, const db_model_row *f, const db_model_row *c)
{
    double clo = model_eval(c->m, p->set.lo), chi = model_eval(c->m, p->set.hi);
    if (!(clo > 0 && chi > 0))
        return 0;
    double lo = model_eval(f->m, p->set.lo) / clo, hi = model_eval(f->m, p->set.hi) / chi;
    return hi > lo * (1 + PATH_GROWTH);
}

/* The bytes function c reads ([0]) and writes ([1]) at p->x, from its
 * bytes models (a missing one is 0); -1 when it has neither. */
static int predicted_bytes(const prediction *p, const db_model_row *c, double bytes[2])
{
    static const char *const metric[2] = {"bytes_read", "bytes_written"};
    int found = 0;
    for (int k = 0; k < 2; k++) {
        const db_model_row *b = function_model(p, c, metric[k]);
        bytes[k] = b ? fmax(model_eval(b->m, p->x), 0) : 0;
        found |= b != NULL;
    }
    return found ? 0 : -1;
}

/* Widen counts k of function c to hold a byte-wise path: one instruction
 * and one access per byte it reads or writes at p->x, on top of its
 * predicted counts (which bound the calls' other work). */
static void widen(const prediction *p, const db_model_row *c, report_counts *k)
{
    double bytes[2];
    if (predicted_bytes(p, c, bytes) != 0) /* no bytes models: the widest vector access */
        bytes[0] = PATH_BYTES_PER_ACCESS * (double)k->reads, bytes[1] = PATH_BYTES_PER_ACCESS * (double)k->writes;
    k->count_high[0] = fmax(k->count_high[0], (double)k->instructions + fmax(bytes[0], bytes[1]));
    k->count_high[1] = fmax(k->count_high[1], (double)k->reads + bytes[0]);
    k->count_high[2] = fmax(k->count_high[2], (double)k->writes + bytes[1]);
}

int predict_widen_paths(prediction *p)
{
    if (!(predict_reach(p) > 1))
        return 0;
    for (size_t i = 0; i < p->nrows; i++) {
        const db_model_row *c = &p->rows[i], *f;
        if (!library_calls(p, c) || !(f = function_model(p, c, "instructions")) || !work_grows(p, f, c))
            continue;
        report_function key = {.function = c->function, .module = c->module};
        report_function *row = predict_find_function(&p->rep, &key);
        if (row)
            widen(p, c, &row->c);
    }
    return 0;
}

/* Is every term of m a whole power of the parameters, without logs (what
 * loops with polynomial trip counts give)? */
static int whole_powers(const model *m)
{
    for (int t = 0; t < m->nterms; t++)
        for (int k = 0; k < m->terms[t].nfactors; k++) {
            const model_factor *fa = &m->terms[t].factors[k];
            if (fa->log_exponent || fa->exponent != floor(fa->exponent))
                return 0;
        }
    return 1;
}

/* Why model f is not explained by whole powers: a fractional power, or a
 * negative constant cancelling more than half of the rest at the smallest
 * training parameters (a difference of large terms fitting a bend); NULL
 * when it is explained. */
static const char *unexplained(const prediction *p, const model *f)
{
    for (int t = 0; t < f->nterms; t++)
        for (int k = 0; k < f->terms[t].nfactors; k++)
            if (f->terms[t].factors[k].exponent != floor(f->terms[t].factors[k].exponent))
                return f->constant < 0 ? "a fractional power and a negative constant" : "a fractional power";
    double rest = model_eval(f, p->set.lo) - f->constant;
    return f->constant < 0 && -f->constant > 0.5 * rest ? "a negative constant cancelling most of its terms" : NULL;
}

int predict_warn_forms(prediction *p)
{
    for (size_t i = 0; i < p->nrows; i++) {
        const db_model_row *c = &p->rows[i], *f;
        if (!library_calls(p, c) || !whole_powers(c->m) || !(f = function_model(p, c, "instructions")) ||
            !(model_eval(f->m, p->x) >= FORM_MIN_SHARE * (double)p->rep.total.instructions))
            continue;
        const char *why = unexplained(p, f->m);
        if (!why)
            continue;
        char text[1024], params[256];
        predict_params_text(p, params, sizeof params);
        snprintf(text, sizeof text,
                 "instructions: library function %s (%s) is modeled as %s, with %s, a form its calls (%s, whole "
                 "powers as its callers' loops give) do not explain: its work per call changed path between the "
                 "training sizes, and its prediction at %s is not reliable (train on sizes that all take the path "
                 "of the predicted size)",
                 c->function ? c->function : "?", report_base_name(c->module) ?: "?", f->formula ? f->formula : "?",
                 why, c->formula ? c->formula : "?", params);
        if (predict_add_warning(p, text) != 0)
            return -1;
    }
    return 0;
}

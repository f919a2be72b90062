/* predict_print.c — the scope section of `augur predict`: the predicted
 * counts of every modeled function, inlined subroutine and loop of the
 * program, as a text table (the top scopes by instructions, with a line on
 * those left out) and as JSON (all of them; docs/models.md); and the
 * models' errors: of the counts and of the misses, the text's tables
 * with the rows above a threshold (predict_output). */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predict/predict.h"
#include "util/json_util.h"

/* Most instructions first; ties by scope id, so the order is stable. */
static int by_instructions(const void *pa, const void *pb)
{
    const predict_scope *a = *(const predict_scope *const *)pa, *b = *(const predict_scope *const *)pb;
    if (a->instructions != b->instructions)
        return a->instructions < b->instructions ? 1 : -1;
    return a->scope < b->scope ? -1 : a->scope > b->scope;
}

static void write_scope_row(const predict_scope *s, int with_error, num_style numbers, FILE *out)
{
    char label[512], name[REPORT_NAME_WIDTH + 1], n[4][NUMFMT_LEN];
    st_short_name(s->name, REPORT_NAME_WIDTH, name, sizeof name); /* C++ signatures: JSON has them whole */
    if (!strcmp(s->kind, "loop"))
        snprintf(label, sizeof label, "%s", name);
    else
        snprintf(label, sizeof label, "%s %s (%s:%u)", s->kind, name, report_base_name(s->file) ?: "", s->line);
    fprintf(out, "  %-40s %16s", label, numfmt_fixed(s->instructions, 0, numbers, n[0]));
    if (with_error)
        fprintf(out, " %7.2f%%", s->err.instructions);
    fprintf(out, " %15s %15s", numfmt_fixed(s->reads + s->writes, 0, numbers, n[1]),
            numfmt_fixed(s->flops, 0, numbers, n[2]));
    if (s->entries > 0)
        fprintf(out, " %12s %10.1f", numfmt_fixed(s->entries, 0, numbers, n[3]), s->headers / s->entries);
    fputc('\n', out);
}

int predict_write_scopes_text(const prediction *p, const predict_output *o, FILE *out)
{
    if (p->nscopes == 0)
        return 0;
    const predict_scope **order = malloc(p->nscopes * sizeof *order);
    if (!order)
        return -1;
    for (size_t i = 0; i < p->nscopes; i++)
        order[i] = &p->scopes[i];
    qsort(order, p->nscopes, sizeof *order, by_instructions);
    size_t shown = o->top && o->top < p->nscopes ? o->top : p->nscopes;
    fprintf(out, "\nScopes of the program: %zu of %zu, most instructions first (inner scopes included)\n", shown,
            p->nscopes);
    int with_error = p->function_errors != NULL;
    fprintf(out, "  %-40s %16s", "scope", "instructions");
    if (with_error)
        fprintf(out, " %8s", "cv err");
    fprintf(out, " %15s %15s %12s %10s\n", "accesses", "flops", "entries", "iter/entry");
    for (size_t i = 0; i < shown; i++)
        write_scope_row(order[i], with_error, o->numbers, out);
    if (shown < p->nscopes) {
        double all = (double)p->rep.total.instructions;
        fprintf(out, "  (%zu more scopes, each at most %.1f%% of the program's instructions; --top 0 shows all)\n",
                p->nscopes - shown, all > 0 ? 100 * order[shown]->instructions / all : 0.0);
    }
    free(order);
    return ferror(out) ? -1 : 0;
}

/* ---- the models' errors ------------------------------------------------------------ */

/* Whether an error table shows a row whose largest error is `largest`. */
static int above(double largest, const predict_output *o)
{
    return o->error_threshold <= 0 || largest >= o->error_threshold;
}

/* The line under an error table that says how many of the `of` functions
 * it considered were left out below the threshold; nothing when none. */
static void write_left_out(size_t left_out, size_t of, const predict_output *o, FILE *out)
{
    if (left_out)
        fprintf(out, "  (%zu of these %zu functions left out: every error under %g%%; --error-threshold 0 shows "
                     "them)\n", left_out, of, o->error_threshold);
}

/* One row of the misses' errors table: name, then a percent per cache. */
static void write_miss_error_row(const char *name, const predict_miss_error *e, size_t ncaches, FILE *out)
{
    fprintf(out, "  %-40s", name);
    for (size_t c = 0; c < ncaches; c++)
        fprintf(out, " %11.2f%%", e->percent[c]);
    fputc('\n', out);
}

/* The misses' in-sample errors of the total and of those of the first
 * `shown` functions above the threshold, one column per cache; nothing
 * when there are none. */
static void write_miss_errors_text(const prediction *p, size_t shown, const predict_output *o, FILE *out)
{
    const report *r = &p->rep;
    if (!p->function_miss_errors)
        return;
    fprintf(out, "\nMisses errors (in-sample, not leave-one-out: the models at the %zu training runs against "
                 "their measured misses, SMAPE %%):\n", p->ntrain);
    fprintf(out, "  %-40s", "misses of");
    for (size_t c = 0; c < r->ncaches; c++) {
        char label[64];
        report_cache_label(&r->caches[c], label, sizeof label);
        fprintf(out, " %12s", label);
    }
    fputc('\n', out);
    write_miss_error_row("the program", &p->total_miss_error, r->ncaches, out);
    size_t left_out = 0;
    for (size_t i = 0; i < shown; i++) {
        const predict_miss_error *e = &p->function_miss_errors[i];
        double largest = 0;
        for (size_t c = 0; c < r->ncaches; c++)
            largest = e->percent[c] > largest ? e->percent[c] : largest;
        if (!above(largest, o)) {
            left_out++;
            continue;
        }
        char name[REPORT_NAME_WIDTH + 1];
        const char *fn = r->functions[i].function;
        write_miss_error_row(fn ? st_short_name(fn, REPORT_NAME_WIDTH, name, sizeof name) : "(unknown)", e,
                             r->ncaches, out);
    }
    write_left_out(left_out, shown, o, out);
}

int predict_write_errors_text(const prediction *p, const predict_output *o, FILE *out)
{
    if (!p->function_errors)
        return 0;
    size_t ranked = report_ranked_functions(&p->rep), shown = o->top && o->top < ranked ? o->top : ranked, left_out = 0;
    fprintf(out, "\nModel errors (leave-one-out cross-validation, %% of the value; an extrapolation can be off by "
                 "more):\n");
    fprintf(out, "  %-40s %12s %8s %8s\n", "counts of", "instructions", "reads", "writes");
    const predict_error *t = &p->total_error;
    fprintf(out, "  %-40s %11.2f%% %7.2f%% %7.2f%%\n", "the program (functions' errors weighted)", t->instructions, t->reads,
            t->writes);
    for (size_t i = 0; i < shown; i++) {
        const predict_error *e = &p->function_errors[i];
        double largest = e->instructions > e->reads ? e->instructions : e->reads;
        if (!above(e->writes > largest ? e->writes : largest, o)) {
            left_out++;
            continue;
        }
        char name[REPORT_NAME_WIDTH + 1];
        const char *fn = p->rep.functions[i].function;
        fprintf(out, "  %-40s %11.2f%% %7.2f%% %7.2f%%\n",
                fn ? st_short_name(fn, REPORT_NAME_WIDTH, name, sizeof name) : "(unknown)",
                e->instructions, e->reads, e->writes);
    }
    write_left_out(left_out, shown, o, out);
    write_miss_errors_text(p, shown, o, out);
    return ferror(out) ? -1 : 0;
}

static json_t *error_json(const predict_error *e)
{
    return json_pack("{s:f, s:f, s:f}", "instructions", e->instructions, "reads", e->reads, "writes", e->writes);
}

/* error_json(&errors[i]) into the i-th object of the array rows. */
static int add_row_errors(json_t *rows, const predict_error *errors)
{
    size_t i;
    json_t *o;
    json_array_foreach(rows, i, o)
    {
        if (json_object_set_new(o, "cv_error_percent", error_json(&errors[i])) != 0)
            return -1;
    }
    return 0;
}

/* {"32768:64": percent, ...}: a miss error by the caches' keys, as in
 * "misses". */
static json_t *miss_error_json(const report *r, const predict_miss_error *e)
{
    return report_caches_json(r, e->percent, json_real);
}

/* miss_error_json of errors[i] into the i-th object of the array rows. */
static int add_row_miss_errors(const report *r, json_t *rows, const predict_miss_error *errors)
{
    size_t i;
    json_t *o;
    json_array_foreach(rows, i, o)
    {
        if (json_object_set_new(o, "misses_error_percent", miss_error_json(r, &errors[i])) != 0)
            return -1;
    }
    return 0;
}

/* "misses_error_percent" in the total, functions and lines of doc. */
static int miss_errors_json(const prediction *p, json_t *doc)
{
    if (!p->function_miss_errors)
        return 0;
    json_t *total = json_object_get(doc, "total");
    return !total ||
                   json_object_set_new(total, "misses_error_percent",
                                       miss_error_json(&p->rep, &p->total_miss_error)) != 0 ||
                   add_row_miss_errors(&p->rep, json_object_get(doc, "functions"), p->function_miss_errors) != 0 ||
                   add_row_miss_errors(&p->rep, json_object_get(doc, "lines"), p->line_miss_errors) != 0
               ? -1
               : 0;
}

int predict_errors_json(const prediction *p, json_t *doc)
{
    if (!p->function_errors)
        return 0;
    json_t *total = json_object_get(doc, "total");
    return !total || json_object_set_new(total, "cv_error_percent", error_json(&p->total_error)) != 0 ||
                   add_row_errors(json_object_get(doc, "functions"), p->function_errors) != 0 ||
                   add_row_errors(json_object_get(doc, "lines"), p->line_errors) != 0 ||
                   miss_errors_json(p, doc) != 0
               ? -1
               : 0;
}

/* ---- JSON scopes ------------------------------------------------------------------------ */

static json_t *classes_json(const predict_scope *s)
{
    json_t *o = json_object();
    for (int c = 0; o && c < ST_CLASS_COUNT; c++)
        if (s->cls[c] > 0)
            json_object_set_new(o, st_class_name((enum st_class)c), json_real(s->cls[c]));
    return o;
}

static json_t *scope_json(const predict_scope *s, int with_error)
{
    json_t *o = json_pack("{s:I, s:s, s:o, s:o, s:o, s:f, s:f, s:f, s:f, s:o}", "scope", (json_int_t)s->scope,
                          "kind", s->kind ? s->kind : "", "name", json_string_lossy(s->name), "file",
                          json_string_lossy(s->file), "line", s->line ? json_integer(s->line) : json_null(),
                          "instructions", s->instructions, "reads", s->reads, "writes", s->writes, "flops", s->flops,
                          "classes", classes_json(s));
    if (o && with_error) {
        json_object_set_new(o, "cv_error_percent", error_json(&s->err));
        json_object_set_new(o, "lowered", json_boolean(s->lowered));
        json_object_set_new(o, "instructions_range", json_pack("[f, f]", s->instructions * fmax(1 - s->doubt, 0),
                                                               s->instructions * (1 + s->doubt)));
    }
    if (o && !strcmp(s->kind ? s->kind : "", "loop")) {
        json_object_set_new(o, "header_executions", json_real(s->headers));
        json_object_set_new(o, "entries", json_real(s->entries));
    }
    return o;
}

json_t *predict_scopes_json(const prediction *p)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < p->nscopes; i++)
        if (json_array_append_new(a, scope_json(&p->scopes[i], p->function_errors != NULL)) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

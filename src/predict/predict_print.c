/* predict_print.c — the scope section of `augur predict`: the predicted
 * counts of every modeled function, inlined subroutine and loop of the
 * program, as a text table (the top scopes by instructions, with a line on
 * those left out) and as JSON (all of them; docs/models.md). */
#include <inttypes.h>
#include <jansson.h>
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

static void write_scope_row(const predict_scope *s, FILE *out)
{
    char label[512];
    if (!strcmp(s->kind, "loop"))
        snprintf(label, sizeof label, "%s", s->name);
    else
        snprintf(label, sizeof label, "%s %s (%s:%u)", s->kind, s->name, report_base_name(s->file) ?: "", s->line);
    fprintf(out, "  %-40s %16.0f %14.0f %14.0f", label, s->instructions, s->reads + s->writes, s->flops);
    if (s->entries > 0)
        fprintf(out, " %12.0f %10.1f", s->entries, s->headers / s->entries);
    fputc('\n', out);
}

int predict_write_scopes_text(const prediction *p, size_t top, FILE *out)
{
    if (p->nscopes == 0)
        return 0;
    const predict_scope **order = malloc(p->nscopes * sizeof *order);
    if (!order)
        return -1;
    for (size_t i = 0; i < p->nscopes; i++)
        order[i] = &p->scopes[i];
    qsort(order, p->nscopes, sizeof *order, by_instructions);
    size_t shown = top && top < p->nscopes ? top : p->nscopes;
    fprintf(out, "\nScopes of the program: %zu of %zu, most instructions first (inner scopes included)\n", shown,
            p->nscopes);
    fprintf(out, "  %-40s %16s %14s %14s %12s %10s\n", "scope", "instructions", "accesses", "flops", "entries",
            "iter/entry");
    for (size_t i = 0; i < shown; i++)
        write_scope_row(order[i], out);
    if (shown < p->nscopes) {
        double all = (double)p->rep.total.instructions;
        fprintf(out, "  (%zu more scopes, each at most %.1f%% of the program's instructions; --top 0 shows all)\n",
                p->nscopes - shown, all > 0 ? 100 * order[shown]->instructions / all : 0.0);
    }
    free(order);
    return ferror(out) ? -1 : 0;
}

static json_t *classes_json(const predict_scope *s)
{
    json_t *o = json_object();
    for (int c = 0; o && c < ST_CLASS_COUNT; c++)
        if (s->cls[c] > 0)
            json_object_set_new(o, st_class_name((enum st_class)c), json_real(s->cls[c]));
    return o;
}

static json_t *scope_json(const predict_scope *s)
{
    json_t *o = json_pack("{s:I, s:s, s:o, s:o, s:o, s:f, s:f, s:f, s:f, s:o}", "scope", (json_int_t)s->scope,
                          "kind", s->kind ? s->kind : "", "name", json_string_lossy(s->name), "file",
                          json_string_lossy(s->file), "line", s->line ? json_integer(s->line) : json_null(),
                          "instructions", s->instructions, "reads", s->reads, "writes", s->writes, "flops", s->flops,
                          "classes", classes_json(s));
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
        if (json_array_append_new(a, scope_json(&p->scopes[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

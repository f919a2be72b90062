/* structure_print.c — `augur structure` output: the scope tree
 * program -> module -> function -> inlined / loop -> ..., as indented text
 * or as nested JSON scopes, and with --machine the core model of each loop
 * (fields in docs/structure.md). */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "structure/structure.h"

/* Widest function name in the text tree and the core-model table; longer
 * (C++) names are shortened there (st_short_name), JSON keeps them whole. */
#define STRUCTURE_NAME_WIDTH 60

/* "matmul.c:12-20", "matmul.c:12", or "" without lines. */
static void lines_text(const db_scope *s, char *buf, size_t len)
{
    const char *file = report_base_name(s->file);
    if (!file || !s->first_line)
        buf[0] = '\0';
    else if (s->first_line == s->last_line)
        snprintf(buf, len, "%s:%u", file, s->first_line);
    else
        snprintf(buf, len, "%s:%u-%u", file, s->first_line, s->last_line);
}

static void write_scope_text(const scope_tree *t, uint32_t s, int depth, FILE *out)
{
    const db_scope *sc = &t->scopes[s];
    char lines[512], name[STRUCTURE_NAME_WIDTH + 1];
    lines_text(sc, lines, sizeof lines);
    if (!strcmp(sc->kind, "loop")) /* named "loop at FILE:LINE" already */
        fprintf(out, "%*s%s  lines %u-%u", 2 * depth, "", sc->name, sc->first_line, sc->last_line);
    else
        fprintf(out, "%*s%s %s  %s", 2 * depth, "", sc->kind,
                st_short_name(sc->name, STRUCTURE_NAME_WIDTH, name, sizeof name), lines);
    if (sc->folded > 1)
        fprintf(out, "  (%u loops folded)", sc->folded);
    if (sc->call_file && sc->call_line)
        fprintf(out, "  called at %s:%u", report_base_name(sc->call_file), sc->call_line);
    fprintf(out, "  [%" PRIu64 " instructions at 0x%" PRIx64 "]\n", t->inclusive[s], sc->entry_addr);
    for (uint32_t k = 0; k < t->count[s]; k++)
        write_scope_text(t, t->child[t->first[s] + k], depth + 1, out);
}

static void write_module_text(const scope_tree *t, FILE *out)
{
    const db_binary *b = &t->binary;
    fprintf(out, "  module %s  build-id %s\n", b->path, *b->build_id ? b->build_id : "(none)");
    fprintf(out, "    %" PRIu64 " functions, %" PRIu64 " instructions, %" PRIu64 " loops, %" PRIu64
                 " bytes of code%s%s\n",
            b->functions, b->instructions, b->loops, b->text_bytes, b->stripped ? ", stripped" : "",
            b->has_dwarf ? "" : ", no DWARF");
    json_t *w = json_loads(b->warnings, 0, NULL);
    for (size_t i = 0; i < json_array_size(w); i++)
        fprintf(out, "    warning: %s\n", json_string_value(json_array_get(w, i)));
    json_decref(w);
    for (uint32_t k = 0; k < t->count[0]; k++)
        write_scope_text(t, t->child[t->first[0] + k], 2, out);
}

int structure_write_text(const char *program, const scope_tree *trees, size_t n, FILE *out)
{
    fprintf(out, "program %s\n", program);
    for (size_t i = 0; i < n; i++)
        write_module_text(&trees[i], out);
    return ferror(out) ? -1 : 0;
}

static json_t *hex(uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "0x%" PRIx64, v);
    return json_string(buf);
}

static json_t *scope_json(const scope_tree *t, uint32_t s)
{
    const db_scope *sc = &t->scopes[s];
    json_t *o = scope_json_identity(sc), *children = json_array();
    json_object_set_new(o, "entry", hex(sc->entry_addr));
    json_object_set_new(o, "instructions", json_integer((json_int_t)t->inclusive[s]));
    if (!strcmp(sc->kind, "loop"))
        json_object_set_new(o, "folded", json_integer(sc->folded));
    if (!strcmp(sc->kind, "inlined")) {
        json_object_set_new(o, "call_file", sc->call_file ? json_string(sc->call_file) : json_null());
        json_object_set_new(o, "call_line", sc->call_line ? json_integer(sc->call_line) : json_null());
    }
    for (uint32_t k = 0; k < t->count[s]; k++)
        json_array_append_new(children, scope_json(t, t->child[t->first[s] + k]));
    json_object_set_new(o, "children", children);
    return o;
}

static json_t *module_json(const scope_tree *t)
{
    const db_binary *b = &t->binary;
    json_t *o = scope_json(t, 0);
    json_object_set_new(o, "path", json_string(b->path));
    json_object_set_new(o, "build_id", json_string(b->build_id));
    json_object_set_new(o, "stripped", json_boolean(b->stripped));
    json_object_set_new(o, "has_dwarf", json_boolean(b->has_dwarf));
    json_object_set_new(o, "functions", json_integer((json_int_t)b->functions));
    json_object_set_new(o, "loops", json_integer((json_int_t)b->loops));
    json_object_set_new(o, "text_bytes", json_integer((json_int_t)b->text_bytes));
    json_t *w = json_loads(b->warnings, 0, NULL);
    json_object_set_new(o, "warnings", w ? w : json_array());
    return o;
}

int structure_write_json(const char *program, const scope_tree *trees, size_t n, FILE *out)
{
    json_t *root = json_object(), *children = json_array();
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(children, module_json(&trees[i]));
        total += trees[i].inclusive[0];
    }
    json_object_set_new(root, "kind", json_string("program"));
    json_object_set_new(root, "name", json_string(program));
    json_object_set_new(root, "file", json_null());
    json_object_set_new(root, "lines", json_null());
    json_object_set_new(root, "instructions", json_integer((json_int_t)total));
    json_object_set_new(root, "children", children);
    int rc = json_dumpf(root, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    fputc('\n', out);
    json_decref(root);
    return rc != 0 || ferror(out) ? -1 : 0;
}

/* "kernels.c:34" for a loop's scope, "-" when the line is unknown. */
static void loop_place(const st_module *mod, uint32_t scope, char *buf, size_t len)
{
    const st_scope *sc = scope < mod->nscopes ? &mod->scopes[scope] : NULL;
    if (sc && sc->file && sc->first_line)
        snprintf(buf, len, "%s:%u", report_base_name(sc->file), sc->first_line);
    else
        snprintf(buf, len, "-");
}

int structure_write_core_text(const machine *m, const st_module *mod, const perf_loop_core *rows, size_t n,
                              FILE *out)
{
    fprintf(out, "\ncore model on %s: cycles per loop iteration, every access an L1 hit, each block of the body\n"
                 "once (docs/performance-model.md)\n",
            m->name);
    fprintf(out, "%-24s %-20s %-10s %-10s %5s %5s %7s %7s %7s %7s %7s %-10s %s\n", "function", "loop", "first", "end",
            "inner", "insns", "uops", "issue", "ports", "recur", "cycles", "bound", "busiest");
    for (size_t k = 0; k < n; k++) {
        const perf_loop_core *r = &rows[k];
        char place[256], first[24], end[24], fname[25];
        loop_place(mod, r->scope, place, sizeof place);
        snprintf(first, sizeof first, "0x%" PRIx64, r->first);
        snprintf(end, sizeof end, "0x%" PRIx64, r->end);
        fprintf(out, "%-24s %-20s %-10s %-10s %5s %5u %7.2f %7.2f %7.2f %7.2f %7.2f %-10s %s\n",
                st_short_name(mod->functions[r->function].name, 24, fname, sizeof fname), place, first, end, r->innermost ? "yes" : "no", r->ninsns,
                r->core.uops, r->core.issue, r->core.resource, r->core.recurrence, r->core.cycles,
                perf_core_bound_name(r->core.bound),
                r->core.resource > 0 ? m->port_names[r->core.busiest_port] : "-");
    }
    return ferror(out) ? -1 : 0;
}

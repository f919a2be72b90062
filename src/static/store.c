/* store.c — the static model as the database keeps it (`augur static
 * --db`, docs/database.md "Static models"): per function and loop its
 * formulas as text and as forms (form.h), the unknowns they use, and the
 * program's unknowns and warnings, tied to the binary by its build-id. */
#include "static/store.h"
#include "static/form.h"
#include "util/json_util.h"

#include <stdlib.h>
#include <string.h>

/* A JSON value as compact text in the arena. */
static char *dump(sa_arena *a, json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT);
    json_decref(v);
    char *c = sa_strdup(a, s ? s : "null");
    free(s);
    return c;
}

/* The scope's formulas (iterations first for a loop), as text into
 * *formulas and as forms into *forms; the names they use into *unknowns. */
static void put_formulas(db_static_scope *out, const sa_program *p, const sa_scope_formulas *s, int loop,
                         const sa_formula *program)
{
    json_t *text = json_object(), *forms = json_object(), *names = json_array();
    int *syms = NULL;
    size_t n = 0;
    for (int k = -2; k <= OP_N; k++) {
        if (k < 0 && !loop)
            continue;
        if (k == -2 && !program)
            continue;
        sa_formula x = k == -2 ? *program : k == -1 ? s->iterations : k == OP_N ? s->statements : s->ops[k];
        const char *name = k == -2 ? "program_iterations" : k == -1 ? "iterations" : k == OP_N ? "statements"
                                                                                              : sa_op_names[k];
        json_object_set_new(text, name, json_string_lossy(sa_formula_str(p->arena, &p->syms, x, SA_TEXT)));
        json_object_set_new(forms, name, sa_formula_form(p->arena, &p->syms, x));
        if (k != -2)
            sa_formula_symbols(&p->syms, p->arena, x, &syms, &n);
    }
    for (size_t k = 0; k < n; k++)
        json_array_append_new(names, json_string_lossy(p->syms.v[syms[k]].name));
    out->formulas = dump(p->arena, text);
    out->forms = dump(p->arena, forms);
    out->unknowns = dump(p->arena, names);
}

/* The binary loops joined to loop l of function fi, as the database keeps
 * them (docs/database.md, "Static models"): each one's binary function,
 * header address, role, factor and iterations in the whole run (text and
 * form; null without main).  match.c pairs measured loops by the address. */
static char *binary_loops_json(const sa_program *p, const sa_results *r, size_t fi, size_t l, int has_main)
{
    json_t *a = json_array();
    for (size_t i = 0; i < p->nbloops; i++) {
        const sa_bloop *b = &p->bloops[i];
        if (b->func != (int)fi || b->loop != (int)l)
            continue;
        json_t *text = has_main ? json_string_lossy(sa_formula_str(p->arena, &p->syms, r->progbloops[i], SA_TEXT))
                                : json_null();
        json_t *form = has_main ? sa_formula_form(p->arena, &p->syms, r->progbloops[i]) : json_null();
        json_array_append_new(a, json_pack("{s:s,s:I,s:s,s:i,s:o,s:o}", "function", b->symbol, "address",
                                           (json_int_t)b->addr, "role", sa_bloop_role_names[b->role], "factor",
                                           b->factor, "program_iterations", text, "program_iterations_form", form));
    }
    return dump(p->arena, a);
}

static json_t *unknowns_json(const sa_program *p)
{
    json_t *u = json_array();
    for (size_t i = 0; i < p->nunknowns; i++)
        json_array_append_new(u, json_pack("{s:o,s:o,s:i,s:o}", "name", json_string_lossy(p->unknowns[i].name),
                                           "file", json_string_lossy(p->unknowns[i].file), "line",
                                           p->unknowns[i].line, "reason", json_string_lossy(p->unknowns[i].reason)));
    return u;
}

void sa_store_model(const sa_program *p, const sa_results *r, db_static_model *m)
{
    sa_arena *a = p->arena;
    int has_main = sa_total_function(p) >= 0;
    m->unknowns = dump(a, unknowns_json(p));
    m->warnings = dump(a, json_string_array(p->warnings, p->nwarnings));
    m->nscopes = 0;
    for (size_t i = 0; i < p->nfuncs; i++)
        m->nscopes += 1 + p->funcs[i].nloops;
    m->scopes = sa_alloc(a, (m->nscopes + 1) * sizeof *m->scopes);
    size_t at = 0;
    for (size_t i = 0; i < p->nfuncs; i++) {
        const sa_func *f = &p->funcs[i];
        db_static_scope *s = &m->scopes[at++];
        *s = (db_static_scope){.kind = "function", .function = (char *)f->name, .file = (char *)f->file,
                               .first_line = f->line, .last_line = f->end_line, .parent = -1};
        put_formulas(s, p, &r->funcs[i], 0, NULL);
        s->binary_loops = "[]";
        size_t base = at;
        for (size_t l = 0; l < f->nloops; l++) {
            const sa_loop *lp = &f->loops[l];
            s = &m->scopes[at++];
            *s = (db_static_scope){.kind = "loop", .function = (char *)f->name, .file = (char *)f->file,
                                   .first_line = lp->line, .last_line = lp->end_line,
                                   .parent = lp->parent >= 0 ? (int)(base + (size_t)lp->parent) : -1};
            put_formulas(s, p, &r->loops[i][l], 1, has_main ? &r->program[i][l] : NULL);
            s->binary_loops = binary_loops_json(p, r, i, l, has_main);
        }
    }
}

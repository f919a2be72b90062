/* out_json.c — the static model as JSON (docs/static.md, "JSON"). */
#include "static/static.h"
#include "util/json_util.h"

#include <jansson.h>
#include <math.h>

/* {"iterations"?, "flops", ...} as formula strings, and their values. */
static void put_formulas(json_t *o, const sa_program *p, const sa_scope_formulas *s, int loop, const sa_values *v)
{
    json_t *f = json_object(), *vals = json_object();
    int all = v && v->given > 0;
    for (int k = -1; k <= OP_N; k++) {
        if (k == -1 && !loop)
            continue;
        sa_formula x = k == -1 ? s->iterations : k == OP_N ? s->statements : s->ops[k];
        const char *name = k == -1 ? "iterations" : k == OP_N ? "statements" : sa_op_names[k];
        json_object_set_new(f, name, json_string_lossy(sa_formula_str(p->arena, &p->syms, x, SA_TEXT)));
        double d;
        const char *missing;
        if (all && sa_formula_eval(&p->syms, x, v->vals, v->known, &d, &missing) == 0)
            json_object_set_new(vals, name, d == floor(d) ? json_integer((json_int_t)d) : json_real(d));
        else
            all = 0;
    }
    json_object_set_new(o, "formulas", f);
    if (all)
        json_object_set_new(o, "values", vals);
    else
        json_decref(vals);
}

/* "program_iterations": the loop's iterations in the whole run (from main), and its value. */
static void put_program(json_t *o, const sa_program *p, sa_formula f, const sa_values *v)
{
    if (sa_total_function(p) < 0) {
        json_object_set_new(o, "program_iterations", json_null());
        return;
    }
    json_object_set_new(o, "program_iterations", json_string_lossy(sa_formula_str(p->arena, &p->syms, f, SA_TEXT)));
    double d;
    const char *missing;
    if (v && v->given > 0 && sa_formula_eval(&p->syms, f, v->vals, v->known, &d, &missing) == 0)
        json_object_set_new(o, "program_iterations_value", json_integer((json_int_t)d));
}

static json_t *lines(int a, int b)
{
    return json_pack("[ii]", a, b);
}

static json_t *function_json(const sa_program *p, const sa_results *r, size_t i, const sa_values *v)
{
    const sa_func *f = &p->funcs[i];
    json_t *o = json_pack("{s:o,s:o,s:o}", "name", json_string_lossy(f->name), "file", json_string_lossy(f->file),
                          "lines", lines(f->line, f->end_line));
    json_t *params = json_array();
    int *syms = NULL;
    size_t n = 0;
    for (int k = 0; k < OP_N; k++)
        sa_formula_symbols(&p->syms, p->arena, r->funcs[i].ops[k], &syms, &n);
    sa_formula_symbols(&p->syms, p->arena, r->funcs[i].statements, &syms, &n);
    for (size_t k = 0; k < n; k++)
        json_array_append_new(params, json_string_lossy(p->syms.v[syms[k]].name));
    json_object_set_new(o, "unknowns", params);
    put_formulas(o, p, &r->funcs[i], 0, v);
    json_t *stmts = json_array();
    for (size_t s = 0; s < f->nstmts; s++) {
        json_t *so = json_pack("{s:i}", "line", f->stmts[s].line);
        put_formulas(so, p, &r->stmts[i][s], 0, v);
        json_array_append_new(stmts, so);
    }
    json_object_set_new(o, "statements", stmts);
    if (sa_total_function(p) >= 0) { /* its own operations in the run, callees excluded */
        json_t *prog = json_object();
        put_formulas(prog, p, &r->progfuncs[i], 0, v);
        json_object_set_new(o, "program", prog);
    } else {
        json_object_set_new(o, "program", json_null());
    }
    return o;
}

int sa_print_json(FILE *to, const char *program, const sa_program *p, const sa_results *r, const sa_values *v)
{
    json_t *root = json_pack("{s:o}", "program", json_string_lossy(program));
    json_t *funcs = json_array(), *loops = json_array(), *unknowns = json_array(), *warnings = json_array();
    for (size_t i = 0; i < p->nfuncs; i++) {
        const sa_func *f = &p->funcs[i];
        json_array_append_new(funcs, function_json(p, r, i, v));
        size_t base = json_array_size(loops);
        for (size_t l = 0; l < f->nloops; l++) {
            const sa_loop *lp = &f->loops[l];
            json_t *o = json_pack("{s:o,s:o,s:o,s:o,s:o}", "name",
                                  json_string_lossy(sa_printf(p->arena, "loop at %s:%d", f->file, lp->line)),
                                  "function", json_string_lossy(f->name), "file", json_string_lossy(f->file), "lines",
                                  lines(lp->line, lp->end_line), "parent",
                                  lp->parent >= 0 ? json_integer((json_int_t)(base + (size_t)lp->parent)) : json_null());
            put_formulas(o, p, &r->loops[i][l], 1, v);
            put_program(o, p, r->program[i][l], v);
            json_object_set_new(o, "binary_loops", sa_json_bloops(p, r, i, l, v));
            json_array_append_new(loops, o);
        }
    }
    for (size_t i = 0; i < p->nunknowns; i++)
        json_array_append_new(unknowns, json_pack("{s:o,s:o,s:i,s:o}", "name", json_string_lossy(p->unknowns[i].name),
                                                  "file", json_string_lossy(p->unknowns[i].file), "line",
                                                  p->unknowns[i].line, "reason",
                                                  json_string_lossy(p->unknowns[i].reason)));
    json_object_set_new(root, "functions", funcs);
    json_object_set_new(root, "loops", loops);
    json_object_set_new(root, "unknowns", unknowns);
    json_object_set_new(root, "warnings", json_string_array(p->warnings, p->nwarnings));
    json_decref(warnings);
    int t = sa_total_function(p);
    if (t >= 0) {
        json_t *tot = json_pack("{s:s}", "function", "main");
        put_formulas(tot, p, &r->funcs[t], 0, v);
        json_object_set_new(root, "total", tot);
    } else {
        json_object_set_new(root, "total", json_null());
    }
    int rc = json_dumpf(root, to, JSON_INDENT(2)) == 0 && fputc('\n', to) != EOF ? 0 : -1;
    json_decref(root);
    return rc;
}

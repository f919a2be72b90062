/* out_text.c — the static model as text: per function its formulas, its
 * loops nested with their iterations and operations, then the unknowns;
 * with --param, each formula's value after it. */
#include "static/static.h"

#include <math.h>

/* " = VALUE" when every symbol of f has a value, else "". */
static const char *value_str(sa_arena *a, const sa_program *p, sa_formula f, const sa_values *v)
{
    double x;
    const char *missing;
    if (!v || v->given == 0 || sa_formula_eval(&p->syms, f, v->vals, v->known, &x, &missing) != 0)
        return "";
    if (x == floor(x) && fabs(x) < 1e18)
        return sa_printf(a, "  = %.0f", x);
    return sa_printf(a, "  = %.4g", x);
}

static void formulas(FILE *to, const sa_program *p, const sa_scope_formulas *s, int indent, int loop,
                     const sa_values *v)
{
    sa_arena *a = p->arena;
    if (loop)
        fprintf(to, "%*s%-11s %s%s\n", indent, "", "iterations", sa_formula_str(a, &p->syms, s->iterations, SA_TEXT),
                value_str(a, p, s->iterations, v));
    for (int k = 0; k < OP_N; k++)
        if (sa_op_printed(p, s, k))
            fprintf(to, "%*s%-11s %s%s\n", indent, "", sa_op_names[k],
                    sa_formula_str(a, &p->syms, s->ops[k], SA_TEXT), value_str(a, p, s->ops[k], v));
}

static void loops_under(FILE *to, const sa_program *p, const sa_results *r, size_t fi, int parent, int indent,
                        const sa_values *v)
{
    const sa_func *f = &p->funcs[fi];
    for (size_t l = 0; l < f->nloops; l++) {
        if (f->loops[l].parent != parent)
            continue;
        fprintf(to, "%*sloop at %s:%d (lines %d-%d)\n", indent, "", f->file, f->loops[l].line, f->loops[l].line,
                f->loops[l].end_line);
        formulas(to, p, &r->loops[fi][l], indent + 2, 1, v);
        sa_text_bloops(to, p, r, fi, l, indent + 2, v);
        if (sa_total_function(p) >= 0 && (int)fi != sa_total_function(p))
            fprintf(to, "%*s%-11s %s%s\n", indent + 2, "", "in program", sa_formula_str(p->arena, &p->syms, r->program[fi][l], SA_TEXT),
                    value_str(p->arena, p, r->program[fi][l], v));
        loops_under(to, p, r, fi, (int)l, indent + 2, v);
    }
}

void sa_print_text(FILE *to, const char *program, const sa_program *p, const sa_results *r, const sa_values *v)
{
    fprintf(to, "static model of %s: counts per call, callees included; source operations "
                "(floating-point + - * /, loads and stores of memory); with the binary joined, its instructions\n"
                "(instructions, insn_flops, insn_loads, insn_stores, insn_bytes, per class) and with --machine cycles\n",
            program);
    for (size_t i = 0; i < p->nfuncs; i++) {
        const sa_func *f = &p->funcs[i];
        fprintf(to, "\nfunction %s (%s:%d-%d)\n", f->name, f->file, f->line, f->end_line);
        formulas(to, p, &r->funcs[i], 2, 0, v);
        if (sa_total_function(p) >= 0 && (int)i != sa_total_function(p) && p->nbloops) {
            fprintf(to, "  in program (its own, callees excluded)\n");
            formulas(to, p, &r->progfuncs[i], 4, 0, v);
        }
        loops_under(to, p, r, i, -1, 2, v);
    }
    if (p->nunknowns) {
        fprintf(to, "\nunknowns\n");
        for (size_t i = 0; i < p->nunknowns; i++)
            fprintf(to, "  %-14s %s:%d  %s\n", p->unknowns[i].name, p->unknowns[i].file, p->unknowns[i].line,
                    p->unknowns[i].reason);
    }
    int t = sa_total_function(p);
    if (t >= 0) {
        fprintf(to, "\ntotal (main)\n");
        formulas(to, p, &r->funcs[t], 2, 0, v);
    }
}

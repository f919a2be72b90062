/* out_python.c — the static model as a Python module (seed 003, section
 * 3.4): one function per source function, named NAME_NARGS, taking the
 * unknowns its formulas use and returning a dict of its counts per call,
 * callees included; exact integer arithmetic. */
#include "static/static.h"

#include <string.h>

/* Python's reserved words: a C variable by that name gets a trailing '_'. */
static const char *py_name(sa_arena *a, const char *name)
{
    static const char *const kw[] = {"False", "None", "True", "and", "as", "assert", "async", "await", "class",
                                     "def", "del", "elif", "except", "finally", "from", "global", "in", "is",
                                     "lambda", "nonlocal", "not", "or", "pass", "raise", "try", "with", "yield"};
    for (size_t i = 0; i < sizeof kw / sizeof *kw; i++)
        if (!strcmp(kw[i], name))
            return sa_printf(a, "%s_", name);
    return name;
}

/* The formula in Python, with reserved names renamed. */
static const char *py_formula(const sa_program *p, sa_formula f)
{
    sa_symtab t = p->syms;
    t.v = sa_alloc(p->arena, (t.n + 1) * sizeof *t.v);
    memcpy(t.v, p->syms.v, t.n * sizeof *t.v);
    for (size_t i = 0; i < t.n; i++)
        t.v[i].name = py_name(p->arena, t.v[i].name);
    return sa_formula_str(p->arena, &t, f, SA_PYTHON);
}

void sa_print_python(FILE *to, const char *program, const sa_program *p, const sa_results *r)
{
    fprintf(to, "\"\"\"Static model of %s, made by augur static (docs/static.md).\n\n"
                "One function per source function (NAME_NARGS): it takes the unknowns its counts depend on\n"
                "and returns the counts of one call, callees included.\n\"\"\"\n"
                "from fractions import Fraction  # noqa: F401 (weights of annotated branch ratios)\n",
            program);
    for (size_t i = 0; i < p->nfuncs; i++) {
        const sa_func *f = &p->funcs[i];
        const sa_scope_formulas *s = &r->funcs[i];
        int *syms = NULL;
        size_t n = 0;
        for (int k = 0; k < OP_N; k++)
            sa_formula_symbols(&p->syms, p->arena, s->ops[k], &syms, &n);
        sa_formula_symbols(&p->syms, p->arena, s->statements, &syms, &n);
        fprintf(to, "\n\ndef %s_%zu(", f->name, f->nparams);
        for (size_t k = 0; k < n; k++)
            fprintf(to, "%s%s", k ? ", " : "", py_name(p->arena, p->syms.v[syms[k]].name));
        fprintf(to, "):\n    \"\"\"%s (%s:%d-%d).\"\"\"\n    return {\n", f->name, f->file, f->line, f->end_line);
        for (int k = 0; k < OP_N; k++)
            fprintf(to, "        \"%s\": %s,\n", sa_op_names[k], py_formula(p, s->ops[k]));
        fprintf(to, "        \"statements\": %s,\n    }\n", py_formula(p, s->statements));
    }
}

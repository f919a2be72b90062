/* out_c.c — the static model as C (docs/static.md, "C"): a header that
 * declares the struct of counts and one function per source function,
 * named NAME_NARGS as in the Python module, and a source that defines them
 * with the formulas as C expressions, callees composed in.  Written as
 * PREFIX.h and PREFIX.c, or to one stream as a single translation unit. */
#include "static/static.h"

#include <ctype.h>
#include <string.h>

/* A count's member in struct augur_counts: its name, with a trailing '_'
 * where that is a C keyword (the instruction class `return`). */
static const char *member(const char *name)
{
    return strcmp(name, "return") ? name : "return_";
}

/* Is symbol s a weight factor (a branch ratio, a fraction: double) of any
 * term of the function's formulas, rather than a count's integer unknown? */
static int is_factor(const sa_scope_formulas *s, int sym)
{
    for (int k = 0; k <= OP_N; k++) {
        sa_formula x = k == OP_N ? s->statements : s->ops[k];
        for (size_t i = 0; i < x.n; i++)
            for (size_t j = 0; j < x.t[i].nf; j++)
                if (x.t[i].f[j] == sym)
                    return 1;
    }
    return 0;
}

/* The unknowns function i's formulas use, as "int64_t n, double ratio_59"
 * ("void" for none). */
static const char *signature(const sa_program *p, const sa_results *r, size_t i)
{
    int *syms = NULL;
    size_t n = 0;
    const sa_scope_formulas *s = &r->funcs[i];
    for (int k = 0; k < OP_N; k++)
        sa_formula_symbols(&p->syms, p->arena, s->ops[k], &syms, &n);
    sa_formula_symbols(&p->syms, p->arena, s->statements, &syms, &n);
    char *sig = NULL;
    for (size_t k = 0; k < n; k++) {
        const char *decl = sa_printf(p->arena, "%s %s", is_factor(s, syms[k]) ? "double" : "int64_t",
                                     p->syms.v[syms[k]].name);
        sig = sig ? sa_printf(p->arena, "%s, %s", sig, decl) : (char *)decl;
    }
    return sig ? sig : "void";
}

/* The declarations: the counts struct and a prototype per function. */
static void print_header(FILE *to, const char *program, const char *guard, const sa_program *p,
                         const sa_results *r)
{
    fprintf(to,
            "/* Static model of %s, made by augur static (docs/static.md).\n"
            " * One function per source function (NAME_NARGS): it takes the unknowns its counts\n"
            " * depend on and returns the counts of one call, callees included. */\n"
            "#ifndef %s\n#define %s\n\n#include <stdint.h>\n\n"
            "/* Counts of one call, as the JSON's formulas (double: a count\n"
            " * weighted by an annotated branch ratio is a fraction; exact integers to 2^53). */\n"
            "typedef struct augur_counts {\n",
            program, guard, guard);
    for (int k = 0; k < OP_N; k++)
        fprintf(to, "    double %s;\n", member(sa_op_names[k]));
    fprintf(to, "    double statements;\n} augur_counts;\n\n");
    for (size_t i = 0; i < p->nfuncs; i++)
        fprintf(to, "augur_counts %s_%zu(%s);\n", p->funcs[i].name, p->funcs[i].nparams, signature(p, r, i));
    fprintf(to, "\n#endif\n");
}

/* The definitions; `include` names the header to include, or NULL when the
 * header was written just before (one translation unit). */
static void print_source(FILE *to, const char *include, const sa_program *p, const sa_results *r)
{
    if (include)
        fprintf(to, "/* Static model made by augur static: the functions %s declares. */\n#include \"%s\"\n",
                include, include);
    fprintf(to, "\n/* a mod m in [0, m) (C's %% keeps the sign of a): the residue that picks a periodic\n"
                " * number's value. */\n"
                "static inline int64_t augur_mod(int64_t a, int64_t m)\n{\n"
                "    int64_t r = a %% m;\n    return r < 0 ? r + m : r;\n}\n");
    for (size_t i = 0; i < p->nfuncs; i++) {
        const sa_func *f = &p->funcs[i];
        const sa_scope_formulas *s = &r->funcs[i];
        /* a compound literal, not a local: no name of ours can hide an unknown's */
        fprintf(to, "\n/* %s (%s:%d-%d). */\naugur_counts %s_%zu(%s)\n{\n    return (augur_counts){\n", f->name,
                f->file, f->line, f->end_line, f->name, f->nparams, signature(p, r, i));
        for (int k = 0; k < OP_N; k++)
            fprintf(to, "        .%s = %s,\n", member(sa_op_names[k]),
                    sa_formula_str(p->arena, &p->syms, s->ops[k], SA_C));
        fprintf(to, "        .statements = %s,\n    };\n}\n", sa_formula_str(p->arena, &p->syms, s->statements, SA_C));
    }
}

/* The header's include guard: AUGUR_ then the header's name, upper case,
 * other characters as '_'. */
static const char *guard_of(sa_arena *a, const char *header)
{
    char *g = sa_printf(a, "AUGUR_%s", header);
    for (char *c = g; *c; c++)
        *c = isalnum((unsigned char)*c) ? (char)toupper((unsigned char)*c) : '_';
    return g;
}

void sa_print_c(FILE *to, const char *program, const sa_program *p, const sa_results *r)
{
    print_header(to, program, "AUGUR_STATIC_MODEL_H", p, r);
    print_source(to, NULL, p, r);
}

void sa_print_c_pair(FILE *header, FILE *source, const char *header_name, const char *program,
                     const sa_program *p, const sa_results *r)
{
    print_header(header, program, guard_of(p->arena, header_name), p, r);
    print_source(source, header_name, p, r);
}

/* out_join.c — the binary's part of the text and JSON outputs: the binary
 * loops joined to a source loop (their role, factor, iterations and, with
 * a machine, cycles per iteration), and which operations a scope prints
 * (docs/static.md, "The binary"). */
#include "static/static.h"
#include "util/json_util.h"

#include <string.h>

const char *const sa_bloop_role_names[] = {"all", "blocks", "remainder"};

/* The value of formula x at v, into *d: 0, or -1 when a symbol has none. */
static int value_of(const sa_program *p, sa_formula x, const sa_values *v, double *d)
{
    *d = 0;
    const char *missing;
    return v && v->given > 0 ? sa_formula_eval(&p->syms, x, v->vals, v->known, d, &missing) : -1;
}

/* Was any of p's code joined to the binary? */
static int joined(const sa_program *p)
{
    for (size_t i = 0; i < p->nfuncs; i++)
        if (p->funcs[i].nbins)
            return 1;
    return 0;
}

int sa_op_printed(const sa_program *p, const sa_scope_formulas *s, int k)
{
    if (k < OP_SOURCE_N)
        return 1;
    return joined(p) && (k == OP_INSNS || !sa_formula_is_zero(s->ops[k]));
}

void sa_text_bloops(FILE *to, const sa_program *p, const sa_results *r, size_t fi, size_t l, int indent,
                    const sa_values *v)
{
    for (size_t i = 0; i < p->nbloops; i++) {
        const sa_bloop *b = &p->bloops[i];
        if (b->func != (int)fi || b->loop != (int)l)
            continue;
        double d;
        fprintf(to, "%*sbinary loop 0x%llx in %s: %s, %d source iteration%s per iteration (vector width %d, "
                    "unroll %d), %d instructions\n",
                indent, "", (unsigned long long)b->addr, b->symbol, sa_bloop_role_names[b->role], b->factor,
                b->factor == 1 ? "" : "s", b->lanes, b->unroll, b->ninsns);
        if (b->via_func >= 0)
            fprintf(to, "%*s  inlined at %s:%d: iterations per call of %s\n", indent, "", p->funcs[b->via_func].file,
                    b->via_line, p->funcs[b->via_func].name);
        fprintf(to, "%*s  iterations %s", indent, "", sa_formula_str(p->arena, &p->syms, r->bloops[i], SA_TEXT));
        if (value_of(p, r->bloops[i], v, &d) == 0)
            fprintf(to, "  = %.0f", d);
        fputc('\n', to);
        if (!sa_formula_is_zero(r->progbloops[i])) {
            fprintf(to, "%*s  in program %s", indent, "", sa_formula_str(p->arena, &p->syms, r->progbloops[i], SA_TEXT));
            if (value_of(p, r->progbloops[i], v, &d) == 0)
                fprintf(to, "  = %.0f", d);
            fputc('\n', to);
        }
        if (b->bound)
            fprintf(to, "%*s  cycles per iteration %.2f (%s bound) + memory %.2f (%.0f bytes streamed)\n", indent, "",
                    b->cycles, b->bound, b->mem_cycles, b->stream_bytes);
        for (int k = 0; b->nbands > 1 && k < b->nbands; k++) {
            const sa_band *bd = &b->bands[k];
            if (k + 1 < b->nbands)
                fprintf(to, "%*s    entries of up to %.0f iterations: %.2f cycles per iteration (%s)\n", indent, "",
                        bd->most, bd->cycles, bd->bound);
            else
                fprintf(to, "%*s    longer entries: %.2f cycles per iteration (%s)\n", indent, "", bd->cycles, bd->bound);
        }
    }
}

json_t *sa_json_bloops(const sa_program *p, const sa_results *r, size_t fi, size_t l, const sa_values *v)
{
    json_t *a = json_array();
    for (size_t i = 0; i < p->nbloops; i++) {
        const sa_bloop *b = &p->bloops[i];
        if (b->func != (int)fi || b->loop != (int)l)
            continue;
        char addr[32];
        snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)b->addr);
        json_t *o = json_pack("{s:s,s:s,s:s,s:i,s:i,s:i,s:i,s:o,s:b}", "function", b->symbol, "address", addr, "role",
                              sa_bloop_role_names[b->role], "factor", b->factor, "vector_width", b->lanes, "unroll", b->unroll,
                              "instructions", b->ninsns, "iterations",
                              json_string_lossy(sa_formula_str(p->arena, &p->syms, r->bloops[i], SA_TEXT)), "parallel",
                              b->parallel);
        double d;
        if (value_of(p, r->bloops[i], v, &d) == 0)
            json_object_set_new(o, "iterations_value", json_integer((json_int_t)d));
        int in_run = sa_total_function(p) >= 0;
        json_object_set_new(o, "program_iterations",
                            in_run ? json_string_lossy(sa_formula_str(p->arena, &p->syms, r->progbloops[i], SA_TEXT))
                                   : json_null());
        json_object_set_new(o, "program_iterations_value",
                            in_run && value_of(p, r->progbloops[i], v, &d) == 0 ? json_integer((json_int_t)d)
                                                                                : json_null());
        json_object_set_new(o, "inlined_in", b->via_func >= 0 ? json_string_lossy(p->funcs[b->via_func].name)
                                                              : json_null());
        json_object_set_new(o, "inlined_at", b->via_func >= 0 ? json_integer(b->via_line) : json_null());
        if (b->bound) {
            json_object_set_new(o, "cycles_per_iteration", json_real(b->cycles));
            json_object_set_new(o, "bound", json_string(b->bound));
            json_object_set_new(o, "stream_bytes_per_iteration", json_real(b->stream_bytes));
            json_object_set_new(o, "mem_cycles_per_iteration", json_real(b->mem_cycles));
            json_object_set_new(o, "contention", json_real(b->contention));
            json_t *bands = json_array();
            for (int k = 0; k < b->nbands; k++)
                json_array_append_new(bands, json_pack("{s:o,s:f,s:s}", "most_iterations",
                                                       k + 1 < b->nbands ? json_integer((json_int_t)b->bands[k].most)
                                                                         : json_null(),
                                                       "cycles_per_iteration", b->bands[k].cycles, "bound",
                                                       b->bands[k].bound));
            json_object_set_new(o, "time_bands", bands);
        }
        json_array_append_new(a, o);
    }
    return a;
}

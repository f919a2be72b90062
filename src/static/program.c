/* program.c — the program model's lists: warnings, unknowns, functions by
 * name, and the names (and denominators) of the operations counted. */
#include "static/model.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The classes' names are st_class_name's (src/structure/iclass.c), in its order. */
const char *const sa_op_names[OP_N] = {
    "flops",       "loads",      "stores",       "bytes",   "instructions", "insn_flops", "insn_loads",
    "insn_stores", "insn_bytes", "load_store",   "int_alu", "int_mul",      "int_div",    "fp_add",
    "fp_mul",      "fp_fma",     "fp_div",       "fp_sqrt", "fp_cvt",       "move",       "branch",
    "call",        "return",     "other",        "cycles",     "mem_cycles",
};

const int64_t sa_op_den[OP_N] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                 1, 1, 1, 1, 1, 1, 1, 1, [OP_CYCLES] = SA_CYCLE_DEN,
                                 [OP_MEM_CYCLES] = SA_CYCLE_DEN};
_Static_assert(OP_CYCLES == 24 && OP_N == 26, "sa_op_den's ones reach OP_CYCLES");

void sa_warn(sa_program *p, const char *file, int line, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char *w = line > 0 ? sa_printf(p->arena, "%s:%d: %s", file, line, msg) : sa_printf(p->arena, "%s: %s", file, msg);
    for (size_t i = 0; i < p->nwarnings; i++)
        if (!strcmp(p->warnings[i], w))
            return;
    p->warnings = sa_push(p->arena, p->warnings, &p->nwarnings, sizeof w, &w);
}

void sa_add_unknown(sa_program *p, const char *name, const char *file, int line, const char *reason)
{
    for (size_t i = 0; i < p->nunknowns; i++)
        if (!strcmp(p->unknowns[i].name, name) && p->unknowns[i].line == line && !strcmp(p->unknowns[i].file, file))
            return;
    sa_unknown u = {sa_strdup(p->arena, name), sa_strdup(p->arena, file), line, sa_strdup(p->arena, reason)};
    p->unknowns = sa_push(p->arena, p->unknowns, &p->nunknowns, sizeof u, &u);
}

sa_func *sa_find_func(sa_program *p, const char *name)
{
    for (size_t i = 0; i < p->nfuncs; i++)
        if (!strcmp(p->funcs[i].name, name))
            return &p->funcs[i];
    return NULL;
}

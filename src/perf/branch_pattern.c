/* branch_pattern.c — whether a conditional branch's outcome is a function
 * of loop counters alone (docs/performance-model.md, "Penalties"): its
 * compare reads only counters and constants, so the sequence of its
 * outcomes repeats with every pass of the loops around it, which a
 * global-history predictor learns (md's half-shell test over the bin
 * offsets dx, dy, dz in -2..2, 64 million executions at N = 36, and
 * the exits of those 5-iteration loops).  A counter is a value that only
 * immediates move: set from a constant (mov imm, xor r, r), stepped by a
 * constant (add/sub/inc/dec imm), copied between registers, or spilled to
 * and reloaded from a stack slot (rsp + disp, no index) that nothing but
 * such values is written to. */
#include "perf/perf.h"

#include <stdlib.h>

enum { UNKNOWN, VISITING, YES, NO };

typedef struct walk {
    const st_function *f;
    const st_dataflow *df;
    uint8_t *state; /* per instruction: whether the value it defines is a counter */
} walk;

static int counter_value(walk *w, uint32_t def);

/* Whether every definition of reg that reaches instruction `use` is a
 * counter, and one of them starts it: 0 when only the cycle being walked
 * (a step's own carried input) reaches it inside the function (a value
 * from an argument or from before the function, stepped: not known to
 * be a counter). */
static int inputs_counters(walk *w, uint32_t use, uint8_t reg)
{
    int found = 0;
    for (size_t i = 0; i < w->df->ndeps; i++) {
        const st_dep *d = &w->df->deps[i];
        if (d->use != use || d->reg != reg || w->state[d->def] == VISITING)
            continue;
        if (!counter_value(w, d->def))
            return 0;
        found = 1;
    }
    return found;
}

/* Whether every register input of `use` but the stack pointer (an
 * address, not a value) is a counter; 1 when it reads none. */
static int register_inputs_counters(walk *w, uint32_t use)
{
    for (size_t i = 0; i < w->df->ndeps; i++) {
        const st_dep *d = &w->df->deps[i];
        if (d->use == use && d->reg != ST_REG_RSP && !counter_value(w, d->def))
            return 0;
    }
    return 1;
}

/* Is memory operand k of instruction i a stack slot, rsp + disp? */
static int stack_slot(const st_insn *in, unsigned k)
{
    return in->mem[k].base == ST_REG_RSP && in->mem[k].index == ST_REG_NONE;
}

/* Whether every instruction of the function that writes the stack slot
 * rsp + disp writes a counter there: an immediate, the slot stepped by
 * one (add $1, disp(%rsp): no register input), or a counter register. */
static int counter_slot(walk *w, int64_t disp)
{
    for (uint32_t i = 0; i < w->f->ninsns; i++) {
        const st_insn *in = &w->f->insns[i];
        for (unsigned k = 0; k < in->nmem && k < ST_MAX_MEMOPS; k++)
            if (stack_slot(in, k) && in->mem[k].disp == disp && (in->mem[k].access & ST_MEM_WRITE) &&
                !register_inputs_counters(w, i))
                return 0;
    }
    return 1;
}

/* Whether every memory operand instruction i reads is a counter slot. */
static int reads_counter_slots(walk *w, uint32_t i)
{
    const st_insn *in = &w->f->insns[i];
    for (unsigned k = 0; k < in->nmem && k < ST_MAX_MEMOPS; k++)
        if ((in->mem[k].access & ST_MEM_READ) && (!stack_slot(in, k) || !counter_slot(w, in->mem[k].disp)))
            return 0;
    return 1;
}

/* Whether the value instruction `def` writes is a counter.  A cycle (the
 * step's own carried input) is passed over while it is walked: the
 * counter's start decides. */
static int counter_value(walk *w, uint32_t def)
{
    if (w->state[def] != UNKNOWN)
        return w->state[def] != NO;
    w->state[def] = VISITING;
    const st_insn *in = &w->f->insns[def];
    int yes;
    switch (in->op) {
    case ST_OP_MOV_IMM:
    case ST_OP_ZERO:
        yes = 1;
        break;
    case ST_OP_ADD_IMM:
        yes = inputs_counters(w, def, in->dst);
        break;
    case ST_OP_MOV_REG:
        yes = inputs_counters(w, def, in->src);
        break;
    case ST_OP_LOAD:
        yes = stack_slot(in, 0) && counter_slot(w, in->mem[0].disp);
        break;
    default:
        yes = 0;
        break;
    }
    w->state[def] = yes ? YES : NO;
    return yes;
}

int perf_counter_branch(const st_function *f, const st_dataflow *df, uint32_t branch)
{
    walk w = {f, df, calloc(f->ninsns ? f->ninsns : 1, 1)};
    if (!w.state)
        return 0;
    int compares = 0, yes = 1;
    for (size_t i = 0; i < df->ndeps && yes; i++) {
        const st_dep *d = &df->deps[i];
        if (d->use != branch || d->reg != ST_REG_FLAGS)
            continue;
        compares++;
        yes = reads_counter_slots(&w, d->def) && register_inputs_counters(&w, d->def);
    }
    free(w.state);
    return compares > 0 && yes;
}

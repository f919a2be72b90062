/* core_loops.c — the core model applied to the loops of a whole module,
 * with static weights (core_model.h): what `augur structure --machine`
 * prints, one row per loop. */
#include "perf/core_model.h"

#include <stdio.h>
#include <stdlib.h>

void perf_body_weights(const st_function *f, int loop, double *weight)
{
    for (uint32_t i = 0; i < f->ninsns; i++)
        weight[i] = 0;
    for (uint32_t b = 0; b < f->nblocks; b++)
        if (f->blocks[b].loop == loop)
            for (uint32_t i = f->blocks[b].first; i < f->blocks[b].first + f->blocks[b].n && i < f->ninsns; i++)
                weight[i] = 1;
}

/* Whether loop l of f has a loop nested in it. */
static int has_child(const st_function *f, uint32_t l)
{
    for (uint32_t k = 0; k < f->nloops; k++)
        if (f->loops[k].parent == (int32_t)l)
            return 1;
    return 0;
}

/* The row of loop l of function fi, with weight as scratch.  Returns 0 or -1. */
static int loop_row(const machine *m, const st_module *mod, uint32_t fi, uint32_t l, double *weight,
                    perf_loop_core *row, char *err, size_t errlen)
{
    const st_function *f = &mod->functions[fi];
    perf_body_weights(f, (int)l, weight);
    *row = (perf_loop_core){.function = fi, .loop = l, .first = UINT64_MAX, .innermost = !has_child(f, l),
                            .scope = mod->loop_scopes && mod->loop_scopes[fi] ? mod->loop_scopes[fi][l] : UINT32_MAX};
    for (uint32_t i = 0; i < f->ninsns; i++) {
        if (!(weight[i] > 0))
            continue;
        row->ninsns++;
        if (f->insns[i].addr < row->first)
            row->first = f->insns[i].addr;
        if (f->insns[i].addr + f->insns[i].len > row->end)
            row->end = f->insns[i].addr + f->insns[i].len;
    }
    perf_body b = {.f = f, .df = &mod->dataflow[fi], .loop = (int)l, .weight = weight};
    return perf_core_loop(m, &b, &row->core, err, errlen);
}

int perf_core_module(const machine *m, const st_module *mod, perf_loop_core **out, size_t *n, char *err,
                     size_t errlen)
{
    size_t total = 0, maxinsns = 1;
    for (size_t fi = 0; fi < mod->nfunctions; fi++) {
        total += mod->functions[fi].nloops;
        if (mod->functions[fi].ninsns > maxinsns)
            maxinsns = mod->functions[fi].ninsns;
    }
    *n = 0;
    *out = calloc(total ? total : 1, sizeof **out);
    double *weight = malloc(maxinsns * sizeof *weight);
    int rc = *out && weight ? 0 : -1;
    if (rc)
        snprintf(err, errlen, "out of memory timing the loops of %s", mod->path);
    for (size_t fi = 0; rc == 0 && fi < mod->nfunctions; fi++)
        for (uint32_t l = 0; rc == 0 && l < mod->functions[fi].nloops; l++)
            if ((rc = loop_row(m, mod, (uint32_t)fi, l, weight, &(*out)[*n], err, errlen)) == 0)
                (*n)++;
    free(weight);
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

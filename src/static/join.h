/* join.h — the binary joined to the static model (join.c) and, with a
 * machine, the cycles of its code (cycles.c): docs/static.md, "The binary"
 * and "Cycles". */
#ifndef AUGUR_STATIC_JOIN_H
#define AUGUR_STATIC_JOIN_H

#include "machine/machine.h"
#include "perf/core_model.h"
#include "static/model.h"
#include "structure/structure.h"

/* The machine and the core model of every loop of the module (NULL: no
 * cycles). */
typedef struct sa_machine {
    const machine *m;
    const perf_loop_core *cores; /* perf_core_module's rows */
    size_t ncores;
} sa_machine;

/* Join every function of module m (PROGRAM analysed by st_analyse) whose
 * symbol is a source function of p: p->bloops, and each function's bins
 * (docs/static.md, "The binary").  mc: with a machine, the cycles too. */
void sa_join_binary(sa_program *p, const st_module *m, const sa_machine *mc);

/* ---- cycles.c ---- */
/* Cycles per iteration of binary loop bl of function bfi: the core model's
 * (core_model.h, static weights: inner loops timed on their own), and its
 * streams' bytes over one core's memory bandwidth, into out. */
void sa_loop_cycles(const sa_machine *mc, const st_module *m, size_t bfi, uint32_t bl, sa_bloop *out);
/* Cycles of one execution of straight-line block b of f: its
 * instructions over the core's issue width, in units of 1/SA_CYCLE_DEN. */
int64_t sa_block_cycles(const sa_machine *mc, const st_function *f, uint32_t b);

#endif

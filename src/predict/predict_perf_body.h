/* predict_perf_body.h — loop bodies for the core model at predicted
 * parameters (predict_perf_body.c): the block count models of a
 * prediction, and the per-instruction weights of one loop scope. */
#ifndef AUGUR_PREDICT_PERF_BODY_H
#define AUGUR_PREDICT_PERF_BODY_H

#include "predict/predict.h"
#include "structure/structure.h"

typedef struct predict_blocks predict_blocks;

/* The block models of module `module` (a path, as the model rows name it)
 * evaluated at p's parameters, searchable by address.  -1 when memory
 * runs out.  Free with predict_blocks_free. */
int predict_blocks_load(const prediction *p, const char *module, predict_blocks **out);
void predict_blocks_free(predict_blocks *bl);

/* The executions of the instruction at addr: its block's (0 when none
 * holds it: a series that is 0 in every run is not stored). */
double predict_blocks_executions(const predict_blocks *bl, uint64_t addr);

/* The measured executions of a run's instructions of module `module_id`
 * (ins as db_run_instructions returns them), as predict_blocks_load's
 * blocks: one per instruction.  -1 when memory runs out. */
int predict_blocks_measured(const db_instr *ins, size_t n, int64_t module_id, predict_blocks **out);

/* weight[i] for every instruction i of f: its predicted executions per
 * execution of the header of loop scope `scope` (`headers` of them), for
 * the instructions of blocks whose innermost loop belongs to that scope
 * (loop_scopes: the module's loop_scopes[f]); 0 for all others.  -1 when
 * headers is not positive. */
int predict_body_weights(const predict_blocks *bl, const st_function *f, const uint32_t *loop_scopes, uint32_t scope,
                         double headers, double *weight);

/* What a loop's mispredictions cost beyond their count: per instruction
 * of the function, ready (perf_resolution_times of the loop's body; NULL:
 * the refill alone) and through (perf_saturated_paths; NULL: none); the
 * loop's core model (NULL: every misprediction at its full cost) and
 * iterations. */
typedef struct predict_branch_timing {
    const double *ready;
    const uint8_t *through;
    const perf_core *core;
    double iterations;
} predict_branch_timing;

/* Predicted branch mispredictions of the conditional branches that end
 * the blocks of loop scope `scope` (not its inner loops'; loop_scopes as
 * for predict_body_weights): perf_branch_mispredicts of each, from its
 * predicted executions and taken count, a branch that closes a back edge
 * of any loop of f, or that decides on loop counters alone
 * (perf_counter_branch on df, f's dataflow), predictable.  *cycles: their
 * cost on m, each branch's full cost perf_mispredict_cycles(m, ready[its
 * index]), of which, when t->core is given and the branch's compare is
 * not through a saturated port, the part perf_mispredict_exposed leaves
 * at the loop's rate (the mispredictions over t->iterations). */
double predict_loop_mispredicts(const predict_blocks *bl, const st_function *f, const st_dataflow *df,
                                const uint32_t *loop_scopes, uint32_t scope, const machine *m,
                                const predict_branch_timing *t, double *cycles);

/* 1 when loop `loop` of f chases pointers: a value loaded in one
 * iteration forms an address in the next (a loop-carried dependence from a
 * load to an address register), so its misses cannot overlap.  A load
 * whose address stays the same over the loop's iterations (stride 0: the
 * reload of a register spilled to the stack, which gfortran does for
 * array strides and bases) is not a link of a chase: it hits, and its
 * value does not depend on the last miss. */
int predict_loop_chases(const st_function *f, const st_dataflow *df, int loop);

#endif

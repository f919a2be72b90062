/* memspy_loops.h — loops of memspy's code locations from the structure
 * analysis of their modules (memspy_loops.c), for memspy_report_build. */
#ifndef AUGUR_MEMSPY_LOOPS_H
#define AUGUR_MEMSPY_LOOPS_H

#include <stdio.h>

#include "memspy_report/memspy_report.h"

struct st_module;

typedef struct mr_loops {
    const memspy_raw *raw;
    struct st_module **mods; /* per raw module; NULL: not analysed */
} mr_loops;

/* Analyse the modules of r that carry at least 1% of its references.  A
 * module that cannot be analysed is skipped with a line on `warn` (may be
 * NULL): its code then has functions and lines but no loops.  -1 only
 * when memory runs out. */
int mr_loops_load(mr_loops *l, const memspy_raw *r, FILE *warn);

/* An mr_loops_fn: ctx is an mr_loops. */
size_t mr_loops_names(void *ctx, size_t code, const char **names, size_t max);

void mr_loops_free(mr_loops *l);

#endif

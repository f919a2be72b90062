/* bench_alloc.h — the rd_allocator over malloc that the native benchmarks
 * (rd_bench.c, memsim_bench.c) give the freestanding simulators.  Define
 * BENCH_NAME (the program's name, for messages) before including it. */
#ifndef AUGUR_BENCH_ALLOC_H
#define AUGUR_BENCH_ALLOC_H

#include <stdio.h>
#include <stdlib.h>

#include "rd/rd.h"

/* rd_allocator.alloc over malloc; exits on exhaustion, never NULL. */
static void *bench_alloc(void *ctx, size_t bytes)
{
    (void)ctx;
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, BENCH_NAME ": out of memory\n");
        exit(1);
    }
    return p;
}

/* rd_allocator.release over free. */
static void bench_release(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

static const rd_allocator alloc = {bench_alloc, bench_release, NULL};

#endif

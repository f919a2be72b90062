/* mem_deps.c — dependences a loop carries through memory: a value one
 * iteration stores and the next loads back (a(i) = f(a(i-1)) kept in
 * memory, as compilers leave it when they cannot prove the array alone;
 * docs/performance-model.md, "Recurrence bound", "Through memory").  The
 * recurrence bound (recurrence.c) closes its cycles through these as
 * through carried register dependences, at the store-to-load forwarding
 * latency.  Also the values an inner loop stores and its parent loop's
 * next iteration loads back at the same inner iteration ("Carried by the
 * parent loop"). */
#include "perf/core_parts.h"

#include <stdlib.h>
#include <string.h>

/* Is a an affine address of loop `loop`'s iterations: complete, over
 * registers only, with `loop` its innermost loop? */
static int affine_in(const st_addr *a, int loop)
{
    if (!a || !a->complete || a->nloops == 0 || a->loops[0] != loop)
        return 0;
    for (uint8_t t = 0; t < a->nterms; t++)
        if (a->terms[t].kind != ST_TERM_REG)
            return 0;
    return 1;
}

/* Do a and b have the same register terms (as multisets)? */
static int same_terms(const st_addr *a, const st_addr *b)
{
    if (a->nterms != b->nterms)
        return 0;
    uint8_t used = 0;
    for (uint8_t i = 0; i < a->nterms; i++) {
        int found = 0;
        for (uint8_t j = 0; j < b->nterms && !found; j++)
            if (!(used & (1u << j)) && a->terms[i].reg == b->terms[j].reg && a->terms[i].coef == b->terms[j].coef) {
                used |= (uint8_t)(1u << j);
                found = 1;
            }
        if (!found)
            return 0;
    }
    return 1;
}

/* Does every write of register r in the blocks of loop L add to it (r +=
 * an immediate, or r += a register L does not write)?  Then r advances by
 * a step fixed for the loop's run, known or not. */
static int runtime_step(const st_function *f, const st_loop *L, unsigned r)
{
    st_regset written = 0;
    for (uint32_t k = 0; k < L->nblocks; k++)
        for (uint32_t i = f->blocks[L->blocks[k]].first; i < f->blocks[L->blocks[k]].first + f->blocks[L->blocks[k]].n;
             i++)
            written |= f->insns[i].writes;
    int writes = 0;
    for (uint32_t k = 0; k < L->nblocks; k++) {
        const st_block *blk = &f->blocks[L->blocks[k]];
        for (uint32_t i = blk->first; i < blk->first + blk->n; i++) {
            const st_insn *in = &f->insns[i];
            if (!(in->writes & ((st_regset)1 << r)))
                continue;
            writes++;
            int adds = in->dst == r && (in->op == ST_OP_ADD_IMM ||
                                        (in->op == ST_OP_ADD_REG && in->src < 64 &&
                                         !(written & ((st_regset)1 << in->src))));
            if (!adds)
                return 0;
        }
    }
    return writes > 0;
}

/* Does addrs entry a belong to an operand of a body instruction that
 * accesses memory as `access` (ST_MEM_READ or ST_MEM_WRITE)?  Its width
 * to *size. */
static int body_access(const perf_body *b, const st_addr *a, unsigned access, unsigned *size)
{
    if (a->insn >= b->f->ninsns || b->weight[a->insn] <= 0 || a->memop >= ST_MAX_MEMOPS ||
        a->memop >= b->f->insns[a->insn].nmem)
        return 0;
    const st_memop *mo = &b->f->insns[a->insn].mem[a->memop];
    *size = mo->size;
    return (mo->access & access) && affine_in(a, b->loop);
}

/* Does a store of b's body write the address of l (same terms and
 * constant) in every iteration? */
static int stored_too(const perf_body *b, const st_addr *l)
{
    unsigned size;
    for (size_t k = 0; k < b->df->naddrs; k++) {
        const st_addr *a = &b->df->addrs[k];
        if (body_access(b, a, ST_MEM_WRITE, &size) && a->constant == l->constant && same_terms(a, l))
            return 1;
    }
    return 0;
}

/* Does the load at l read, one iteration later, what the store at s
 * wrote?  Both affine in b's loop over the same registers, so their
 * addresses differ by delta = s - l bytes in every iteration and move by
 * the same stride: the load reads the store's bytes one iteration on when
 * the stride is delta (with stride 0, one address, when the load comes
 * first in the body: a variable kept in memory, as at -O0).  A stride dataflow.c could not fix (a register
 * step known only at run time, as a loop whose direction is an argument)
 * is taken to be delta when delta is the store's width and the body does
 * not store to the load's address too: the sweep a(i) = f(a(i -/+ 1)),
 * the common case (a loaded element that the iteration also stores, as
 * the butterflies of an FFT update data[k] and data[k+1], would be
 * written twice in a row were the stride delta).  A strided sweep that
 * reads its neighbour across the stride is wrongly given the recurrence. */
static int carried_pair(const perf_body *b, const st_addr *s, unsigned ssize, const st_addr *l, unsigned lsize)
{
    if (!same_terms(s, l) || lsize > ssize)
        return 0;
    int64_t delta = s->constant - l->constant, stride = s->stride[0];
    if (stride == 0) /* one address every iteration: read before it is written, it is last iteration's */
        return delta == 0 && l->insn <= s->insn;
    if (stride != ST_STRIDE_UNKNOWN)
        return stride == delta;
    if ((delta != (int64_t)ssize && delta != -(int64_t)ssize) || stored_too(b, l))
        return 0;
    const st_loop *L = &b->f->loops[b->loop];
    for (uint8_t t = 0; t < s->nterms; t++)
        if (!runtime_step(b->f, L, s->terms[t].reg))
            return 0;
    return 1;
}

/* Append (store, load) to *out of *n, grown by doubling *cap.  Returns 0
 * or -1 (memory; *out freed and emptied). */
static int push_dep(perf_mem_dep **out, size_t *n, size_t *cap, uint32_t store, uint32_t load)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 4;
        perf_mem_dep *grown = realloc(*out, *cap * sizeof *grown);
        if (!grown) {
            free(*out);
            *out = NULL;
            *n = 0;
            return -1;
        }
        *out = grown;
    }
    (*out)[(*n)++] = (perf_mem_dep){.store = store, .load = load};
    return 0;
}

/* Does the load at l read, one iteration of the parent loop later, what
 * the store at s wrote at the same iteration of b's loop?  Both at one
 * address (same registers and constant) that moves with b's loop and
 * stays put over its parent's iterations (stride 0 there: the inner loop
 * starts again at the same place), the load first in the body (it reads
 * the element before this iteration overwrites it): a sweep's face value
 * per angle, psi(m) read at cell i and written for cell i + 1. */
static int outer_pair(const perf_body *b, const st_addr *s, unsigned ssize, const st_addr *l, unsigned lsize)
{
    int parent = b->f->loops[b->loop].parent;
    return parent >= 0 && s->nloops >= 2 && s->loops[1] == parent && s->stride[1] == 0 && s->stride[0] != 0 &&
           s->stride[0] != ST_STRIDE_UNKNOWN && l->nloops >= 2 && l->loops[1] == parent && l->stride[1] == 0 &&
           s->constant == l->constant && same_terms(s, l) && lsize <= ssize && l->insn <= s->insn;
}

/* The pairs of a store and a load of b's body that `pair` accepts, as
 * perf_memory_deps returns them. */
static int pairs_of(const perf_body *b,
                    int (*pair)(const perf_body *, const st_addr *, unsigned, const st_addr *, unsigned),
                    perf_mem_dep **out, size_t *n)
{
    const st_dataflow *df = b->df;
    size_t cap = 0;
    *n = 0;
    *out = NULL;
    for (size_t si = 0; si < df->naddrs; si++) {
        unsigned ssize, lsize;
        if (!body_access(b, &df->addrs[si], ST_MEM_WRITE, &ssize))
            continue;
        for (size_t li = 0; li < df->naddrs; li++)
            if (body_access(b, &df->addrs[li], ST_MEM_READ, &lsize) &&
                pair(b, &df->addrs[si], ssize, &df->addrs[li], lsize) &&
                push_dep(out, n, &cap, df->addrs[si].insn, df->addrs[li].insn) != 0)
                return -1;
    }
    return 0;
}

int perf_memory_deps(const perf_body *b, perf_mem_dep **out, size_t *n)
{
    return pairs_of(b, carried_pair, out, n);
}

int perf_outer_memory_deps(const perf_body *b, perf_mem_dep **out, size_t *n)
{
    return pairs_of(b, outer_pair, out, n);
}

/* cfg.c — splits a decoded function into basic blocks and joins them with
 * edges: fall-through, taken and jump edges of direct branches, the targets
 * of jump tables recovered from the code that indexes them, and targets of
 * other indirect jumps that profiles observed.
 *
 * Jump tables are recognised in the two shapes compilers emit for x86-64:
 *   absolute:  jmp [T + idx*8]   or   mov r, [T + idx*8]; jmp r
 *   relative:  lea b, [rip+T]; movsxd r, [b + idx*4]; add r, b; jmp r
 * The table's length is not read from the bounds check: entries are taken
 * while they land on an instruction of the function (at most
 * MAX_TABLE_ENTRIES), which recovers every case label and may rarely add
 * an edge to a neighbouring table's target inside the same function. */
#include "structure/structure.h"
#include "util/array.h"

#include <Zydis/Mnemonic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TABLE_ENTRIES 4096

/* Targets found for the indirect jumps of a function, as (insn, target
 * insn, kind) triples. */
typedef struct ind_edge {
    uint32_t jump, target;
    uint8_t kind; /* ST_EDGE_TABLE or ST_EDGE_PROFILE */
} ind_edge;

typedef struct ind_list {
    size_t n, cap;
    ind_edge *v;
} ind_list;

static int ind_add(ind_list *l, uint32_t jump, uint32_t target, uint8_t kind)
{
    ind_edge *v = array_grow(l->v, l->n, &l->cap, sizeof *v);
    if (!v)
        return -1;
    l->v = v;
    l->v[l->n++] = (ind_edge){jump, target, kind};
    return 0;
}

/* Index of the instruction starting at addr, or -1. */
static int64_t insn_at(const st_function *f, uint64_t addr)
{
    uint32_t i = st_insn_lower_bound(f, addr);
    return i < f->ninsns && f->insns[i].addr == addr ? (int64_t)i : -1;
}

/* The latest instruction before `pos`, not before `floor`, that writes
 * `reg`; -1 if none. */
static int64_t last_def(const st_function *f, uint32_t floor, uint32_t pos, uint8_t reg)
{
    for (int64_t i = (int64_t)pos - 1; i >= (int64_t)floor; i--)
        if (f->insns[i].writes & (1ull << reg))
            return i;
    return -1;
}

static int is_rip_constant(const st_insn *in)
{
    return in->op == ST_OP_LEA && in->mem[0].base == ST_REG_NONE && in->mem[0].index == ST_REG_NONE;
}

/* Read table entries at `table` (8-byte absolute, or 4-byte relative to
 * table when `relative`) while they land on instructions of f. */
static int read_table(const st_function *f, const st_image *img, uint32_t jump, uint64_t table, int relative,
                      ind_list *out)
{
    for (int k = 0; k < MAX_TABLE_ENTRIES; k++) {
        uint64_t target;
        if (relative) {
            int32_t e;
            if (st_image_read(img, table + 4u * (uint64_t)k, &e, 4) != 0)
                break;
            target = table + (uint64_t)(int64_t)e;
        } else if (st_image_read(img, table + 8u * (uint64_t)k, &target, 8) != 0)
            break;
        int64_t t = insn_at(f, target);
        if (t < 0)
            break;
        if (ind_add(out, jump, (uint32_t)t, ST_EDGE_TABLE) != 0)
            return -1;
    }
    return 0;
}

/* The single general-purpose register an indirect `jmp reg` reads, or
 * ST_REG_NONE. */
static uint8_t jump_register(const st_insn *in)
{
    if (in->nmem > 0)
        return ST_REG_NONE;
    st_regset gprs = in->reads & 0xffffull & ~(1ull << ST_REG_RSP);
    if (gprs == 0 || (gprs & (gprs - 1)) != 0)
        return ST_REG_NONE;
    return (uint8_t)__builtin_ctzll(gprs);
}

/* How far back, in instructions, the definitions feeding a table jump are
 * looked for.  The search runs straight back across block boundaries: the
 * table's base is often loaded once before the loop holding the switch.
 * A wrong guess is caught by the entries, which must land on instructions. */
#define TABLE_LOOKBACK 64

/* The instruction that defines reg before `pos`, looking through sign
 * extensions of it (cdqe, movsxd r, r32), which do not change the value
 * the table holds. */
static int64_t def_through_extension(const st_function *f, uint32_t floor, uint32_t pos, uint8_t reg)
{
    int64_t d = last_def(f, floor, pos, reg);
    while (d >= 0 && (f->insns[d].mnemonic == ZYDIS_MNEMONIC_CDQE ||
                      (f->insns[d].op == ST_OP_MOV_REG && f->insns[d].dst == reg && f->insns[d].src == reg)))
        d = last_def(f, floor, (uint32_t)d, reg);
    return d;
}

/* The table a relative-table load reads: one of its address registers
 * holds a RIP-relative constant (lea b, [rip+T]).  0 when none does. */
static uint64_t loaded_table(const st_function *f, uint32_t floor, uint32_t load)
{
    const st_memop *m = &f->insns[load].mem[0];
    uint8_t regs[2] = {m->base, m->index};
    for (int k = 0; k < 2; k++) {
        int64_t d = regs[k] == ST_REG_NONE ? -1 : last_def(f, floor, load, regs[k]);
        if (d >= 0 && is_rip_constant(&f->insns[d]))
            return (uint64_t)f->insns[d].mem[0].disp;
    }
    return 0;
}

/* How far back, in instructions, the definitions feeding a table jump are
 * looked for.  The search runs straight back across block boundaries: the
 * table's base is often loaded once before the loop holding the switch.
 * A wrong guess is caught by the entries, which must land on instructions. */
#define TABLE_LOOKBACK 64

/* Recognise the jump table of indirect jump insns[j] and add its targets:
 * absolute entries (jmp [T + idx*8], or loaded into a register first), or
 * 4-byte entries relative to T added to T (lea b, [rip+T]; load r from the
 * table; add r, b; jmp r), as GCC and Clang emit them at every level. */
static int recover_table(const st_function *f, const st_image *img, uint32_t j, ind_list *out)
{
    uint32_t floor = j > TABLE_LOOKBACK ? j - TABLE_LOOKBACK : 0;
    const st_insn *jmp = &f->insns[j];
    if (jmp->nmem == 1 && jmp->mem[0].base == ST_REG_NONE && jmp->mem[0].index != ST_REG_NONE &&
        jmp->mem[0].scale == 8)
        return read_table(f, img, j, (uint64_t)jmp->mem[0].disp, 0, out);
    uint8_t r = jump_register(jmp);
    int64_t d = r == ST_REG_NONE ? -1 : last_def(f, floor, j, r);
    if (d < 0)
        return 0;
    const st_insn *def = &f->insns[d];
    if (def->op == ST_OP_LOAD && def->mem[0].base == ST_REG_NONE && def->mem[0].scale == 8)
        return read_table(f, img, j, (uint64_t)def->mem[0].disp, 0, out);
    if (def->op != ST_OP_ADD_REG)
        return 0;
    /* add r, b: one operand was loaded from the table, the other is lea T */
    int64_t x = def_through_extension(f, floor, (uint32_t)d, r), y = def_through_extension(f, floor, (uint32_t)d, def->src);
    if (x < 0 || y < 0)
        return 0;
    int64_t load = f->insns[x].op == ST_OP_LOAD ? x : y, base = load == x ? y : x;
    if (f->insns[load].op != ST_OP_LOAD || !is_rip_constant(&f->insns[base]) ||
        loaded_table(f, floor, (uint32_t)load) == 0)
        return 0;
    return read_table(f, img, j, (uint64_t)f->insns[base].mem[0].disp, 1, out);
}

/* `jmp [constant address]`: a jump through a GOT or PLT slot to another
 * function, not a switch within this one. */
static int calls_through_constant(const st_insn *in)
{
    return in->nmem == 1 && in->mem[0].base == ST_REG_NONE && in->mem[0].index == ST_REG_NONE;
}

/* Targets of f's indirect jumps: jump tables, then profile targets. */
static int indirect_targets(st_function *f, const st_image *img, const st_jump_target *extra, size_t nextra,
                            ind_list *out)
{
    for (uint32_t i = 0; i < f->ninsns; i++) {
        const st_insn *in = &f->insns[i];
        if (in->flow == ST_FLOW_IJUMP) {
            size_t before = out->n;
            if (img && recover_table(f, img, i, out) != 0)
                return -1;
            if (out->n == before && !calls_through_constant(in))
                f->nunresolved++;
        }
    }
    for (size_t k = 0; k < nextra; k++) {
        int64_t j = insn_at(f, extra[k].jump), t = insn_at(f, extra[k].target);
        if (j >= 0 && t >= 0 && f->insns[j].flow == ST_FLOW_IJUMP &&
            ind_add(out, (uint32_t)j, (uint32_t)t, ST_EDGE_PROFILE) != 0)
            return -1;
    }
    return 0;
}

static int ends_block(const st_insn *in)
{
    return in->flow == ST_FLOW_JUMP || in->flow == ST_FLOW_CJUMP || in->flow == ST_FLOW_IJUMP ||
           in->flow == ST_FLOW_RET || in->flow == ST_FLOW_STOP;
}

/* Mark the first instruction of every block. */
static void mark_leaders(const st_function *f, const ind_list *ind, uint8_t *leader)
{
    leader[0] = 1;
    for (uint32_t i = 0; i < f->ninsns; i++) {
        const st_insn *in = &f->insns[i];
        if (in->flow == ST_FLOW_JUMP || in->flow == ST_FLOW_CJUMP) {
            int64_t t = insn_at(f, in->target);
            if (t >= 0)
                leader[t] = 1;
        }
        if (ends_block(in) && i + 1 < f->ninsns)
            leader[i + 1] = 1;
    }
    for (size_t k = 0; k < ind->n; k++)
        leader[ind->v[k].target] = 1;
}

static int add_edge(st_function *f, size_t *cap, uint32_t from, uint32_t to, uint8_t kind)
{
    for (uint32_t e = f->nedges; e-- > 0 && f->edges[e].from == from;)
        if (f->edges[e].to == to)
            return 0; /* e.g. a jcc to the next instruction, or a table's repeated target */
    st_edge *v = array_grow(f->edges, f->nedges, cap, sizeof *v);
    if (!v)
        return -1;
    f->edges = v;
    f->edges[f->nedges++] = (st_edge){from, to, kind};
    return 0;
}

/* Out-edges of block b, whose last instruction is `last`. */
static int block_edges(st_function *f, size_t *cap, uint32_t b, uint32_t last, const uint32_t *block_of,
                       const ind_list *ind)
{
    const st_insn *in = &f->insns[last];
    uint32_t next = b + 1 < f->nblocks ? b + 1 : UINT32_MAX;
    int64_t t = (in->flow == ST_FLOW_JUMP || in->flow == ST_FLOW_CJUMP) ? insn_at(f, in->target) : -1;
    int rc = 0;
    if (t >= 0)
        rc = add_edge(f, cap, b, block_of[t], in->flow == ST_FLOW_JUMP ? ST_EDGE_JUMP : ST_EDGE_TAKEN);
    if (in->flow == ST_FLOW_IJUMP)
        for (size_t k = 0; k < ind->n && rc == 0; k++)
            if (ind->v[k].jump == last)
                rc = add_edge(f, cap, b, block_of[ind->v[k].target], ind->v[k].kind);
    int falls = !ends_block(in) || in->flow == ST_FLOW_CJUMP;
    if (rc == 0 && falls && next != UINT32_MAX)
        rc = add_edge(f, cap, b, next,
                      in->flow == ST_FLOW_CALL || in->flow == ST_FLOW_ICALL ? ST_EDGE_CALLRET : ST_EDGE_FALL);
    return rc;
}

/* Build blocks from the leader marks, then their edges. */
static int build_blocks(st_function *f, const uint8_t *leader, uint32_t *block_of, const ind_list *ind)
{
    uint32_t nb = 0;
    for (uint32_t i = 0; i < f->ninsns; i++)
        nb += leader[i];
    f->blocks = calloc(nb, sizeof *f->blocks);
    if (!f->blocks)
        return -1;
    for (uint32_t i = 0; i < f->ninsns; i++) {
        if (leader[i])
            f->blocks[f->nblocks++] = (st_block){.first = i, .idom = UINT32_MAX, .loop = -1};
        f->blocks[f->nblocks - 1].n++;
        block_of[i] = f->nblocks - 1;
    }
    size_t cap = 0;
    for (uint32_t b = 0; b < f->nblocks; b++)
        if (block_edges(f, &cap, b, f->blocks[b].first + f->blocks[b].n - 1, block_of, ind) != 0)
            return -1;
    return 0;
}

int st_build_cfg(st_function *f, const st_image *img, const st_jump_target *extra, size_t nextra, char *err,
                 size_t errlen)
{
    if (f->ninsns == 0) {
        snprintf(err, errlen, "%s: no instructions", f->name);
        return -1;
    }
    ind_list ind = {0};
    uint8_t *leader = calloc(f->ninsns, 1);
    uint32_t *block_of = malloc(f->ninsns * sizeof *block_of);
    int rc = leader && block_of ? indirect_targets(f, img, extra, nextra, &ind) : -1;
    if (rc == 0) {
        mark_leaders(f, &ind, leader);
        rc = build_blocks(f, leader, block_of, &ind);
    }
    free(ind.v);
    free(leader);
    free(block_of);
    if (rc != 0)
        snprintf(err, errlen, "%s: out of memory while building its control-flow graph", f->name);
    return rc;
}

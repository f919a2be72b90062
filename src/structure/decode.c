/* decode.c — one x86-64 instruction's bytes -> an st_insn record: length,
 * class (from iclass.c), registers read and written, memory operands,
 * control flow and the effect on a general-purpose destination that the
 * address walk of dataflow.c follows.  Zydis 4 does the decoding; this
 * file folds its operands into the generic form of structure.h.
 *
 * It runs over whole libraries (tens of millions of instructions), so it
 * allocates nothing and keeps no mutable state: the decoder is constant.
 */
#include "structure/iclass.h"

/* The decoder: 64-bit code, with the modes Zydis 4.0 enables by default
 * spelled out so that a library upgrade cannot change them silently.
 * Set explicitly rather than by ZydisDecoderInit to keep it const. */
static const ZydisDecoder decoder = {
    .machine_mode = ZYDIS_MACHINE_MODE_LONG_64,
    .stack_width = ZYDIS_STACK_WIDTH_64,
    .decoder_mode = {
        [ZYDIS_DECODER_MODE_MPX] = ZYAN_TRUE,      /* bnd prefixes of old PLT stubs */
        [ZYDIS_DECODER_MODE_CET] = ZYAN_TRUE,      /* endbr64 rather than a hint nop */
        [ZYDIS_DECODER_MODE_LZCNT] = ZYAN_TRUE,    /* f3 0f bd is lzcnt, not bsr */
        [ZYDIS_DECODER_MODE_TZCNT] = ZYAN_TRUE,    /* f3 0f bc is tzcnt, not bsf */
        [ZYDIS_DECODER_MODE_CLDEMOTE] = ZYAN_TRUE,
    },
};

/* ---- registers ------------------------------------------------------------ */

/* The st_reg of a Zydis register, all its sizes folded into one; MMX
 * registers alias the x87 stack and fold into ST_REG_X87.  ST_REG_NONE for
 * registers structure.h does not track (rip, segments, control). */
static uint8_t fold_reg(ZydisRegister r)
{
    switch (r) {
    case ZYDIS_REGISTER_AL ... ZYDIS_REGISTER_BL:
        return (uint8_t)(ST_REG_RAX + (r - ZYDIS_REGISTER_AL));
    case ZYDIS_REGISTER_AH ... ZYDIS_REGISTER_BH:
        return (uint8_t)(ST_REG_RAX + (r - ZYDIS_REGISTER_AH));
    case ZYDIS_REGISTER_SPL ... ZYDIS_REGISTER_R15B:
        return (uint8_t)(ST_REG_RSP + (r - ZYDIS_REGISTER_SPL));
    case ZYDIS_REGISTER_AX ... ZYDIS_REGISTER_R15W:
        return (uint8_t)(ST_REG_RAX + (r - ZYDIS_REGISTER_AX));
    case ZYDIS_REGISTER_EAX ... ZYDIS_REGISTER_R15D:
        return (uint8_t)(ST_REG_RAX + (r - ZYDIS_REGISTER_EAX));
    case ZYDIS_REGISTER_RAX ... ZYDIS_REGISTER_R15:
        return (uint8_t)(ST_REG_RAX + (r - ZYDIS_REGISTER_RAX));
    case ZYDIS_REGISTER_ST0 ... ZYDIS_REGISTER_X87TAG:
    case ZYDIS_REGISTER_MM0 ... ZYDIS_REGISTER_MM7:
        return ST_REG_X87;
    case ZYDIS_REGISTER_XMM0 ... ZYDIS_REGISTER_XMM31:
        return (uint8_t)(ST_REG_VEC0 + (r - ZYDIS_REGISTER_XMM0));
    case ZYDIS_REGISTER_YMM0 ... ZYDIS_REGISTER_YMM31:
        return (uint8_t)(ST_REG_VEC0 + (r - ZYDIS_REGISTER_YMM0));
    case ZYDIS_REGISTER_ZMM0 ... ZYDIS_REGISTER_ZMM31:
        return (uint8_t)(ST_REG_VEC0 + (r - ZYDIS_REGISTER_ZMM0));
    case ZYDIS_REGISTER_FLAGS ... ZYDIS_REGISTER_RFLAGS:
        return ST_REG_FLAGS;
    case ZYDIS_REGISTER_K0 ... ZYDIS_REGISTER_K7:
        return (uint8_t)(ST_REG_MASK0 + (r - ZYDIS_REGISTER_K0));
    default:
        return ST_REG_NONE;
    }
}

/* 1 for an 8- or 16-bit general-purpose register: writing one merges into
 * the rest of the 64-bit register, so the write also reads it. */
static int is_partial_gpr(ZydisRegister r)
{
    return r >= ZYDIS_REGISTER_AL && r <= ZYDIS_REGISTER_R15W;
}

/* 1 for a 32- or 64-bit general-purpose register: the destinations enum
 * st_op describes (32-bit writes zero-extend, so they replace the value). */
static int is_full_gpr(ZydisRegister r)
{
    return r >= ZYDIS_REGISTER_EAX && r <= ZYDIS_REGISTER_R15;
}

/* 1 for any general-purpose register. */
static int is_gpr(ZydisRegister r)
{
    return r >= ZYDIS_REGISTER_AL && r <= ZYDIS_REGISTER_R15;
}

/* 1 for the EVEX write-mask operand k0, which means "no mask" and reads
 * nothing. */
static int is_no_mask(const ZydisDecodedOperand *o)
{
    return o->encoding == ZYDIS_OPERAND_ENCODING_MASK && o->reg.value == ZYDIS_REGISTER_K0;
}

/* 1 when zi is a dependency-breaking idiom (xor eax, eax; vpxor x1, x2, x2;
 * pcmpeqd x, x): a mnemonic flagged ICLASS_DEP_BREAKING whose visible
 * register sources are all one register, with no memory operand and no
 * write mask (a merge keeps old lanes, a mask register is itself read).
 * 8- and 16-bit general-purpose forms merge into the register: not idioms. */
static int is_dep_breaking(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops, unsigned flags)
{
    if (!(flags & ICLASS_DEP_BREAKING))
        return 0;
    if (zi->avx.mask.reg != ZYDIS_REGISTER_NONE && zi->avx.mask.reg != ZYDIS_REGISTER_K0)
        return 0;
    ZydisRegister src = ZYDIS_REGISTER_NONE;
    unsigned nsrc = 0;
    for (unsigned i = 0; i < zi->operand_count; i++) {
        const ZydisDecodedOperand *o = &ops[i];
        if (o->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN)
            continue;
        if (o->type == ZYDIS_OPERAND_TYPE_MEMORY)
            return 0;
        if (o->type != ZYDIS_OPERAND_TYPE_REGISTER || is_no_mask(o) || !(o->actions & ZYDIS_OPERAND_ACTION_MASK_READ))
            continue;
        if (nsrc++ && o->reg.value != src)
            return 0;
        src = o->reg.value;
    }
    return nsrc >= 2 && !is_partial_gpr(src);
}

/* Add the registers zi reads and writes to out->reads and out->writes:
 * register operands by their actions, a conditional write also reading
 * (the old value may stay), a partial GPR write also reading (merge), and
 * the base and index of every memory operand, lea's included, as reads.
 * In a dependency-breaking idiom the visible sources are not reads. */
static void collect_registers(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops, int idiom,
                              st_insn *out)
{
    for (unsigned i = 0; i < zi->operand_count; i++) {
        const ZydisDecodedOperand *o = &ops[i];
        if (o->type == ZYDIS_OPERAND_TYPE_MEMORY) {
            uint8_t b = fold_reg(o->mem.base), x = fold_reg(o->mem.index);
            if (b != ST_REG_NONE)
                out->reads |= (st_regset)1 << b;
            if (x != ST_REG_NONE)
                out->reads |= (st_regset)1 << x;
            continue;
        }
        if (o->type != ZYDIS_OPERAND_TYPE_REGISTER || is_no_mask(o))
            continue;
        uint8_t r = fold_reg(o->reg.value);
        if (r == ST_REG_NONE)
            continue;
        ZydisOperandActions a = o->actions;
        int reads = (a & ZYDIS_OPERAND_ACTION_MASK_READ) || (a & ZYDIS_OPERAND_ACTION_CONDWRITE)
                 || ((a & ZYDIS_OPERAND_ACTION_WRITE) && is_partial_gpr(o->reg.value));
        if (idiom && o->visibility != ZYDIS_OPERAND_VISIBILITY_HIDDEN)
            reads = 0;
        if (reads)
            out->reads |= (st_regset)1 << r;
        if (a & ZYDIS_OPERAND_ACTION_MASK_WRITE)
            out->writes |= (st_regset)1 << r;
    }
}

/* ---- memory operands ------------------------------------------------------ */

/* Lanes of a gather or scatter: the element count of its data register,
 * the first vector register operand. */
static unsigned vsib_lanes(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops)
{
    for (unsigned i = 0; i < zi->operand_count; i++)
        if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER && ops[i].reg.value >= ZYDIS_REGISTER_XMM0
            && ops[i].reg.value <= ZYDIS_REGISTER_ZMM31)
            return ops[i].element_count;
    return 1;
}

/* The st_memop of Zydis memory operand o of zi at addr.  access is 0 for
 * lea's address and for hints (prefetch, clflush), and size is 0 with it.
 * RIP-relative addresses become absolute.  A gather's size counts all its
 * lanes.  A hidden stack store (push, call, enter) writes below rsp, so
 * its displacement is -size from the rsp the instruction starts with. */
static st_memop memop_of(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops,
                         const ZydisDecodedOperand *o, uint64_t addr, unsigned flags)
{
    st_memop m = {0};
    m.base = fold_reg(o->mem.base);
    m.index = fold_reg(o->mem.index);
    m.scale = m.index == ST_REG_NONE ? 0 : o->mem.scale;
    m.disp = o->mem.disp.value;
    if (o->mem.base == ZYDIS_REGISTER_RIP || o->mem.base == ZYDIS_REGISTER_EIP) {
        uint64_t a = addr + zi->length + (uint64_t)o->mem.disp.value;
        m.disp = (int64_t)(o->mem.base == ZYDIS_REGISTER_EIP ? (uint32_t)a : a);
    }
    m.is_vsib = o->mem.type == ZYDIS_MEMOP_TYPE_VSIB;
    if (o->mem.type != ZYDIS_MEMOP_TYPE_AGEN && !(flags & ICLASS_HINT)) {
        if (o->actions & ZYDIS_OPERAND_ACTION_MASK_READ)
            m.access |= ST_MEM_READ;
        if (o->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
            m.access |= ST_MEM_WRITE;
    }
    if (m.access) {
        unsigned size = o->size / 8u * (m.is_vsib ? vsib_lanes(zi, ops) : 1u);
        m.size = (uint16_t)size;
        if (o->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN && m.base == ST_REG_RSP && (m.access & ST_MEM_WRITE))
            m.disp -= (int64_t)size;
    }
    return m;
}

/* Fill out->mem, nmem, nloads and nstores from zi's memory operands, in
 * Zydis order (visible first), at most ST_MAX_MEMOPS of them. */
static void collect_memory(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops, uint64_t addr,
                           unsigned flags, st_insn *out)
{
    for (unsigned i = 0; i < zi->operand_count && out->nmem < ST_MAX_MEMOPS; i++) {
        if (ops[i].type != ZYDIS_OPERAND_TYPE_MEMORY)
            continue;
        st_memop m = memop_of(zi, ops, &ops[i], addr, flags);
        out->nloads += (m.access & ST_MEM_READ) != 0;
        out->nstores += (m.access & ST_MEM_WRITE) != 0;
        out->mem[out->nmem++] = m;
    }
}

/* ---- effect on a general-purpose destination (enum st_op) ----------------- */

/* Set out->op, dst, src and imm when zi's first operand is a 32- or 64-bit
 * general-purpose register it writes and the operation is one enum st_op
 * names; otherwise leave ST_OP_OTHER with dst and src ST_REG_NONE. */
static void set_op(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops, int idiom, st_insn *out)
{
    const ZydisDecodedOperand *d = &ops[0], *s = &ops[1];
    if (zi->operand_count_visible < 1 || d->type != ZYDIS_OPERAND_TYPE_REGISTER || !is_full_gpr(d->reg.value)
        || !(d->actions & ZYDIS_OPERAND_ACTION_WRITE))
        return;
    unsigned nvis = zi->operand_count_visible;
    int s_gpr = nvis >= 2 && s->type == ZYDIS_OPERAND_TYPE_REGISTER && is_gpr(s->reg.value);
    int s_imm = nvis >= 2 && s->type == ZYDIS_OPERAND_TYPE_IMMEDIATE;
    int s_mem = nvis >= 2 && s->type == ZYDIS_OPERAND_TYPE_MEMORY;
    enum st_op op = ST_OP_OTHER;
    uint8_t src = ST_REG_NONE;
    int64_t imm = 0;

    switch (zi->mnemonic) {
    case ZYDIS_MNEMONIC_MOV:
    case ZYDIS_MNEMONIC_MOVSX:
    case ZYDIS_MNEMONIC_MOVZX:
    case ZYDIS_MNEMONIC_MOVSXD:
        if (s_gpr) {
            op = ST_OP_MOV_REG;
            src = fold_reg(s->reg.value);
        } else if (s_mem) {
            op = ST_OP_LOAD;
        } else if (s_imm && zi->mnemonic == ZYDIS_MNEMONIC_MOV) {
            op = ST_OP_MOV_IMM; /* a 32-bit move zero-extends its immediate */
            imm = d->size == 32 ? (int64_t)(uint32_t)s->imm.value.u : s->imm.value.s;
        }
        break;
    case ZYDIS_MNEMONIC_XOR:
        if (idiom)
            op = ST_OP_ZERO;
        break;
    case ZYDIS_MNEMONIC_ADD:
    case ZYDIS_MNEMONIC_SUB:
        if (idiom) {
            op = ST_OP_ZERO;
        } else if (s_imm) {
            op = ST_OP_ADD_IMM;
            imm = zi->mnemonic == ZYDIS_MNEMONIC_SUB ? -s->imm.value.s : s->imm.value.s;
        } else if (s_gpr) {
            op = zi->mnemonic == ZYDIS_MNEMONIC_SUB ? ST_OP_SUB_REG : ST_OP_ADD_REG;
            src = fold_reg(s->reg.value);
        }
        break;
    case ZYDIS_MNEMONIC_INC:
    case ZYDIS_MNEMONIC_DEC:
        op = ST_OP_ADD_IMM;
        imm = zi->mnemonic == ZYDIS_MNEMONIC_INC ? 1 : -1;
        break;
    case ZYDIS_MNEMONIC_SHL: /* sal decodes as shl */
        if (s_imm) {
            op = ST_OP_SHL_IMM;
            imm = (int64_t)(s->imm.value.u & (d->size == 64 ? 63u : 31u)); /* the count the CPU uses */
        }
        break;
    case ZYDIS_MNEMONIC_IMUL:
        if (nvis == 3 && s_gpr && ops[2].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
            op = ST_OP_MUL_IMM;
            src = fold_reg(s->reg.value);
            imm = ops[2].imm.value.s;
        }
        break;
    case ZYDIS_MNEMONIC_LEA:
        op = ST_OP_LEA;
        break;
    default:
        break;
    }
    if (op == ST_OP_OTHER)
        return;
    out->op = (uint8_t)op;
    out->dst = fold_reg(d->reg.value);
    out->src = src;
    out->imm = imm;
}

/* ---- control flow --------------------------------------------------------- */

/* Set out->flow and, for direct jumps and calls, out->target. */
static void set_flow(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops, uint64_t addr, st_insn *out)
{
    int direct = zi->operand_count_visible >= 1 && ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE
              && ops[0].imm.is_relative;
    switch (zi->meta.category) {
    case ZYDIS_CATEGORY_COND_BR: /* jcc, jrcxz, loop*, xbegin */
        out->flow = ST_FLOW_CJUMP;
        break;
    case ZYDIS_CATEGORY_UNCOND_BR:
        out->flow = direct ? ST_FLOW_JUMP : ST_FLOW_IJUMP;
        break;
    case ZYDIS_CATEGORY_CALL:
        out->flow = direct ? ST_FLOW_CALL : ST_FLOW_ICALL;
        break;
    case ZYDIS_CATEGORY_RET: /* ret, iret */
    case ZYDIS_CATEGORY_SYSRET:
        out->flow = ST_FLOW_RET;
        return;
    default:
        if (zi->mnemonic == ZYDIS_MNEMONIC_HLT || zi->mnemonic == ZYDIS_MNEMONIC_UD0
            || zi->mnemonic == ZYDIS_MNEMONIC_UD1 || zi->mnemonic == ZYDIS_MNEMONIC_UD2
            || zi->mnemonic == ZYDIS_MNEMONIC_INT3)
            out->flow = ST_FLOW_STOP;
        return;
    }
    if (direct)
        out->target = addr + zi->length + (uint64_t)ops[0].imm.value.s;
}

/* ---- the instruction ------------------------------------------------------ */

/* Decode one instruction at code[0..avail) as if at addr (contract in
 * structure.h): its length, or 0 with *out zeroed when the bytes are not a
 * valid 64-bit instruction or end before it does. */
size_t st_decode_one(const uint8_t *code, size_t avail, uint64_t addr, st_insn *out)
{
    static const st_insn empty; /* copied, not memset: no rep stos start-up */
    ZydisDecodedInstruction zi;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    *out = empty;
    if (!code || ZYAN_FAILED(ZydisDecoderDecodeFull(&decoder, code, avail, &zi, ops)))
        return 0;
    out->addr = addr;
    out->len = zi.length;
    out->mnemonic = (uint16_t)zi.mnemonic;
    out->dst = out->src = ST_REG_NONE;
    iclass_classify(&zi, ops, out);
    unsigned flags = iclass_flags(zi.mnemonic);
    if (!(flags & ICLASS_NOP)) { /* a nop's operands are formal */
        int idiom = is_dep_breaking(&zi, ops, flags);
        collect_registers(&zi, ops, idiom, out);
        collect_memory(&zi, ops, addr, flags, out);
        set_op(&zi, ops, idiom, out);
    }
    set_flow(&zi, ops, addr, out);
    return zi.length;
}

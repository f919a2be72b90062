/* receiver.c — the variable that receives the value a call returns: the
 * short name MemSpy gave a heap object (seed 001, section 10 item 10: "the
 * receiving variable from DWARF, else func:line").
 *
 * From the call's return address the walk follows rax, where the x86-64
 * ABI returns a pointer, through the instructions of the same block:
 * register moves copy it, a plain store puts it in memory (a stack slot or
 * a global), any other write of a register loses it there.  At each
 * instruction it asks DWARF which variable lives, at that pc, in one of the
 * registers holding the value (DW_OP_regN) or at one of the memory slots it
 * was stored to (DW_OP_fbreg against the frame base, DW_OP_addr).  The
 * first answer wins.  Only the user's scopes count (user_scope.c): in
 * system-header code inlined into the user's function, such as
 * libstdc++'s allocators, the parameters (__first) are not what the user
 * named the object.  A variable may be a composite of pieces (a
 * std::vector in registers): a piece that holds the value names it.
 *
 * When no location holds the value (gcc drops the location of a variable
 * it keeps in a callee-saved register across a loop), the declaration
 * rule names it: the one variable of the user's scopes declared at the
 * call's line (the user's line, when the call is inside inlined system
 * code) whose type is a pointer or a class, as `T *p = malloc(...)` or
 * `std::vector<T> v(n)` declare it.  None, or two on one line, leaves the
 * object named by its allocation site.
 *
 * Limits: a value stored through a pointer (p->buf = malloc(...)) or kept
 * only in a variable of another compilation unit is not named. */
#include "structure/dwfl_offline.h"
#include "structure/fortran_dwarf.h"
#include "structure/structure.h"
#include "structure/user_scope.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#define WALK_INSNS 12 /* instructions followed after the call */
#define MAX_SLOTS 4   /* memory slots the value was stored to */

struct st_vars {
    st_dwfl s;
    Dwarf_CFI *cfi;       /* call frame information: the frame base's CFA */
    Dwarf_Addr cfi_bias;  /* CFI address + cfi_bias = libdwfl's address */
};

/* Where the value is: registers and memory slots (base + disp, base
 * ST_REG_NONE for an absolute link-time address). */
typedef struct holders {
    st_regset regs;
    unsigned nslots;
    struct {
        uint8_t base;
        int64_t disp;
    } slot[MAX_SLOTS];
} holders;

int st_vars_open(const char *path, st_vars **out, char *err, size_t errlen)
{
    *out = NULL;
    st_vars *v = calloc(1, sizeof *v);
    if (!v) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    int rc = st_dwfl_open(path, &v->s, err, errlen);
    if (rc != 0) {
        free(v);
        return rc < 0 ? -1 : 0;
    }
    v->cfi = dwfl_module_dwarf_cfi(v->s.mod, &v->cfi_bias);
    if (!v->cfi)
        v->cfi = dwfl_module_eh_cfi(v->s.mod, &v->cfi_bias);
    *out = v;
    return 0;
}

void st_vars_free(st_vars *v)
{
    if (!v)
        return;
    st_dwfl_close(&v->s);
    free(v);
}

/* The DWARF number of an st_reg general-purpose register (x86-64 psABI
 * numbering: rax rdx rcx rbx rsi rdi rbp rsp r8..r15), -1 for others. */
static int dwarf_regno(uint8_t reg)
{
    static const int8_t map[16] = {0, 2, 1, 3, 7, 6, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15};
    return reg < 16 ? map[reg] : -1;
}

/* The register a one-operation location names (DW_OP_regN, DW_OP_regx),
 * -1 if it is not one. */
static int op_register(const Dwarf_Op *op)
{
    if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31)
        return op->atom - DW_OP_reg0;
    return op->atom == DW_OP_regx ? (int)op->number : -1;
}

/* A register + offset location (DW_OP_bregN off, DW_OP_bregx reg off):
 * 0 with *reg and *off set, -1 for any other operation. */
static int op_breg(const Dwarf_Op *op, int *reg, int64_t *off)
{
    if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
        *reg = op->atom - DW_OP_breg0;
        *off = (int64_t)op->number;
        return 0;
    }
    if (op->atom == DW_OP_bregx) {
        *reg = (int)op->number;
        *off = (int64_t)op->number2;
        return 0;
    }
    return -1;
}

/* The canonical frame address at DWARF pc as register + offset; 0 on
 * success.  Outside prologues and epilogues the CFA rule on x86-64 is a
 * register plus an offset (rsp + n, or rbp + 16 with a frame pointer). */
static int frame_cfa(const st_vars *v, Dwarf_Addr pc, int *reg, int64_t *off)
{
    Dwarf_Frame *frame = NULL;
    Dwarf_Op *ops;
    size_t nops;
    int ok = v->cfi && dwarf_cfi_addrframe(v->cfi, pc + v->s.dw_bias - v->cfi_bias, &frame) == 0 &&
             dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1 && op_breg(&ops[0], reg, off) == 0;
    free(frame);
    return ok ? 0 : -1;
}

/* The frame base of subprogram `fn` at pc as register + offset: its
 * DW_AT_frame_base: DW_OP_call_frame_cfa (gcc), a register's value or a
 * register + offset. */
static int frame_base(const st_vars *v, Dwarf_Die *fn, Dwarf_Addr pc, int *reg, int64_t *off)
{
    Dwarf_Attribute attr;
    Dwarf_Op *expr;
    size_t len;
    if (!dwarf_attr(fn, DW_AT_frame_base, &attr) || dwarf_getlocation_addr(&attr, pc, &expr, &len, 1) != 1 ||
        len != 1)
        return -1;
    if (expr[0].atom == DW_OP_call_frame_cfa)
        return frame_cfa(v, pc, reg, off);
    if ((*reg = op_register(&expr[0])) >= 0) { /* clang -O0: DW_OP_reg6, rbp's value */
        *off = 0;
        return 0;
    }
    return op_breg(&expr[0], reg, off);
}

/* The static address of a location operation of attribute `attr`:
 * DW_OP_addr, or DWARF 5's indexed DW_OP_addrx (clang); 0 on success. */
static int op_address(Dwarf_Attribute *attr, Dwarf_Op *op, Dwarf_Addr *addr)
{
    Dwarf_Attribute indexed;
    if (op->atom == DW_OP_addr) {
        *addr = op->number;
        return 0;
    }
    if (op->atom == DW_OP_addrx || op->atom == DW_OP_GNU_addr_index)
        return dwarf_getlocation_attr(attr, op, &indexed) == 0 && dwarf_formaddr(&indexed, addr) == 0 ? 0 : -1;
    return -1;
}

/* Does the one-operation location `op` of attribute `attr` of a variable
 * in subprogram `fn` (NULL at file scope) name a place that holds the
 * value at pc?  A memory slot counts when it lies within the first `span`
 * bytes of the variable (st_fortran_span), at byte *at of it. */
static int location_holds(const st_vars *v, Dwarf_Attribute *attr, Dwarf_Op *op, Dwarf_Die *fn, Dwarf_Addr pc,
                          const holders *h, uint64_t span, uint64_t *at)
{
    *at = 0;
    int r = op_register(op);
    if (r >= 0) {
        for (uint8_t g = 0; g < 16; g++)
            if ((h->regs >> g & 1) && dwarf_regno(g) == r)
                return 1;
        return 0;
    }
    int base_reg = -1, in_reg = -1; /* in_reg: DW_OP_bregN, memory at register N + in_off */
    int64_t base_off = 0, in_off = 0;
    Dwarf_Addr addr;
    int is_static = op_address(attr, op, &addr) == 0;
    if (op->atom == DW_OP_fbreg && (!fn || frame_base(v, fn, pc, &base_reg, &base_off) != 0))
        return 0;
    if (op_breg(op, &in_reg, &in_off) != 0)
        in_reg = -1;
    for (unsigned i = 0; i < h->nslots; i++) {
        int64_t start;
        if (is_static && h->slot[i].base == ST_REG_NONE)
            start = (int64_t)(addr + v->s.link_bias);
        else if (op->atom == DW_OP_fbreg && dwarf_regno(h->slot[i].base) == base_reg)
            start = base_off + (int64_t)op->number;
        else if (in_reg >= 0 && dwarf_regno(h->slot[i].base) == in_reg) /* a Fortran dummy: by reference */
            start = in_off;
        else
            continue;
        if (h->slot[i].disp >= start && (uint64_t)(h->slot[i].disp - start) < span) {
            *at = (uint64_t)(h->slot[i].disp - start);
            return 1;
        }
    }
    return 0;
}

/* Does the location expression expr[0..len) of attribute `attr` hold the
 * value at pc: a one-operation location (within `span` bytes, at byte
 * *at, as location_holds), or a composite whose 8-byte piece is one
 * (DW_OP_regN DW_OP_piece 8 ...)? */
static int expr_holds(const st_vars *v, Dwarf_Attribute *attr, Dwarf_Op *expr, size_t len, Dwarf_Die *fn,
                      Dwarf_Addr pc, const holders *h, uint64_t span, uint64_t *at)
{
    if (len == 1)
        return location_holds(v, attr, &expr[0], fn, pc, h, span, at);
    for (size_t start = 0, i = 0; i < len; i++) {
        if (expr[i].atom != DW_OP_piece)
            continue;
        if (i == start + 1 && expr[i].number == 8 && location_holds(v, attr, &expr[start], fn, pc, h, 1, at))
            return 1;
        start = i + 1;
    }
    return 0;
}

/* Copy die's name into name[0..len); 1 when it has one. */
static int copy_name(Dwarf_Die *die, char *name, size_t len)
{
    Dwarf_Attribute name_attr;
    const char *n = dwarf_attr_integrate(die, DW_AT_name, &name_attr) ? dwarf_formstring(&name_attr) : NULL;
    if (!n)
        return 0;
    snprintf(name, len, "%s", n);
    return 1;
}

/* Copy the name of the variable or parameter `die` into name if its
 * location at pc holds the value; 1 when it did.  For a Fortran derived
 * type the value may be stored inside it, at a component's descriptor:
 * then the name is "VAR%COMP" (st_fortran_component). */
static int variable_matches(const st_vars *v, Dwarf_Die *die, Dwarf_Die *fn, Dwarf_Addr pc, const holders *h,
                            char *name, size_t len)
{
    int tag = dwarf_tag(die);
    Dwarf_Attribute attr;
    Dwarf_Op *expr;
    size_t exprlen;
    if ((tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) || !dwarf_attr(die, DW_AT_location, &attr) ||
        dwarf_getlocation_addr(&attr, pc, &expr, &exprlen, 1) != 1)
        return 0;
    uint64_t span = st_fortran_span(die), at;
    if (!expr_holds(v, &attr, expr, exprlen, fn, pc, h, span, &at))
        return 0;
    return span > 1 ? st_fortran_component(die, at, name, len) : copy_name(die, name, len);
}

/* 1 with the name copied when a child of scope (or of a Fortran module
 * among them: a module's variables are children of its DW_TAG_module,
 * not of the unit) holds the value at pc, as variable_matches says. */
static int child_matches(const st_vars *v, Dwarf_Die *scope, Dwarf_Die *fn, Dwarf_Addr pc, const holders *h,
                         char *name, size_t len)
{
    Dwarf_Die child;
    if (dwarf_child(scope, &child) != 0)
        return 0;
    do {
        if (dwarf_tag(&child) == DW_TAG_module ? child_matches(v, &child, fn, pc, h, name, len)
                                                : variable_matches(v, &child, fn, pc, h, name, len))
            return 1;
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

/* The compilation unit of DWARF pc into *cu: 0, or -1 when none covers
 * it.  libdw answers from .debug_aranges, which clang does not emit, so
 * the units' own ranges are the fallback. */
static int unit_at(const st_vars *v, Dwarf_Addr pc, Dwarf_Die *cu)
{
    Dwarf_Addr bias;
    Dwarf_Die *found = dwfl_module_addrdie(v->s.mod, pc + v->s.dw_bias, &bias);
    if (found) {
        *cu = *found;
        return 0;
    }
    Dwarf_Off off = 0, next;
    size_t header;
    while (dwarf_nextcu(v->s.dw, off, &next, &header, NULL, NULL, NULL) == 0) {
        if (dwarf_offdie(v->s.dw, off + header, cu) && dwarf_haspc(cu, pc) == 1)
            return 0;
        off = next;
    }
    return -1;
}

/* The concrete scopes around DWARF pc, innermost first (st_scopes_at),
 * into *scopes (free it) and its unit into *cu; their number, 0 when none. */
static int scopes_at(const st_vars *v, Dwarf_Addr pc, Dwarf_Die *cu, Dwarf_Die **scopes)
{
    *scopes = NULL;
    return unit_at(v, pc, cu) == 0 ? st_scopes_at(cu, pc, scopes) : 0;
}

/* The variable holding the value at link-time pc, innermost scope first,
 * the scopes of inlined system code skipped when there are user scopes;
 * 1 with its name copied, 0 when none does. */
static int variable_at(const st_vars *v, uint64_t link_pc, const holders *h, char *name, size_t len)
{
    Dwarf_Addr pc = link_pc - v->s.link_bias;
    Dwarf_Die cu, *scopes;
    int n = scopes_at(v, pc, &cu, &scopes), found = 0;
    Dwarf_Die *fn = NULL;
    for (int i = 0; i < n && !fn; i++)
        if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
            fn = &scopes[i];
    int user = n > 0 && !st_scope_is_system(scopes, n, st_user_scope(scopes, n)); /* else: all system */
    for (int i = 0; i < n && !found; i++) {
        if (user && st_scope_is_system(scopes, n, i))
            continue;
        Dwarf_Die *scope_fn = dwarf_tag(&scopes[i]) == DW_TAG_compile_unit ? NULL : fn;
        found = child_matches(v, &scopes[i], scope_fn, pc, h, name, len);
    }
    free(scopes);
    return found;
}

/* The user's file and line of the code at DWARF pc: where the user's code
 * entered inlined system code, else the line table's.  1 when known. */
static int user_line(Dwarf_Die *cu, Dwarf_Die *scopes, int n, Dwarf_Addr pc, const char **file, uint32_t *line)
{
    if (st_user_call_site(scopes, n, file, line))
        return 1;
    Dwarf_Line *l = dwarf_getsrc_die(cu, pc);
    int ln;
    if (!l || dwarf_lineno(l, &ln) != 0 || ln <= 0 || !(*file = dwarf_linesrc(l, NULL, NULL)))
        return 0;
    *line = (uint32_t)ln;
    return 1;
}

/* Is the type of variable die, without typedefs and qualifiers, one an
 * allocation initializes: a pointer, a structure, class or union? */
static int pointer_or_class(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    Dwarf_Die type;
    if (!dwarf_attr_integrate(die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &type) ||
        dwarf_peel_type(&type, &type) != 0)
        return 0;
    int tag = dwarf_tag(&type);
    return tag == DW_TAG_pointer_type || tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
           tag == DW_TAG_union_type;
}

/* Is die a variable declared at file:line with a type an allocation
 * initializes? */
static int declared_here(Dwarf_Die *die, const char *file, uint32_t line)
{
    int dl;
    const char *df;
    return dwarf_tag(die) == DW_TAG_variable && dwarf_decl_line(die, &dl) == 0 && (uint32_t)dl == line &&
           (df = dwarf_decl_file(die)) && strcmp(df, file) == 0 && pointer_or_class(die);
}

/* The declaration rule: the one variable of the user's scopes at the
 * call at link-time pc, up to its function, declared at the call's user
 * line; 1 with its name copied, 0 when there is none or more than one. */
static int declared_receiver(const st_vars *v, uint64_t link_pc, char *name, size_t len)
{
    Dwarf_Addr pc = link_pc - v->s.link_bias;
    Dwarf_Die cu, *scopes;
    int n = scopes_at(v, pc, &cu, &scopes), found = 0;
    const char *file;
    uint32_t line;
    int known = n > 0 && user_line(&cu, scopes, n, pc, &file, &line);
    for (int i = st_user_scope(scopes, n); known && i < n; i++) {
        Dwarf_Die child;
        for (int more = dwarf_child(&scopes[i], &child) == 0; more; more = dwarf_siblingof(&child, &child) == 0)
            if (declared_here(&child, file, line) && found++ == 0 && !copy_name(&child, name, len))
                found = 2; /* a nameless match names nothing */
        int tag = dwarf_tag(&scopes[i]);
        if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
            break;
    }
    free(scopes);
    return found == 1;
}

int st_call_user_line(const st_vars *v, uint64_t site, char *file, size_t flen, uint32_t *line)
{
    if (!v)
        return 0;
    Dwarf_Die cu, *scopes;
    int n = scopes_at(v, site - v->s.link_bias, &cu, &scopes);
    const char *f;
    int ok = st_user_call_site(scopes, n, &f, line);
    if (ok)
        snprintf(file, flen, "%s", f);
    free(scopes);
    return ok;
}

/* Apply instruction `in` to where the value is: a move copies it to its
 * destination, a plain store of a holding register adds the slot, any
 * other write of a register loses it there. */
static void follow(holders *h, const st_insn *in)
{
    st_regset gprs = (st_regset)0xffff;
    st_regset addr_regs = 0;
    for (unsigned k = 0; k < in->nmem; k++) {
        if (in->mem[k].base != ST_REG_NONE)
            addr_regs |= (st_regset)1 << in->mem[k].base;
        if (in->mem[k].index != ST_REG_NONE)
            addr_regs |= (st_regset)1 << in->mem[k].index;
    }
    int copies = in->op == ST_OP_MOV_REG && in->src < 16 && (h->regs >> in->src & 1);
    int stores = in->cls == ST_CLASS_LOAD_STORE && in->nstores == 1 && in->nmem == 1 &&
                 (in->mem[0].access & ST_MEM_WRITE) && in->mem[0].size == 8 &&
                 in->mem[0].index == ST_REG_NONE && (in->reads & gprs & ~addr_regs & h->regs);
    h->regs &= ~in->writes;
    if (copies)
        h->regs |= (st_regset)1 << in->dst;
    if (stores && h->nslots < MAX_SLOTS) {
        h->slot[h->nslots].base = in->mem[0].base;
        h->slot[h->nslots].disp = in->mem[0].disp;
        h->nslots++;
    }
}

int st_call_receiver(const st_vars *v, const st_module *m, uint64_t site, char *name, size_t len)
{
    size_t fi;
    if (!v || st_module_function_at(m, site, &fi) != 0)
        return 0;
    uint32_t ci = st_insn_lower_bound(&m->functions[fi], site + 1);
    if (ci-- == 0)
        return 0;
    const st_function *f = &m->functions[fi];
    const st_insn *call = &f->insns[ci];
    if ((call->flow != ST_FLOW_CALL && call->flow != ST_FLOW_ICALL) || site >= call->addr + call->len)
        return 0;
    holders h = {.regs = (st_regset)1 << ST_REG_RAX};
    for (uint32_t j = ci + 1; j < f->ninsns && j <= ci + WALK_INSNS; j++) {
        const st_insn *in = &f->insns[j];
        if (variable_at(v, in->addr, &h, name, len))
            return 1;
        if (in->flow != ST_FLOW_NONE)
            break;
        follow(&h, in);
        if (!h.regs && !h.nslots)
            break;
    }
    return declared_receiver(v, call->addr, name, len);
}

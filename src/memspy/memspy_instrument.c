/* memspy_instrument.c — the IR instrumentation pass of the memspy tool.
 *
 * Every data reference of every guest instruction becomes one call of
 * memspy_on_access(code, addr, size*2 + is_write), placed before the
 * statement that makes it, as Lackey and Cachegrind do: loads, stores,
 * guarded loads and stores (the call takes the same guard), dirty helpers
 * that touch memory, CAS (a read then a write) and LL/SC.  `code` is the
 * instruction's CodeRec, created here with its names at the instruction's
 * first reference (instructions that touch no memory get none), so the
 * helper needs no lookup to know who referenced memory.
 *
 * Sampling that can be decided without the simulator is decided here, in
 * IR, so that a reference that is not simulated costs a few inline
 * instructions and no call: time sampling's OFF stretches (a countdown in
 * memspy.gap_left) and, alone, set sampling's other sets (a mask test,
 * counted in memspy.set_skipped).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_machine.h"
#include "pub_tool_tooliface.h"

#include "memspy/memspy.h"
#include "vgcommon/vg_memrefs.h"

/* The superblock being built and the instruction whose statements follow. */
typedef struct SbBuilder {
    IRSB *out;
    Addr ip;       /* of the latest IMark */
    CodeRec *code; /* its record, NULL until it references memory */
} SbBuilder;

/* A new temporary of type ty holding e. */
static IRExpr *bind(IRSB *out, IRType ty, IRExpr *e)
{
    IRTemp t = newIRTemp(out->tyenv, ty);
    addStmtToIRSB(out, IRStmt_WrTmp(t, e));
    return IRExpr_RdTmp(t);
}

/* `guard` and `more`, either of which may be NULL (always true). */
static IRExpr *and_guard(IRSB *out, IRExpr *guard, IRExpr *more)
{
    if (!guard || !more)
        return guard ? guard : more;
    return bind(out, Ity_I1, IRExpr_Binop(Iop_And1, guard, more));
}

/* *counter += 1 (minus: -= 1) when `cond` (may be NULL: always true) holds;
 * branch-free: the step is cond widened to 0 or 1. */
static void add_count(IRSB *out, ULong *counter, IRExpr *cond, Bool minus)
{
    IRExpr *at = mkIRExpr_HWord((HWord)counter);
    IRExpr *old = bind(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, at));
    IRExpr *one = cond ? bind(out, Ity_I64, IRExpr_Unop(Iop_1Uto64, cond))
                       : IRExpr_Const(IRConst_U64(1));
    IRExpr *now = bind(out, Ity_I64, IRExpr_Binop(minus ? Iop_Sub64 : Iop_Add64, old, one));
    addStmtToIRSB(out, IRStmt_Store(Iend_LE, at, now));
}

/* Time sampling in IR: while memspy.gap_left > 0 the reference only counts
 * it down.  Returns the condition for calling the helper (NULL: always).
 * The helper itself sets gap_left; this is safe within one superblock
 * because VEX's CSE never carries a load across a dirty call. */
static IRExpr *time_sampling_guard(IRSB *out, IRExpr *guard)
{
    IRExpr *at = mkIRExpr_HWord((HWord)&memspy.gap_left);
    IRExpr *left = bind(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, at));
    IRExpr *in_gap = bind(out, Ity_I1, IRExpr_Binop(Iop_CmpNE64, left, IRExpr_Const(IRConst_U64(0))));
    add_count(out, &memspy.gap_left, and_guard(out, guard, in_gap), True);
    return and_guard(out, guard, bind(out, Ity_I1, IRExpr_Unop(Iop_Not1, in_gap)));
}

/* Set sampling in IR: a reference whose first line is not sampled (block &
 * (N-1) != 0, the simulator's own rule) only counts in memspy.set_skipped. */
static IRExpr *set_sampling_guard(IRSB *out, IRExpr *addr, IRExpr *guard)
{
    UInt shift = 0;
    while ((1u << shift) < memspy.config.level[0].line)
        shift++;
    IRExpr *block = bind(out, Ity_I64, IRExpr_Binop(Iop_Shr64, addr, IRExpr_Const(IRConst_U8(shift))));
    IRExpr *set = bind(out, Ity_I64, IRExpr_Binop(Iop_And64, block,
                                                  IRExpr_Const(IRConst_U64(memspy.config.set_sample - 1))));
    IRExpr *in_set = bind(out, Ity_I1, IRExpr_Binop(Iop_CmpEQ64, set, IRExpr_Const(IRConst_U64(0))));
    IRExpr *out_of_set = bind(out, Ity_I1, IRExpr_Unop(Iop_Not1, in_set));
    add_count(out, &memspy.set_skipped, and_guard(out, guard, out_of_set), False);
    return and_guard(out, guard, in_set);
}

/* The condition under which the helper is called for a reference at addr
 * (NULL: always): the statement's own guard, and the sampling that can be
 * decided in IR.  Set sampling is tested here only without time sampling,
 * whose ON stretches count every reference in the helper. */
static IRExpr *call_guard(IRSB *out, IRExpr *addr, IRExpr *guard)
{
    if (memspy.sample_on)
        return time_sampling_guard(out, guard);
    if (memspy.config.set_sample > 1)
        return set_sampling_guard(out, addr, guard);
    return guard;
}

/* A VgMemRefFn: ctx is the SbBuilder. */
static void instrument_access(void *ctx, IRExpr *addr, Int size, Bool is_write, IRExpr *guard)
{
    SbBuilder *b = ctx;
    tl_assert(size > 0);
    if (!b->code)
        b->code = memspy_code(b->ip);
    CodeRec *code = b->code;
    guard = call_guard(b->out, addr, guard);
    IRExpr **args = mkIRExprVec_3(mkIRExpr_HWord((HWord)code), addr,
                                  mkIRExpr_HWord((HWord)size * 2 + (is_write ? 1 : 0)));
    IRDirty *d = unsafeIRDirty_0_N(3, "memspy_on_access",
                                   VG_(fnptr_to_fnentry)(memspy_on_access), args);
    if (guard)
        d->guard = guard;
    addStmtToIRSB(b->out, IRStmt_Dirty(d));
}

/* Add the calls for the references `st` makes. */
static void instrument_stmt(SbBuilder *b, IRSB *in, IRStmt *st)
{
    switch (st->tag) {
    case Ist_IMark:
        b->ip = (Addr)st->Ist.IMark.addr;
        b->code = NULL;
        break;
    default:
        vg_memrefs(in, st, instrument_access, b);
        break;
    }
}

IRSB *memspy_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
                        const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
                        IRType gWordTy, IRType hWordTy)
{
    (void)closure, (void)layout, (void)vge, (void)archinfo_host;
    if (gWordTy != Ity_I64 || hWordTy != Ity_I64)
        VG_(tool_panic)("memspy supports amd64 only");
    if (memspy.refused)
        return in; /* the options were refused; the run only ends */

    SbBuilder b = {.out = deepCopyIRSBExceptStmts(in)};
    Int i = 0;
    for (; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; i++)
        addStmtToIRSB(b.out, in->stmts[i]); /* preamble */
    for (; i < in->stmts_used; i++) {
        IRStmt *st = in->stmts[i];
        if (!st || st->tag == Ist_NoOp)
            continue;
        instrument_stmt(&b, in, st);
        addStmtToIRSB(b.out, st);
    }
    return b.out;
}

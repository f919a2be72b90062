/* memspy_instrument.c — the IR instrumentation pass of the memspy tool.
 *
 * Every data reference of every guest instruction appends one entry
 * (site, addr) to the running thread's buffer (memspy_buffer.c), inline,
 * before the statement that makes it, as Lackey and Cachegrind place their
 * calls: loads, stores, guarded loads and stores (the entry counts only
 * when the guard holds), dirty helpers that touch memory, CAS (a read then
 * a write) and LL/SC.  `site` is one constant: the instruction's CodeRec,
 * created here with its names at the instruction's first reference
 * (instructions that touch no memory get none), and size*2 + is_write.  A
 * guarded call of memspy_flush_full is made only when the buffer is full.
 *
 * Sampling that can be decided without the simulator is decided here, in
 * IR, in front of the append, so that a reference that is not simulated
 * costs a few inline instructions and no entry: time sampling's stretches
 * (countdowns in memspy.gap_left and memspy.phase_left) and, alone, set
 * sampling's other sets (a mask test, counted in memspy.set_skipped).
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

/* *counter == 0, as an Ity_I1. */
static IRExpr *is_zero(IRSB *out, ULong *counter)
{
    IRExpr *v = bind(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)counter)));
    return bind(out, Ity_I1, IRExpr_Binop(Iop_CmpEQ64, v, IRExpr_Const(IRConst_U64(0))));
}

/* A call of fn (no arguments) when `guard` holds (NULL: always). */
static void call_when(IRSB *out, const HChar *name, void *fn, IRExpr *guard)
{
    IRDirty *d = unsafeIRDirty_0_N(0, name, VG_(fnptr_to_fnentry)(fn), mkIRExprVec_0());
    if (guard)
        d->guard = guard;
    addStmtToIRSB(out, IRStmt_Dirty(d));
}

/* Time sampling in IR: while memspy.gap_left > 0 the reference only counts
 * it down; otherwise it counts memspy.phase_left down and is simulated,
 * unless phase_left is already 0: then the ON stretch is over and
 * memspy_time_gap sets up the next OFF stretch, of which this reference is
 * the first.  Returns the condition for appending (NULL: always).  The
 * helper sets both counters; this is safe within one superblock because
 * VEX's CSE never carries a load across a dirty call. */
static IRExpr *time_sampling_guard(IRSB *out, IRExpr *guard)
{
    IRExpr *in_gap = bind(out, Ity_I1, IRExpr_Unop(Iop_Not1, is_zero(out, &memspy.gap_left)));
    add_count(out, &memspy.gap_left, and_guard(out, guard, in_gap), True);
    IRExpr *on = and_guard(out, guard, bind(out, Ity_I1, IRExpr_Unop(Iop_Not1, in_gap)));
    IRExpr *on_over = is_zero(out, &memspy.phase_left);
    call_when(out, "memspy_time_gap", memspy_time_gap, and_guard(out, on, on_over));
    IRExpr *keep = and_guard(out, on, bind(out, Ity_I1, IRExpr_Unop(Iop_Not1, on_over)));
    add_count(out, &memspy.phase_left, keep, True);
    return keep;
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

/* The condition under which a reference at addr is appended (NULL:
 * always): the statement's own guard, and the sampling that can be decided
 * in IR.  Set sampling is tested here only without time sampling, whose ON
 * stretches count every reference (the simulator skips other sets). */
static IRExpr *append_guard(IRSB *out, IRExpr *addr, IRExpr *guard)
{
    if (memspy.sample_on)
        return time_sampling_guard(out, guard);
    if (memspy.config.set_sample > 1)
        return set_sampling_guard(out, addr, guard);
    return guard;
}

/* *(cur + off) = data, cur an I64 address. */
static void store_at(IRSB *out, IRExpr *cur, ULong off, IRExpr *data)
{
    IRExpr *at = off ? bind(out, Ity_I64, IRExpr_Binop(Iop_Add64, cur, IRExpr_Const(IRConst_U64(off))))
                     : cur;
    addStmtToIRSB(out, IRStmt_Store(Iend_LE, at, data));
}

/* Append (site, addr) to the running buffer when `guard` holds (NULL:
 * always), branch-free: the entry is always written at memspy.buf_cur,
 * which always has room (a full buffer is flushed at once), and the cursor
 * advances by one entry only if guard holds; then a guarded call flushes
 * the buffer if that filled it. */
static void append_entry(IRSB *out, UWord site, IRExpr *addr, IRExpr *guard)
{
    IRExpr *cur_at = mkIRExpr_HWord((HWord)&memspy.buf_cur);
    IRExpr *cur = bind(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, cur_at));
    store_at(out, cur, offsetof(RefEntry, site), IRExpr_Const(IRConst_U64(site)));
    store_at(out, cur, offsetof(RefEntry, addr), addr);
    IRExpr *step = IRExpr_Const(IRConst_U64(sizeof(RefEntry)));
    if (guard) {
        IRExpr *one = bind(out, Ity_I64, IRExpr_Unop(Iop_1Uto64, guard));
        step = bind(out, Ity_I64, IRExpr_Binop(Iop_Mul64, one, step));
    }
    IRExpr *next = bind(out, Ity_I64, IRExpr_Binop(Iop_Add64, cur, step));
    addStmtToIRSB(out, IRStmt_Store(Iend_LE, cur_at, next));
    IRExpr *end = bind(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&memspy.buf_end)));
    IRExpr *full = bind(out, Ity_I1, IRExpr_Binop(Iop_CmpEQ64, next, end));
    call_when(out, "memspy_flush_full", memspy_flush_full, full);
}

/* A VgMemRefFn: ctx is the SbBuilder. */
static void instrument_access(void *ctx, IRExpr *addr, Int size, Bool is_write, IRExpr *guard)
{
    SbBuilder *b = ctx;
    tl_assert(size > 0 && size < (1 << (63 - REF_SITE_SHIFT)));
    if (!b->code)
        b->code = memspy_code(b->ip);
    tl_assert(((UWord)b->code & ~REF_CODE_MASK) == 0);
    UWord site = ((UWord)size * 2 + (is_write ? 1 : 0)) << REF_SITE_SHIFT | (UWord)b->code;
    append_entry(b->out, site, addr, append_guard(b->out, addr, guard));
}

/* Add the entries for the references `st` makes. */
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

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
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_machine.h"
#include "pub_tool_tooliface.h"

#include "memspy/memspy.h"

/* The superblock being built and the instruction whose statements follow. */
typedef struct SbBuilder {
    IRSB *out;
    Addr ip;       /* of the latest IMark */
    CodeRec *code; /* its record, NULL until it references memory */
} SbBuilder;

static void instrument_access(SbBuilder *b, IRExpr *addr, Int size, Bool is_write, IRExpr *guard)
{
    tl_assert(size > 0);
    if (!b->code)
        b->code = memspy_code(b->ip);
    CodeRec *code = b->code;
    IRExpr **args = mkIRExprVec_3(mkIRExpr_HWord((HWord)code), addr,
                                  mkIRExpr_HWord((HWord)size * 2 + (is_write ? 1 : 0)));
    IRDirty *d = unsafeIRDirty_0_N(3, "memspy_on_access",
                                   VG_(fnptr_to_fnentry)(memspy_on_access), args);
    if (guard)
        d->guard = guard;
    addStmtToIRSB(b->out, IRStmt_Dirty(d));
}

static Bool is_always_true(IRExpr *guard)
{
    return guard->tag == Iex_Const && guard->Iex.Const.con->tag == Ico_U1 &&
           guard->Iex.Const.con->Ico.U1;
}

static void instrument_dirty(SbBuilder *b, IRDirty *d)
{
    if (d->mFx == Ifx_None)
        return;
    IRExpr *guard = is_always_true(d->guard) ? NULL : d->guard;
    if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
        instrument_access(b, d->mAddr, d->mSize, False, guard);
    if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
        instrument_access(b, d->mAddr, d->mSize, True, guard);
}

static void instrument_cas(SbBuilder *b, IRSB *in, IRCAS *cas)
{
    Int size = sizeofIRType(typeOfIRExpr(in->tyenv, cas->dataLo));
    if (cas->dataHi)
        size *= 2; /* double-width CAS */
    instrument_access(b, cas->addr, size, False, NULL);
    instrument_access(b, cas->addr, size, True, NULL);
}

static void instrument_llsc(SbBuilder *b, IRSB *in, IRStmt *st)
{
    if (st->Ist.LLSC.storedata == NULL) {
        Int size = sizeofIRType(typeOfIRTemp(in->tyenv, st->Ist.LLSC.result));
        instrument_access(b, st->Ist.LLSC.addr, size, False, NULL);
    } else {
        Int size = sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.LLSC.storedata));
        instrument_access(b, st->Ist.LLSC.addr, size, True, NULL);
    }
}

/* Add the calls for the references `st` makes. */
static void instrument_stmt(SbBuilder *b, IRSB *in, IRStmt *st)
{
    switch (st->tag) {
    case Ist_IMark:
        b->ip = (Addr)st->Ist.IMark.addr;
        b->code = NULL;
        break;
    case Ist_WrTmp:
        if (st->Ist.WrTmp.data->tag == Iex_Load) {
            IRExpr *load = st->Ist.WrTmp.data;
            instrument_access(b, load->Iex.Load.addr, sizeofIRType(load->Iex.Load.ty),
                              False, NULL);
        }
        break;
    case Ist_Store:
        instrument_access(b, st->Ist.Store.addr,
                          sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.Store.data)), True, NULL);
        break;
    case Ist_LoadG: {
        IRLoadG *lg = st->Ist.LoadG.details;
        IRType loaded, widened;
        typeOfIRLoadGOp(lg->cvt, &widened, &loaded);
        instrument_access(b, lg->addr, sizeofIRType(loaded), False, lg->guard);
        break;
    }
    case Ist_StoreG: {
        IRStoreG *sg = st->Ist.StoreG.details;
        instrument_access(b, sg->addr, sizeofIRType(typeOfIRExpr(in->tyenv, sg->data)),
                          True, sg->guard);
        break;
    }
    case Ist_Dirty:
        instrument_dirty(b, st->Ist.Dirty.details);
        break;
    case Ist_CAS:
        instrument_cas(b, in, st->Ist.CAS.details);
        break;
    case Ist_LLSC:
        instrument_llsc(b, in, st);
        break;
    default:
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

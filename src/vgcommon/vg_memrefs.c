/* vg_memrefs.c — the memory references of a VEX IR statement; see
 * vg_memrefs.h. */
#include "vgcommon/vg_memrefs.h"

static Bool is_always_true(IRExpr *guard)
{
    return guard->tag == Iex_Const && guard->Iex.Const.con->tag == Ico_U1 && guard->Iex.Const.con->Ico.U1;
}

/* A dirty helper's declared memory effect: a read, a write, or both. */
static void dirty_refs(IRDirty *d, VgMemRefFn on_ref, void *ctx)
{
    if (d->mFx == Ifx_None)
        return;
    IRExpr *guard = is_always_true(d->guard) ? NULL : d->guard;
    if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
        on_ref(ctx, d->mAddr, d->mSize, False, guard);
    if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
        on_ref(ctx, d->mAddr, d->mSize, True, guard);
}

static void cas_refs(IRSB *in, IRCAS *cas, VgMemRefFn on_ref, void *ctx)
{
    Int size = sizeofIRType(typeOfIRExpr(in->tyenv, cas->dataLo));
    if (cas->dataHi)
        size *= 2; /* double-width CAS */
    on_ref(ctx, cas->addr, size, False, NULL);
    on_ref(ctx, cas->addr, size, True, NULL);
}

static void llsc_ref(IRSB *in, IRStmt *st, VgMemRefFn on_ref, void *ctx)
{
    if (st->Ist.LLSC.storedata == NULL)
        on_ref(ctx, st->Ist.LLSC.addr, sizeofIRType(typeOfIRTemp(in->tyenv, st->Ist.LLSC.result)), False, NULL);
    else
        on_ref(ctx, st->Ist.LLSC.addr, sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.LLSC.storedata)), True, NULL);
}

void vg_memrefs(IRSB *in, IRStmt *st, VgMemRefFn on_ref, void *ctx)
{
    switch (st->tag) {
    case Ist_WrTmp:
        if (st->Ist.WrTmp.data->tag == Iex_Load) {
            IRExpr *load = st->Ist.WrTmp.data;
            on_ref(ctx, load->Iex.Load.addr, sizeofIRType(load->Iex.Load.ty), False, NULL);
        }
        break;
    case Ist_Store:
        on_ref(ctx, st->Ist.Store.addr, sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.Store.data)), True, NULL);
        break;
    case Ist_LoadG: {
        IRLoadG *lg = st->Ist.LoadG.details;
        IRType loaded, widened;
        typeOfIRLoadGOp(lg->cvt, &widened, &loaded);
        on_ref(ctx, lg->addr, sizeofIRType(loaded), False, lg->guard);
        break;
    }
    case Ist_StoreG: {
        IRStoreG *sg = st->Ist.StoreG.details;
        on_ref(ctx, sg->addr, sizeofIRType(typeOfIRExpr(in->tyenv, sg->data)), True, sg->guard);
        break;
    }
    case Ist_Dirty:
        dirty_refs(st->Ist.Dirty.details, on_ref, ctx);
        break;
    case Ist_CAS:
        cas_refs(in, st->Ist.CAS.details, on_ref, ctx);
        break;
    case Ist_LLSC:
        llsc_ref(in, st, on_ref, ctx);
        break;
    default:
        break;
    }
}

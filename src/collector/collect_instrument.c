/* collect_instrument.c — the IR instrumentation pass of the augur tool.
 *
 * For each superblock Valgrind translates, read top to bottom:
 *   entry          ctr[0] += 1                               (inline IR)
 *   each IMark     note: instruction executes in this segment
 *   each access    if not a repeat of the thread's most recent block:
 *                      collect_on_access(rec, addr, size)    (guarded helper)
 *   each exit k    ctr[k+1] += guard; the next segment begins (inline IR)
 *   the end        indirect jump/call: collect_on_indirect(rec, target)
 * The counts of instructions, reads, writes and taken branches are derived
 * from the counters after the run (collect_fold_counters()).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_tooliface.h"

#include "collector/collect.h"
#include "vgcommon/vg_memrefs.h"

typedef struct SbBuilder {
    IRSB *out;
    ULong *ctr;      /* this superblock's counters */
    XArray *items;   /* of CountItem */
    UInt seg;        /* exits passed so far */
    InstrRec *cur;   /* instruction of the latest IMark */
} SbBuilder;

static IRTemp assign(IRSB *out, IRType ty, IRExpr *e)
{
    IRTemp t = newIRTemp(out->tyenv, ty);
    addStmtToIRSB(out, IRStmt_WrTmp(t, e));
    return t;
}

static IRExpr *tmp(IRTemp t)
{
    return IRExpr_RdTmp(t);
}

/* *counter += amount, with `amount` an I64 atom. */
static void add_to_counter(IRSB *out, ULong *counter, IRExpr *amount)
{
    IRExpr *where = mkIRExpr_HWord((HWord)counter);
    IRTemp old = assign(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, where));
    IRTemp sum = assign(out, Ity_I64, IRExpr_Binop(Iop_Add64, tmp(old), amount));
    addStmtToIRSB(out, IRStmt_Store(Iend_LE, where, tmp(sum)));
}

static void add_item(SbBuilder *b, InstrRec *rec, ItemKind kind)
{
    CountItem item = {rec, b->seg, kind};
    VG_(addToXA)(b->items, &item);
}

static void call_helper(IRSB *out, const HChar *name, void *fn, Int regparms,
                        IRExpr **args, IRExpr *guard)
{
    IRDirty *d = unsafeIRDirty_0_N(regparms, name, VG_(fnptr_to_fnentry)(fn), args);
    if (guard)
        d->guard = guard;
    addStmtToIRSB(out, IRStmt_Dirty(d));
}

/* The fast-path test: an I1 temp that is true unless every byte of
 * [addr, addr+size) lies in collector.top_block, the block this thread
 * touched last (at the smallest block size).  Such a repeat has distance 0 at
 * every block size and changes no LRU stack, so the helper is skipped; the
 * skipped accesses are counted afterwards as executions minus helper calls. */
static IRExpr *needs_helper(IRSB *out, IRExpr *addr, Int size)
{
    IRExpr *shift = IRExpr_Const(IRConst_U8((UChar)collector.block_shift[0]));
    IRTemp top = assign(out, Ity_I64,
                        IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&collector.top_block)));
    IRTemp first = assign(out, Ity_I64, IRExpr_Binop(Iop_Shr64, addr, shift));
    IRTemp end = assign(out, Ity_I64, IRExpr_Binop(Iop_Add64, addr, mkIRExpr_HWord((HWord)size - 1)));
    IRTemp last = assign(out, Ity_I64, IRExpr_Binop(Iop_Shr64, tmp(end), shift));
    IRTemp dfirst = assign(out, Ity_I64, IRExpr_Binop(Iop_Xor64, tmp(first), tmp(top)));
    IRTemp dlast = assign(out, Ity_I64, IRExpr_Binop(Iop_Xor64, tmp(last), tmp(top)));
    IRTemp any = assign(out, Ity_I64, IRExpr_Binop(Iop_Or64, tmp(dfirst), tmp(dlast)));
    return tmp(assign(out, Ity_I1, IRExpr_Binop(Iop_CmpNE64, tmp(any), mkIRExpr_HWord(0))));
}

/* One memory access of the current instruction (a VgMemRefFn; ctx is the
 * SbBuilder).  `guard` is NULL for an access that happens whenever its
 * statement does. */
static void instrument_access(void *ctx, IRExpr *addr, Int size, Bool is_write, IRExpr *guard)
{
    SbBuilder *b = ctx;
    InstrRec *rec = b->cur;
    tl_assert(rec && size > 0);
    rec->accesses_memory = True;
    if (guard) { /* counted by the helper itself, so no fast path */
        IRExpr **args = mkIRExprVec_3(mkIRExpr_HWord((HWord)rec), addr,
                                      mkIRExpr_HWord((HWord)size * 2 + (is_write ? 1 : 0)));
        call_helper(b->out, "collect_on_guarded_access", collect_on_guarded_access, 3, args, guard);
        return;
    }
    add_item(b, rec, is_write ? ITEM_WRITE : ITEM_READ);
    IRExpr *go = needs_helper(b->out, addr, size);
    IRExpr **args = mkIRExprVec_3(mkIRExpr_HWord((HWord)rec), addr, mkIRExpr_HWord((HWord)size));
    call_helper(b->out, "collect_on_access", collect_on_access, 3, args, go);
}

/* A side exit: count it when taken, and if it is the current instruction's
 * conditional branch, remember how its taken count follows from the counter. */
static void instrument_exit(SbBuilder *b, IRStmt *st)
{
    IRExpr *taken = tmp(assign(b->out, Ity_I64, IRExpr_Unop(Iop_1Uto64, st->Ist.Exit.guard)));
    add_to_counter(b->out, &b->ctr[b->seg + 1], taken);
    InstrRec *rec = b->cur;
    if (rec && rec->is_cond_branch && st->Ist.Exit.jk == Ijk_Boring) {
        Addr dst = (Addr)st->Ist.Exit.dst->Ico.U64;
        add_item(b, rec, dst == rec->addr + rec->len ? ITEM_TAKEN_INVERTED : ITEM_TAKEN);
    }
}

static void instrument_stmt(SbBuilder *b, IRSB *in, IRStmt *st)
{
    switch (st->tag) {
    case Ist_IMark:
        b->cur = collect_instr((Addr)st->Ist.IMark.addr, st->Ist.IMark.len);
        add_item(b, b->cur, ITEM_EXEC);
        break;
    case Ist_Exit:
        instrument_exit(b, st);
        break;
    default:
        vg_memrefs(in, st, instrument_access, b);
        break;
    }
}

static UInt count_exits(IRSB *in)
{
    UInt n = 0;
    for (Int i = 0; i < in->stmts_used; i++)
        n += in->stmts[i]->tag == Ist_Exit;
    return n;
}

/* Keep the superblock's counters and count items for the end of the run. */
static void register_counters(SbBuilder *b, UInt nexits)
{
    SbCounters *sb = VG_(malloc)("augur.sb", sizeof *sb);
    sb->nexits = nexits;
    sb->ctr = b->ctr;
    sb->nitems = (UInt)VG_(sizeXA)(b->items);
    sb->items = VG_(malloc)("augur.sb.items", sizeof(CountItem) * (sb->nitems ? sb->nitems : 1));
    for (UInt i = 0; i < sb->nitems; i++)
        sb->items[i] = *(CountItem *)VG_(indexXA)(b->items, i);
    VG_(deleteXA)(b->items);
    sb->next_sb = collector.sbs;
    collector.sbs = sb;
}

IRSB *collect_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
                         const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
                         IRType gWordTy, IRType hWordTy)
{
    (void)closure, (void)layout, (void)vge, (void)archinfo_host;
    if (gWordTy != Ity_I64 || hWordTy != Ity_I64)
        VG_(tool_panic)("augur supports amd64 only");

    UInt nexits = count_exits(in);
    SbBuilder b = {
        .out = deepCopyIRSBExceptStmts(in),
        .ctr = VG_(calloc)("augur.sb.ctr", nexits + 1, sizeof(ULong)),
        .items = VG_(newXA)(VG_(malloc), "augur.sb.items", VG_(free), sizeof(CountItem)),
    };

    Int i = 0;
    for (; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; i++)
        addStmtToIRSB(b.out, in->stmts[i]); /* preamble */
    add_to_counter(b.out, &b.ctr[0], mkIRExpr_HWord(1));

    for (; i < in->stmts_used; i++) {
        IRStmt *st = in->stmts[i];
        if (!st || st->tag == Ist_NoOp)
            continue;
        instrument_stmt(&b, in, st);
        addStmtToIRSB(b.out, st);
        if (st->tag == Ist_Exit)
            b.seg++;
    }

    Bool indirect = in->next->tag != Iex_Const &&
                    (in->jumpkind == Ijk_Boring || in->jumpkind == Ijk_Call);
    if (indirect && b.cur) {
        IRExpr **args = mkIRExprVec_2(mkIRExpr_HWord((HWord)b.cur), in->next);
        call_helper(b.out, "collect_on_indirect", collect_on_indirect, 2, args, NULL);
    }
    register_counters(&b, nexits);
    return b.out;
}

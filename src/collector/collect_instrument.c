/* collect_instrument.c — the IR instrumentation pass of the augur tool.
 *
 * For each superblock Valgrind translates, read top to bottom:
 *   entry          ctr[0] += 1                               (inline IR)
 *   each IMark     note: instruction executes in this segment
 *   each access    if not a repeat of the thread's most recent block:
 *                      collect_on_access(rec, addr, size)    (guarded helper)
 *   each exit k    ctr[k+1] += guard; the next segment begins (inline IR)
 *   the end        indirect jump/call: collect_on_indirect(rec, target)
 * and for call edges (collect.h):
 *   entry          the first instruction has a function name and
 *                  collector.pending_call is set:
 *                      collect_on_enter(pending_call, rec)   (guarded helper)
 *   each exit k    a conditional tail call:
 *                      pending_call = guard ? rec : pending_call (inline IR)
 *   the end        a direct call to a named function: pending_call = 0 (its
 *                  edge follows from the counters); another call or a tail
 *                  call: pending_call = the instruction; a return:
 *                  pending_call = 0                          (inline IR)
 * and in glibc's lazy-binding resolver (collect.h):
 *   entry          resolve_call = pending_call, if set       (inline IR)
 *   indirect jump  pending_call = resolve_call               (inline IR)
 * and for regions and intervals (collect_regions.c), only when region or
 * interval functions are given (collector.gated):
 *   entry          ctr[0] += collector.counting instead of 1; each exit k
 *                  ctr[k+1] += guard & counting                 (inline IR)
 *   entry of a     collect_on_region_enter / _interval_enter(pattern, SP)
 *   named function (helper, after the call-edge helper)
 *   a return       collect_on_return(SP) when SP is above a region's or
 *                  an interval function's entry                 (guarded helper)
 * Translations made while the program has the instrumentation stopped
 * (STOP_INSTRUMENTATION, --instr-at-start=no) are left plain.
 * The counts of instructions, reads, writes and taken branches are derived
 * from the counters afterwards (collect_take_counts()).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_tooliface.h"

#include "collector/collect.h"
#include "vgcommon/vg_memrefs.h"
#include "vgcommon/vg_random.h"

typedef struct SbBuilder {
    IRSB *out;
    ULong *ctr;      /* this superblock's counters */
    XArray *items;   /* of CountItem */
    UInt seg;        /* exits passed so far */
    InstrRec *cur;   /* instruction of the latest IMark */
    IRExpr *counting; /* gated: collector.counting as an I64 atom, read at entry; else NULL */
    Int sp_offset;   /* the guest stack pointer's offset in the guest state */
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

/* *where = value (an I64 atom). */
static void store_word(IRSB *out, HWord *where, IRExpr *value)
{
    addStmtToIRSB(out, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)where), value));
}

static IRExpr *load_word(IRSB *out, HWord *where)
{
    return tmp(assign(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)where))));
}

/* The block of byte address `a` at block size i (an I64 atom). */
static IRExpr *block_at(IRSB *out, IRExpr *a, UInt i)
{
    IRExpr *shift = IRExpr_Const(IRConst_U8((UChar)collector.block_shift[i]));
    return tmp(assign(out, Ity_I64, IRExpr_Binop(Iop_Shr64, a, shift)));
}

/* An I1 temp: is either of `first`, `last` not `block`? */
static IRExpr *differs(IRSB *out, IRExpr *first, IRExpr *last, IRExpr *block)
{
    IRTemp dfirst = assign(out, Ity_I64, IRExpr_Binop(Iop_Xor64, first, block));
    IRTemp dlast = assign(out, Ity_I64, IRExpr_Binop(Iop_Xor64, last, block));
    IRTemp any = assign(out, Ity_I64, IRExpr_Binop(Iop_Or64, tmp(dfirst), tmp(dlast)));
    return tmp(assign(out, Ity_I1, IRExpr_Binop(Iop_CmpNE64, tmp(any), mkIRExpr_HWord(0))));
}

/* One memory access of the current instruction (a VgMemRefFn; ctx is the
 * SbBuilder).  `guard` is NULL for an access that happens whenever its
 * statement does.  An unguarded access reaches the helper unless every
 * byte of [addr, addr+size) lies in collector.top_block, the block this
 * thread touched last at the smallest block size (the fast path: such a
 * repeat has distance 0 at every block size and changes no LRU stack; the
 * skipped accesses are counted afterwards as executions minus helper
 * calls). */
static void instrument_access(void *ctx, IRExpr *addr, Int size, Bool is_write, IRExpr *guard)
{
    SbBuilder *b = ctx;
    IRSB *out = b->out;
    InstrRec *rec = b->cur;
    tl_assert(rec && size > 0);
    rec->accesses_memory = True;
    if (guard) { /* counted by the helper itself, so no fast path */
        IRExpr **args = mkIRExprVec_3(mkIRExpr_HWord((HWord)rec), addr,
                                      mkIRExpr_HWord((HWord)size * 2 + (is_write ? 1 : 0)));
        call_helper(out, "collect_on_guarded_access", collect_on_guarded_access, 3, args, guard);
        return;
    }
    add_item(b, rec, is_write ? ITEM_WRITE : ITEM_READ);
    IRExpr *first = block_at(out, addr, 0);
    IRExpr *end = tmp(assign(out, Ity_I64, IRExpr_Binop(Iop_Add64, addr, mkIRExpr_HWord((HWord)size - 1))));
    IRExpr *last = block_at(out, end, 0);
    IRExpr *go = differs(out, first, last, load_word(out, (HWord *)&collector.top_block));
    IRExpr **args = mkIRExprVec_3(mkIRExpr_HWord((HWord)rec), addr, mkIRExpr_HWord((HWord)size));
    call_helper(out, "collect_on_access", collect_on_access, 3, args, go);
}

/* Does code at `target` belong to a named function? */
static Bool names_function(Addr target)
{
    const HChar *name;
    return VG_(get_fnname)(VG_(current_DiEpoch)(), target, &name);
}

/* Is a jump from the named instruction rec to `target` a tail call: into
 * code without a name (a PLT stub, passed through to the function it
 * reaches) or to the entry of another named function? */
static Bool tail_call_target(const InstrRec *rec, Addr target)
{
    DiEpoch ep = VG_(current_DiEpoch)();
    const HChar *name;
    if (!names_function(target))
        return True;
    return VG_(get_fnname_if_entry)(ep, target, &name) &&
           VG_(strcmp)(name, vgn_fn_name(&collector.names, rec->fn)) != 0;
}

/* A side exit: count it when taken, and if it is the current instruction's
 * conditional branch, remember how its taken count follows from the
 * counter; a conditional tail call waits for its callee when taken. */
static void instrument_exit(SbBuilder *b, IRStmt *st)
{
    IRExpr *taken = tmp(assign(b->out, Ity_I64, IRExpr_Unop(Iop_1Uto64, st->Ist.Exit.guard)));
    if (b->counting)
        taken = tmp(assign(b->out, Ity_I64, IRExpr_Binop(Iop_And64, taken, b->counting)));
    add_to_counter(b->out, &b->ctr[b->seg + 1], taken);
    InstrRec *rec = b->cur;
    if (!rec || st->Ist.Exit.jk != Ijk_Boring)
        return;
    Addr dst = (Addr)st->Ist.Exit.dst->Ico.U64;
    if (rec->is_cond_branch)
        add_item(b, rec, dst == rec->addr + rec->len ? ITEM_TAKEN_INVERTED : ITEM_TAKEN);
    if (rec->fn >= 0 && tail_call_target(rec, dst)) {
        rec->tail_jump = True;
        IRExpr *was = load_word(b->out, &collector.pending_call);
        store_word(b->out, &collector.pending_call,
                   tmp(assign(b->out, Ity_I64, IRExpr_ITE(st->Ist.Exit.guard, mkIRExpr_HWord((HWord)rec), was))));
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

/* Is rec in glibc's lazy-binding resolver (_dl_runtime_resolve_xsave,
 * _xsavec, _fxsave), which jumps to the function it resolved? */
static Bool in_lazy_resolver(const InstrRec *rec)
{
    static const HChar prefix[] = "_dl_runtime_resolve";
    return rec && rec->fn >= 0 &&
           VG_(strncmp)(vgn_fn_name(&collector.names, rec->fn), prefix, sizeof prefix - 1) == 0;
}

/* Entry of a superblock whose first instruction `first` belongs to a named
 * function: if a call of this thread is waiting for its callee, this is it
 * (and if `first` is in the resolver, the call waits again for the function
 * the resolver jumps to). */
static void instrument_entry(SbBuilder *b, InstrRec *first)
{
    if (first->fn < 0) /* unnamed code (a PLT stub) passes the call on */
        return;
    IRExpr *call = load_word(b->out, &collector.pending_call);
    IRExpr *waiting = tmp(assign(b->out, Ity_I1, IRExpr_Binop(Iop_CmpNE64, call, mkIRExpr_HWord(0))));
    if (in_lazy_resolver(first)) {
        IRExpr *kept = load_word(b->out, &collector.resolve_call);
        store_word(b->out, &collector.resolve_call,
                   tmp(assign(b->out, Ity_I64, IRExpr_ITE(waiting, call, kept))));
    }
    const HChar *name;
    UWord is_entry = VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), first->addr, &name);
    IRExpr **args = mkIRExprVec_3(call, mkIRExpr_HWord((HWord)first), mkIRExpr_HWord(is_entry));
    call_helper(b->out, "collect_on_enter", collect_on_enter, 3, args, waiting);
}

static IRExpr *guest_sp(SbBuilder *b)
{
    return tmp(assign(b->out, Ity_I64, IRExpr_Get(b->sp_offset, Ity_I64)));
}

/* Entry of a superblock that starts a region or interval function: the
 * helper notes the stack pointer (collect_regions.c).  Before the counter
 * of the superblock reads collector.counting, so the function's first
 * block counts as the rest of it. */
static void instrument_region_entry(SbBuilder *b, InstrRec *first)
{
    Int p = collect_region_fn_at(first);
    if (p >= 0)
        call_helper(b->out, "collect_on_region_enter", collect_on_region_enter, 2,
                    mkIRExprVec_2(mkIRExpr_HWord((HWord)p), guest_sp(b)), NULL);
    p = collect_interval_fn_at(first);
    if (p >= 0)
        call_helper(b->out, "collect_on_interval_enter", collect_on_interval_enter, 2,
                    mkIRExprVec_2(mkIRExpr_HWord((HWord)p), guest_sp(b)), NULL);
}

/* The end of a superblock that returns: when the stack pointer, the ret
 * done, is above a region's or an interval function's entry, that call
 * has ended. */
static void instrument_region_return(SbBuilder *b)
{
    IRExpr *sp = guest_sp(b);
    IRExpr *above[2];
    HWord *entry_sp[2] = {&collector.region_sp, &collector.skip_sp};
    for (UInt i = 0; i < 2; i++) {
        IRExpr *e = load_word(b->out, entry_sp[i]);
        IRExpr *set = tmp(assign(b->out, Ity_I1, IRExpr_Binop(Iop_CmpNE64, e, mkIRExpr_HWord(0))));
        IRExpr *lt = tmp(assign(b->out, Ity_I1, IRExpr_Binop(Iop_CmpLT64U, e, sp)));
        above[i] = tmp(assign(b->out, Ity_I1, IRExpr_Binop(Iop_And1, set, lt)));
    }
    IRExpr *any = tmp(assign(b->out, Ity_I1, IRExpr_Binop(Iop_Or1, above[0], above[1])));
    call_helper(b->out, "collect_on_return", collect_on_return, 1, mkIRExprVec_1(sp), any);
}

/* End of a superblock: a call or tail call leaves its instruction waiting
 * for the callee; a return ends any wait (the callee never reached named
 * code); the resolver's indirect jump to the function it resolved makes
 * the call that entered it wait for that function.  Jumps in unnamed code
 * (a PLT stub) leave the wait as it is. */
static void instrument_call_or_return(SbBuilder *b, IRSB *in, InstrRec *first)
{
    InstrRec *rec = b->cur;
    Bool indirect = in->next->tag != Iex_Const;
    if (in->jumpkind == Ijk_Ret) {
        store_word(b->out, &collector.pending_call, mkIRExpr_HWord(0));
        return;
    }
    if (!rec || (in->jumpkind != Ijk_Call && in->jumpkind != Ijk_Boring))
        return;
    if (in->jumpkind == Ijk_Boring) {
        if (indirect && in_lazy_resolver(first)) {
            store_word(b->out, &collector.pending_call, load_word(b->out, &collector.resolve_call));
            return;
        }
        if (rec->fn < 0 || (!indirect && !tail_call_target(rec, (Addr)in->next->Iex.Const.con->Ico.U64)))
            return;
        rec->tail_jump = True;
    } else if (!indirect && names_function((Addr)in->next->Iex.Const.con->Ico.U64)) {
        rec->direct_callee = (Addr)in->next->Iex.Const.con->Ico.U64; /* counted at the end */
        store_word(b->out, &collector.pending_call, mkIRExpr_HWord(0));
        return;
    }
    store_word(b->out, &collector.pending_call, mkIRExpr_HWord((HWord)rec));
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
    vg_fixed_random(); /* before the program's first block: the same run, the same references */
    (void)closure, (void)vge, (void)archinfo_host;
    if (gWordTy != Ity_I64 || hWordTy != Ity_I64)
        VG_(tool_panic)("augur supports amd64 only");
    if (!collector.instrumenting)
        return in; /* outside a region of interest (collect_regions.c) */

    UInt nexits = count_exits(in);
    SbBuilder b = {
        .out = deepCopyIRSBExceptStmts(in),
        .ctr = VG_(calloc)("augur.sb.ctr", nexits + 1, sizeof(ULong)),
        .items = VG_(newXA)(VG_(malloc), "augur.sb.items", VG_(free), sizeof(CountItem)),
        .sp_offset = layout->offset_SP,
    };

    Int i = 0;
    for (; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; i++)
        addStmtToIRSB(b.out, in->stmts[i]); /* preamble */
    InstrRec *first = NULL;
    if (i < in->stmts_used) {
        first = collect_instr((Addr)in->stmts[i]->Ist.IMark.addr, in->stmts[i]->Ist.IMark.len);
        instrument_entry(&b, first);
        if (collector.gated)
            instrument_region_entry(&b, first);
    }
    if (collector.gated)
        b.counting = load_word(b.out, &collector.counting);
    add_to_counter(b.out, &b.ctr[0], b.counting ? b.counting : mkIRExpr_HWord(1));

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
    instrument_call_or_return(&b, in, first);
    if (collector.gated && in->jumpkind == Ijk_Ret)
        instrument_region_return(&b);
    register_counters(&b, nexits);
    return b.out;
}

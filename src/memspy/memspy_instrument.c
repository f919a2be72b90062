/* memspy_instrument.c — the IR instrumentation pass of the memspy tool.
 *
 * Every data reference of every guest instruction appends one entry
 * (site, addr) to the running thread's buffer (memspy_buffer.c), inline,
 * before the statement that makes it, as Lackey and Cachegrind place their
 * calls: loads, stores, guarded loads and stores (the entry counts only
 * when the guard holds), dirty helpers that touch memory, CAS (a read then
 * a write) and LL/SC.  `site` is one constant: the instruction's CodeRec,
 * created here with its names at the instruction's first reference
 * (instructions that touch no memory get none), and size*2 + is_write.
 *
 * Per superblock, not per reference: its first reference checks that the
 * buffer has room for all K references the superblock can make (a guarded
 * call of memspy_flush when not) and loads the cursor into a
 * temporary; each append then is two stores and an add; the cursor is
 * stored back before every side exit and at the end.  Nothing else in a
 * superblock flushes the buffer (time sampling below makes no call), so the
 * temporary stays right.
 *
 * K is not bounded below MEMSPY_SB_REFS, the room buffers have past their
 * end: a superblock holds at most 100 guest instructions (VEX's
 * guest_max_insns, 1..100, across all its extents), but one instruction can
 * make over 100 references (an xsave with AVX state: 108, measured), and
 * 100 * 108 > 4096.  VEX runs out of its 5 MB of IR storage first (at ~20
 * xsaves in one superblock, even under --tool=none: measured), which is no
 * documented bound; so a superblock of more references reserves in pieces
 * of at most memspy.sb_reserve (MEMSPY_SB_REFS; --sb-reserve=N to test),
 * each with its own flush check, storing the cursor before it.
 *
 * Sampling that can be decided without the simulator is decided here, in
 * IR, in front of the append, so that a reference that is not simulated
 * costs a few inline instructions and no entry: time sampling's stretches
 * (a countdown in memspy.sample_left; the reference that ends an ON stretch
 * appends a sample marker instead) and, alone, set sampling's other sets (a
 * mask test; the references made count in memspy.set_refs, by a constant
 * per straight stretch of the superblock).  Like the cursor, the counter
 * lives in a temporary from the superblock's first reference on and is
 * stored back with it, so a skipped reference costs register arithmetic
 * only, no load and store.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_machine.h"
#include "pub_tool_tooliface.h"

#include "memspy/memspy.h"
#include "vgcommon/vg_memrefs.h"
#include "vgcommon/vg_random.h"

/* A 64-bit tool global that the superblock keeps in a temporary from its
 * first reference on (reserve), stored back before each side exit, each
 * reservation past the first and at the end (commit). */
typedef struct Mirror {
    void *at;    /* NULL: not kept */
    IRExpr *val; /* NULL until loaded */
} Mirror;

/* The superblock being built and the instruction whose statements follow. */
typedef struct SbBuilder {
    IRSB *out;
    Addr ip;       /* of the latest IMark */
    CodeRec *code; /* its record, NULL until it references memory */
    UInt unreserved; /* references the superblock makes with no room reserved yet */
    UInt room;       /* references the current reservation has room for */
    Mirror cur;      /* the buffer cursor, memspy.buf_cur */
    /* The sampling counters, in a register rather than a load and a store
     * per reference: time sampling's countdown, or under set sampling the
     * references made, to which the unguarded ones since the last commit
     * are added there (a constant), the guarded ones as they happen. */
    Mirror sample_left, set_refs;
    UInt unguarded;
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

/* A temporary holding the 64-bit tool global at `at`, as it is now. */
static IRExpr *load_u64(IRSB *out, const void *at)
{
    return bind(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)at)));
}

/* Load mirror m's global into its temporary (when it has one). */
static void mirror_load(IRSB *out, Mirror *m)
{
    if (m->at)
        m->val = load_u64(out, m->at);
}

/* Store mirror m's temporary back to its global (once loaded). */
static void mirror_store(IRSB *out, const Mirror *m)
{
    if (m->val)
        addStmtToIRSB(out, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)m->at), m->val));
}

/* m += 1 when `cond` (may be NULL: always true) holds; branch-free: the
 * step is cond widened to 0 or 1. */
static void mirror_count(IRSB *out, Mirror *m, IRExpr *cond)
{
    IRExpr *one = cond ? bind(out, Ity_I64, IRExpr_Unop(Iop_1Uto64, cond))
                       : IRExpr_Const(IRConst_U64(1));
    m->val = bind(out, Ity_I64, IRExpr_Binop(Iop_Add64, m->val, one));
}

static IRExpr *u64(ULong v)
{
    return IRExpr_Const(IRConst_U64(v));
}

/* Time sampling in IR: one countdown, memspy.sample_left, through each
 * period of ON + OFF references.  Above OFF the reference is appended; at
 * OFF it is the first of the OFF stretch and appends a sample marker
 * (*site = REF_SAMPLE_MARK: the flush counts the stretch skipped and starts
 * a new sample after it); below, it is skipped.  At 1 the count starts
 * again from ON + OFF.  Returns the condition for appending. */
static IRExpr *time_sampling_guard(SbBuilder *b, IRExpr *guard, IRExpr **site)
{
    Memspy *m = &memspy;
    IRSB *out = b->out;
    IRExpr *left = b->sample_left.val;
    IRExpr *next = bind(out, Ity_I64, IRExpr_ITE(bind(out, Ity_I1, IRExpr_Binop(Iop_CmpEQ64, left, u64(1))),
                                                 u64(m->sample_on + m->sample_off),
                                                 bind(out, Ity_I64, IRExpr_Binop(Iop_Sub64, left, u64(1)))));
    if (guard)
        next = bind(out, Ity_I64, IRExpr_ITE(guard, next, left));
    b->sample_left.val = next;
    IRExpr *marker = bind(out, Ity_I1, IRExpr_Binop(Iop_CmpEQ64, left, u64(m->sample_off)));
    *site = bind(out, Ity_I64, IRExpr_ITE(marker, u64(REF_SAMPLE_MARK), *site));
    IRExpr *on = bind(out, Ity_I1, IRExpr_Binop(Iop_CmpLE64U, u64(m->sample_off), left));
    return and_guard(out, guard, on);
}

/* Whether the shadows sample the line of addr, in IR: the top bits of
 * (addr >> line_shift) * MS_SHADOW_HASH are zero (ms_shadow_sampled). */
static IRExpr *shadow_sampled(IRSB *out, IRExpr *addr)
{
    const ms_fast *f = (const ms_fast *)(void *)memspy.sim;
    IRExpr *block = bind(out, Ity_I64, IRExpr_Binop(Iop_Shr64, addr, IRExpr_Const(IRConst_U8(f->line_shift))));
    IRExpr *hash = bind(out, Ity_I64, IRExpr_Binop(Iop_Mul64, block, u64(MS_SHADOW_HASH)));
    IRExpr *top = bind(out, Ity_I64,
                       IRExpr_Binop(Iop_Shr64, hash, IRExpr_Const(IRConst_U8((UChar)(64 - f->shadow_log2)))));
    return bind(out, Ity_I1, IRExpr_Binop(Iop_CmpEQ64, top, u64(0)));
}

/* Set sampling in IR: a reference is appended when its first line is
 * sampled (block & (N-1) == 0, the simulator's own rule, tested on the
 * address as addr & ((N-1) * line) == 0), or when the shadows sample it
 * (they take lines from every set: memsim.h, shadow sampling); every
 * reference counts in memspy.set_refs, and the skipped ones are that less
 * the entries appended (memspy_skipped) plus the appended ones outside
 * the sampled sets (counted when simulated). */
static IRExpr *set_sampling_guard(SbBuilder *b, IRExpr *addr, IRExpr *guard)
{
    IRSB *out = b->out;
    if (guard)
        mirror_count(out, &b->set_refs, guard);
    else
        b->unguarded++;
    ULong bits = (ULong)(memspy.config.set_sample - 1) * memspy.config.level[0].line;
    IRExpr *set = bind(out, Ity_I64, IRExpr_Binop(Iop_And64, addr, u64(bits)));
    IRExpr *in_set = bind(out, Ity_I1, IRExpr_Binop(Iop_CmpEQ64, set, u64(0)));
    IRExpr *either = bind(out, Ity_I1, IRExpr_Binop(Iop_Or1, in_set, shadow_sampled(out, addr)));
    return and_guard(out, guard, either);
}

/* The condition under which a reference at addr is appended (NULL:
 * always): the statement's own guard, and the sampling that can be decided
 * in IR, which may replace *site by a marker.  Set sampling is tested here only without time sampling, whose ON
 * stretches count every reference (the simulator skips other sets). */
static IRExpr *append_guard(SbBuilder *b, IRExpr *addr, IRExpr *guard, IRExpr **site)
{
    if (b->sample_left.at)
        return time_sampling_guard(b, guard, site);
    if (b->set_refs.at)
        return set_sampling_guard(b, addr, guard);
    return guard;
}

/* *(cur + off) = data, cur an I64 address. */
static void store_at(IRSB *out, IRExpr *cur, ULong off, IRExpr *data)
{
    IRExpr *at = off ? bind(out, Ity_I64, IRExpr_Binop(Iop_Add64, cur, u64(off))) : cur;
    addStmtToIRSB(out, IRStmt_Store(Iend_LE, at, data));
}

/* Store the mirrors back (before a side exit, a reservation past the
 * first, and at the end). */
static void commit(SbBuilder *b)
{
    mirror_store(b->out, &b->cur);
    if (b->unguarded) {
        b->set_refs.val = bind(b->out, Ity_I64, IRExpr_Binop(Iop_Add64, b->set_refs.val, u64(b->unguarded)));
        b->unguarded = 0;
    }
    mirror_store(b->out, &b->sample_left);
    mirror_store(b->out, &b->set_refs);
}

/* The superblock's first reference, or the first past its reservation:
 * store the cursor (if taken), flush unless the buffer has room for the
 * next min(b->unreserved, memspy.sb_reserve) references, then take the
 * cursor into a temporary. */
static void reserve(SbBuilder *b)
{
    commit(b);
    UInt refs = b->unreserved < memspy.sb_reserve ? b->unreserved : memspy.sb_reserve;
    b->unreserved -= refs;
    b->room = refs;
    IRExpr *cur = load_u64(b->out, &memspy.buf_cur), *end = load_u64(b->out, &memspy.buf_end);
    /* cur > end - refs: a buffer shorter than a superblock (--buffer=1) is
     * past its end after one, and end - cur would wrap around. */
    IRExpr *limit = bind(b->out, Ity_I64, IRExpr_Binop(Iop_Sub64, end, u64((ULong)refs * sizeof(RefEntry))));
    IRExpr *full = bind(b->out, Ity_I1, IRExpr_Binop(Iop_CmpLT64U, limit, cur));
    IRDirty *d = unsafeIRDirty_0_N(0, "memspy_flush", VG_(fnptr_to_fnentry)(memspy_flush), mkIRExprVec_0());
    d->guard = full;
    addStmtToIRSB(b->out, IRStmt_Dirty(d));
    mirror_load(b->out, &b->cur); /* after the call */
    mirror_load(b->out, &b->sample_left);
    mirror_load(b->out, &b->set_refs);
}

/* Append (site, addr) when `guard` holds (NULL: always), branch-free: the
 * entry is always written at the cursor, which has room (reserve), and the
 * cursor advances by one entry only if guard holds (a conditional move). */
static void append_entry(SbBuilder *b, IRExpr *site, IRExpr *addr, IRExpr *guard)
{
    b->room--;
    store_at(b->out, b->cur.val, offsetof(RefEntry, site), site);
    store_at(b->out, b->cur.val, offsetof(RefEntry, addr), addr);
    IRExpr *next = bind(b->out, Ity_I64, IRExpr_Binop(Iop_Add64, b->cur.val, u64(sizeof(RefEntry))));
    b->cur.val = guard ? bind(b->out, Ity_I64, IRExpr_ITE(guard, next, b->cur.val)) : next;
}

/* A VgMemRefFn: ctx is the SbBuilder. */
static void instrument_access(void *ctx, IRExpr *addr, Int size, Bool is_write, IRExpr *guard)
{
    SbBuilder *b = ctx;
    tl_assert(size > 0 && size < (1 << (63 - REF_SITE_SHIFT)));
    if (!b->code)
        b->code = memspy_code(b->ip);
    tl_assert(((UWord)b->code & ~REF_CODE_MASK) == 0);
    IRExpr *site = u64(((UWord)size * 2 + (is_write ? 1 : 0)) << REF_SITE_SHIFT | (UWord)b->code);
    if (b->room == 0)
        reserve(b); /* before the sampling guard, which uses the mirrors it loads */
    guard = append_guard(b, addr, guard, &site);
    append_entry(b, site, addr, guard);
}

/* A VgMemRefFn that only counts (ctx: a UInt). */
static void count_access(void *ctx, IRExpr *addr, Int size, Bool is_write, IRExpr *guard)
{
    (void)addr, (void)size, (void)is_write, (void)guard;
    (*(UInt *)ctx)++;
}

/* The references the statements of `in` make. */
static UInt count_refs(IRSB *in)
{
    UInt n = 0;
    for (Int i = 0; i < in->stmts_used; i++)
        if (in->stmts[i] && in->stmts[i]->tag != Ist_IMark)
            vg_memrefs(in, in->stmts[i], count_access, &n);
    return n;
}

/* Add the entries for the references `st` makes. */
static void instrument_stmt(SbBuilder *b, IRSB *in, IRStmt *st)
{
    switch (st->tag) {
    case Ist_IMark:
        b->ip = (Addr)st->Ist.IMark.addr;
        b->code = NULL;
        break;
    case Ist_Exit:
        commit(b); /* the entries made so far, if the exit is taken */
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
    vg_fixed_random(); /* before the program's first block: the same run, the same references */
    (void)closure, (void)layout, (void)vge, (void)archinfo_host;
    if (gWordTy != Ity_I64 || hWordTy != Ity_I64)
        VG_(tool_panic)("memspy supports amd64 only");
    if (!memspy.instrumenting)
        return in; /* outside a region of interest (memspy_regions.c) */

    SbBuilder b = {.out = deepCopyIRSBExceptStmts(in), .unreserved = count_refs(in),
                   .cur = {.at = &memspy.buf_cur}};
    if (memspy.sample_on)
        b.sample_left.at = &memspy.sample_left;
    else if (memspy_sets_in_ir())
        b.set_refs.at = &memspy.set_refs;
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
    commit(&b);
    return b.out;
}

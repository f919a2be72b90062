/* memspy_pipe.c — the tool's side of `augur memspy --analysis pipe`: the
 * buffered references go, with the data object each belongs to, to
 * augur's simulator consumer (src/rdpipe/spy_consumer.c, the protocol in
 * spy_proto.h) through the ring of shared memory collect's pipe uses
 * (src/vgcommon/vg_ring.h), and the consumer simulates and counts them on
 * another core; before the file is written (at the end, or before an
 * exec) the tool asks for the counts and adds them to its pairs,
 * evictions and threads, so that memspy_output.c writes what it would have
 * written inline.  docs/memspy.md, "Simulation off the program's core".
 *
 * The object lookup stays here, where the heap blocks, symbols and stacks
 * are known, in the order the inline simulation makes it (objects are
 * numbered as they are first met).  Time sampling's markers stay here too
 * (the skipped stretch is counted where it is decided); the consumer is
 * told where each sample starts.  A forked child cannot share the channel
 * (its references would mix with its parent's): it simulates inline from
 * the fork on, with caches empty (memspy.sim, which the parent never fed).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_xarray.h"

#include "memspy/memspy.h"
#include "rdpipe/spy_proto.h"

/* --augur-channel as given. */
static VgRingOption option;

Bool memspy_pipe_option(const HChar *value)
{
    return vg_ring_option(&option, value);
}

/* The configuration record and its payload (spy_proto.h). */
static void send_config(VgRing *r)
{
    spy_config cfg;
    VG_(memset)(&cfg, 0, sizeof cfg);
    cfg.sim = memspy.config;
    cfg.groups = memspy_sets_in_ir();
    cfg.group_shift = memspy.group_shift;
    vg_ring_put(r, RDP_CONTROL, sizeof cfg, SPY_CONFIG);
    for (SizeT at = 0; at < sizeof cfg; at += sizeof(rdp_rec)) {
        rdp_rec rec;
        VG_(memset)(&rec, 0, sizeof rec);
        VG_(memcpy)(&rec, (const HChar *)&cfg + at, sizeof cfg - at < sizeof rec ? sizeof cfg - at : sizeof rec);
        vg_ring_put(r, rec.instr, rec.addr, rec.size);
    }
}

void memspy_pipe_init(void)
{
    Memspy *m = &memspy;
    VgRing r;
    if (!vg_ring_open(&r, &option, "the simulator's consumer",
                      "no file is written; augur memspy says why it ended"))
        return; /* inline */
    m->channel = VG_(malloc)("memspy.channel", sizeof *m->channel);
    *m->channel = r;
    m->code_by_id = VG_(newXA)(VG_(malloc), "memspy.code_by_id", VG_(free), sizeof(CodeRec *));
    m->sent_thread = UINT32_MAX;
    send_config(m->channel);
}

void memspy_pipe_register(CodeRec *code)
{
    Memspy *m = &memspy;
    code->id = (UInt)VG_(sizeXA)(m->code_by_id);
    tl_assert(code->id < RDP_CONTROL);
    VG_(addToXA)(m->code_by_id, &code);
}

void memspy_pipe_run(const RefBuf *b, const RefEntry *from, const RefEntry *to)
{
    Memspy *m = &memspy;
    VgRing *r = m->channel;
    if (b->thread != m->sent_thread && from < to) {
        vg_ring_put(r, RDP_CONTROL, b->thread, SPY_THREAD);
        m->sent_thread = b->thread;
    }
    for (const RefEntry *e = from; e < to; e++) {
        if (UNLIKELY(e->site == REF_SAMPLE_MARK)) {
            m->skipped += m->sample_off; /* the whole stretch; see memspy_access.c's gap_left */
            vg_ring_put(r, RDP_CONTROL, 0, SPY_SAMPLE);
            continue;
        }
        CodeRec *code = (CodeRec *)(e->site & REF_CODE_MASK);
        UInt obj = memspy_object_of(code, e->addr, &b->stack);
        if (UNLIKELY(e->addr >> 48))
            vg_ring_put(r, RDP_CONTROL, e->addr >> 48, SPY_HIGH);
        vg_ring_put(r, code->id, (ULong)e->addr << SPY_ADDR_SHIFT | e->site >> REF_SITE_SHIFT, obj);
    }
}

/* Read the pairs of a flush's answer into the tool's. */
static void merge_pairs(VgRing *r)
{
    Memspy *m = &memspy;
    ULong groups[CS_MAX_LEVELS][MS_SET_GROUPS];
    for (;;) {
        spy_pair p;
        vg_ring_read(r, &p, sizeof p);
        if (p.code == RDP_CONTROL)
            return;
        if (p.code >= VG_(sizeXA)(m->code_by_id) || p.obj >= memspy_nobjs())
            vg_ring_lost(r, "it answered with an instruction or object the tool has not");
        if (p.groups)
            vg_ring_read(r, groups, sizeof groups);
        memspy_pairs_merge(*(CodeRec **)VG_(indexXA)(m->code_by_id, p.code), p.obj, &p.n,
                           p.groups ? groups : NULL);
    }
}

void memspy_pipe_flush(void)
{
    Memspy *m = &memspy;
    VgRing *r = m->channel;
    vg_ring_request(r, SPY_FLUSH, 0);
    merge_pairs(r);
    for (;;) {
        spy_evict e;
        vg_ring_read(r, &e, sizeof e);
        if (e.key == UINT64_MAX)
            break;
        memspy_evictions_add(e.key, e.count);
    }
    ms_totals t[MS_MAX_THREADS];
    ULong skipped;
    vg_ring_read(r, t, sizeof t);
    vg_ring_read(r, &skipped, sizeof skipped);
    vg_ring_answered(r);
    for (UInt k = 0; k < MS_MAX_THREADS; k++)
        ms_totals_add(&m->thread[k], &t[k]);
    m->skipped += skipped;
}

void memspy_pipe_fork_child(void)
{
    Memspy *m = &memspy;
    vg_ring_close(m->channel);
    VG_(free)(m->channel);
    VG_(deleteXA)(m->code_by_id);
    m->channel = NULL;
    m->code_by_id = NULL;
}

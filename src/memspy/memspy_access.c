/* memspy_access.c — what a data reference costs when its buffer is
 * flushed (memspy_buffer.c), and time sampling's stretches.
 *
 * memspy_simulate_run, for each buffered reference in turn:
 *   1. the data object the address belongs to (memspy_objects.c), with the
 *      stack of the thread that made the reference;
 *   2. the simulator, on behalf of that thread, with the object as the tag
 *      its lines keep (so a later eviction names it);
 *   3. the counters of the pair, the evictions and the thread
 *      (memspy_pairs.c); a reference outside the sampled sets is skipped.
 * Time sampling: the instrumented code counts ON and OFF stretches itself
 * (memspy_instrument.c) and appends a marker entry for the reference that
 * ends an ON stretch; before the next reference the simulator is told that
 * a new sample begins (ms_sample_start), so that it flags misses it cannot
 * vouch for.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_options.h"

#include "memspy/memspy.h"
#include "vgcommon/vg_alloc.h"

Bool memspy_access_init(void)
{
    const char *error = NULL;
    memspy.alloc = vg_rd_allocator("memspy.sim");
    memspy.sim = ms_new(&memspy.config, &memspy.alloc, &error);
    if (!memspy.sim) {
        VG_(fmsg_bad_option)("--level, --sample-sets or --shadow-sample", "the cache hierarchy cannot be "
                             "simulated: %s\n", error ? error : "bad configuration");
        return False;
    }
    memspy.sample_left = memspy.sample_on + memspy.sample_off;
    /* line and set_sample are powers of two (ms_new checked) */
    memspy.group_shift = (UInt)__builtin_ctzll((ULong)memspy.config.level[0].line * memspy.config.set_sample);
    return True;
}

/* The references of the OFF stretch under way not yet made (counted in
 * memspy.skipped at its marker). */
static ULong gap_left(void)
{
    return memspy.sample_left < memspy.sample_off ? memspy.sample_left : 0;
}

ULong memspy_skipped(void)
{
    return memspy.skipped - gap_left() + (memspy.set_refs - memspy.set_appended);
}

void memspy_access_reset(void)
{
    memspy.skipped = gap_left(); /* cancels out in memspy_skipped() */
    memspy.set_refs = memspy.set_appended = 0;
}

/* One reference of instruction `code` made by simulator thread `thread`
 * whose stack was `stack`: bit 0 of size_and_write is 1 for a write, the
 * rest is the size in bytes. */
static inline void simulate(CodeRec *code, Addr addr, UWord size_and_write, UInt thread,
                            const StackRange *stack)
{
    Memspy *m = &memspy;
    Bool is_write = size_and_write & 1;
    UInt obj = memspy_object_of(code, addr, stack);
    ms_result r;
    PairRec *p = code->pairs;
    if (LIKELY(ms_access(m->sim, thread, addr, (uint32_t)(size_and_write >> 1), is_write, obj, &r) && p &&
               p->obj == obj)) {
        memspy_count_ref(p, &m->thread[thread], is_write); /* the usual case */
        return;
    }
    if (!r.sampled) {
        m->skipped++;
        return;
    }
    memspy_count(code, obj, thread, is_write, addr, &r);
}

void memspy_simulate_run(const RefBuf *b, const RefEntry *from, const RefEntry *to)
{
    Memspy *m = &memspy;
    if (memspy_sets_in_ir())
        m->set_appended += (ULong)(to - from); /* no markers without time sampling */
    if (UNLIKELY(!m->simulate)) {
        m->unsimulated += (ULong)(to - from);
        ULong mask = (ULong)(m->config.set_sample - 1) * m->config.level[0].line;
        for (const RefEntry *e = from; e < to; e++)
            m->unsimulated_in_sets += e->site != REF_SAMPLE_MARK && (e->addr & mask) == 0;
        return;
    }
    if (m->channel) {
        memspy_pipe_run(b, from, to);
        return;
    }
    for (const RefEntry *e = from; e < to; e++) {
        if (UNLIKELY(e->site == REF_SAMPLE_MARK)) {
            m->new_sample = True;
            m->skipped += m->sample_off; /* the whole stretch; see gap_left */
            continue;
        }
        if (UNLIKELY(m->new_sample)) {
            m->new_sample = False;
            ms_sample_start(m->sim);
        }
        simulate((CodeRec *)(e->site & REF_CODE_MASK), e->addr, e->site >> REF_SITE_SHIFT, b->thread,
                 &b->stack);
    }
}

/* memspy_access.c — what every data reference does at run time.
 *
 * memspy_on_access, called by the instrumented code (memspy_instrument.c):
 *   1. time sampling: the instrumented code skips OFF stretches itself
 *      (memspy_instrument.c); here an ON stretch's end sets up the next OFF
 *      stretch, and when an ON stretch begins the simulator is told
 *      (ms_sample_start) so that it flags misses it cannot vouch for;
 *   2. the data object the address belongs to (memspy_objects.c);
 *   3. the simulator, on behalf of the running thread, with the object as
 *      the tag its lines keep (so a later eviction names it);
 *   4. the counters of the pair, the evictions and the thread
 *      (memspy_pairs.c); a reference outside the sampled sets is skipped.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"

#include "memspy/memspy.h"

static void *sim_alloc(void *ctx, size_t bytes)
{
    (void)ctx;
    return VG_(malloc)("memspy.sim", bytes);
}

static void sim_release(void *ctx, void *p)
{
    (void)ctx;
    VG_(free)(p);
}

Bool memspy_access_init(void)
{
    const char *error = NULL;
    memspy.alloc = (rd_allocator){sim_alloc, sim_release, NULL};
    memspy.sim = ms_new(&memspy.config, &memspy.alloc, &error);
    if (!memspy.sim) {
        VG_(fmsg_bad_option)("--level or --sample-sets", "the cache hierarchy cannot be "
                             "simulated: %s\n", error ? error : "bad configuration");
        return False;
    }
    memspy.phase_left = memspy.sample_on;
    return True;
}

ULong memspy_skipped(void)
{
    return memspy.skipped - memspy.gap_left + memspy.set_skipped;
}

void memspy_access_reset(void)
{
    memspy.skipped = memspy.gap_left; /* cancels out in memspy_skipped() */
    memspy.set_skipped = 0;
}

/* Time sampling, for a reference the instrumented code let through (the
 * OFF stretch, gap_left references, is skipped without a call): is this
 * reference the first of a new OFF stretch?  Then the stretch is set up for
 * the instrumented code to skip, and counted skipped in full (memspy_skipped
 * takes back what remains of it).  The first reference after a stretch
 * starts a new sample. */
static inline Bool starts_time_gap(void)
{
    Memspy *m = &memspy;
    if (LIKELY(m->sample_on == 0))
        return False;
    if (m->phase_left == 0) {
        m->phase_left = m->sample_on;
        m->gap_left = m->sample_off - 1; /* this reference is the stretch's first */
        m->skipped += m->sample_off;
        m->new_sample = True;
        return True;
    }
    if (m->new_sample) {
        m->new_sample = False;
        ms_sample_start(m->sim);
    }
    m->phase_left--;
    return False;
}

VG_REGPARM(3) void memspy_on_access(CodeRec *code, Addr addr, UWord size_and_write)
{
    Memspy *m = &memspy;
    if (starts_time_gap())
        return;
    Bool is_write = size_and_write & 1;
    UInt obj = memspy_object_of(code, addr);
    ms_result r;
    ms_access(m->sim, m->cur_thread, addr, (uint32_t)(size_and_write >> 1), is_write, obj, &r);
    if (!r.sampled) {
        m->skipped++;
        return;
    }
    memspy_count(code, obj, is_write, &r);
}

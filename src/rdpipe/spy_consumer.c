/* spy_consumer.c — memspy's simulator and counting in augur's consumer
 * process: the references the memspy tool sends (spy_proto.h) run through
 * the simulator (cachesim/memsim.h) as memspy_access.c runs them inline,
 * and are counted by the same rules (cachesim/ms_counts.h, spy_tally.c)
 * per (instruction, object) pair, eviction and thread, until a flush sends
 * the counts back.  With more than one thread (spy_consume's ctx), the
 * levels below the first run on threads of their own (spy_stages.c).
 */
#include "rdpipe/spy_consumer.h"
#include "rdpipe/ring_reader.h"
#include "rdpipe/spy_proto.h"
#include "rdpipe/spy_stages.h"
#include "rdpipe/spy_tally.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK_RECS 16384u /* records run before the ring's tail moves on: 256 KiB */

typedef struct spy {
    spy_config cfg;
    size_t cfg_got, cfg_want; /* bytes of the configuration read, and to read */
    ms_sim *sim;              /* NULL until the configuration is read */
    rd_allocator alloc;
    unsigned thread;       /* the current simulator thread */
    uint64_t high;         /* SPY_HIGH's bits for the next access */
    int new_sample;        /* SPY_SAMPLE seen: the next access starts a sample */
    spy_tally tally;       /* the head's counts, and at a flush everyone's */
    unsigned threads;      /* threads the simulator may use */
    spy_stages *stages;    /* NULL: every level on this thread */
    unsigned head_to;      /* with stages: the levels simulated here, [0, head_to) */
    int sent;              /* with stages: references sent since they last finished */
    ring_answer *answer;
} spy;

static void protocol_error(const char *what)
{
    fprintf(stderr, "augur: %s got a bad record from the memspy tool (%s); a bug of augur\n", SPY_CONSUMER_NAME,
            what);
    _exit(3);
}

static void *xrealloc(void *p, size_t bytes)
{
    return ring_xrealloc(p, bytes, SPY_CONSUMER_NAME);
}

static void *xcalloc(size_t bytes)
{
    return memset(xrealloc(NULL, bytes), 0, bytes);
}

/* Wait until the stages (if any) have finished what they were sent: then
 * the simulator and every count are this thread's. */
static void stages_finish(spy *s)
{
    if (s->sent) {
        spy_stages_sync(s->stages);
        s->sent = 0;
    }
}

/* An access record r: simulated and counted as memspy_access.c's
 * simulate() and memspy_count() do; with stages, the levels below the
 * head's are passed on to them where the reference may be split. */
static void reference(spy *s, const rdp_rec *r)
{
    if (!s->sim)
        protocol_error("an access before the configuration");
    uint64_t addr = s->high | r->addr >> SPY_ADDR_SHIFT;
    uint32_t sw = (uint32_t)(r->addr & SPY_SW_MASK), obj = r->size;
    int is_write = sw & 1;
    s->high = 0;
    if (s->new_sample) {
        s->new_sample = 0;
        ms_sample_start(s->sim);
    }
    ms_result res;
    ms_pass next;
    unsigned to = s->cfg.sim.nlevels;
    ms_totals *t = &s->tally.thread_totals[s->thread];
    spy_pair_count *p = r->instr < s->tally.ncodes ? s->tally.by_code[r->instr] : NULL;
    int hit;
    if (s->stages && ms_splittable(s->sim, s->thread, addr, sw >> 1)) {
        to = s->head_to;
        hit = ms_access_upto(s->sim, s->thread, addr, sw >> 1, is_write, obj, to, &res, &next);
        if (next.walking || next.descending) {
            spy_stages_send(s->stages, r->instr, &next);
            s->sent = 1;
        }
    } else {
        if (s->stages)
            stages_finish(s); /* the whole hierarchy at once */
        hit = ms_access(s->sim, s->thread, addr, sw >> 1, is_write, obj, &res);
    }
    if (hit && p && p->obj == obj) {
        ms_count_ref(&p->n, t, is_write); /* the usual case */
        return;
    }
    if (!res.sampled) {
        s->tally.skipped++;
        return;
    }
    p = spy_pair_of(&s->tally, r->instr, obj);
    ms_count_ref(&p->n, t, is_write);
    spy_tally_levels(&s->tally, p, &s->cfg, s->thread, addr, &res, 0, to);
}

/* SPY_FLUSH: the counts since the last flush (spy_proto.h), everyone's,
 * then zeroed.  0, or -1 when the tool is gone. */
static int answer_flush(spy *s)
{
    if (s->stages) {
        stages_finish(s);
        spy_stages_merge(s->stages, &s->tally);
    }
    return spy_tally_answer(&s->tally, s->answer);
}

/* A configuration record's payload r: once complete, the simulator. */
static void take_config(spy *s, const rdp_rec *r)
{
    size_t k = s->cfg_want - s->cfg_got < sizeof *r ? s->cfg_want - s->cfg_got : sizeof *r;
    memcpy((char *)&s->cfg + s->cfg_got, r, k);
    s->cfg_got += k;
    if (s->cfg_got < s->cfg_want)
        return;
    const char *error = NULL;
    s->sim = ms_new(&s->cfg.sim, &s->alloc, &error);
    if (!s->sim)
        protocol_error(error ? error : "a configuration the simulator refuses");
    s->stages = spy_stages_new(s->sim, &s->cfg, s->threads);
    if (s->stages)
        s->head_to = spy_stages_head_levels(s->stages);
}

/* A control record; 0, or -1 when the tool is gone. */
static int control(spy *s, const rdp_rec *r)
{
    switch (r->size) {
    case SPY_CONFIG:
        if (s->cfg_want || r->addr != sizeof s->cfg)
            protocol_error("a second configuration, or one of another build");
        s->cfg_want = sizeof s->cfg;
        return 0;
    case SPY_THREAD:
        if (r->addr >= MS_MAX_THREADS)
            protocol_error("a thread out of range");
        s->thread = (unsigned)r->addr;
        return 0;
    case SPY_SAMPLE:
        s->new_sample = 1;
        return 0;
    case SPY_HIGH:
        s->high = r->addr << 48;
        return 0;
    case SPY_FLUSH:
        return answer_flush(s);
    default:
        protocol_error("an unknown control record");
        return -1;
    }
}

/* ring_drain's ring_run_fn: -1 when the tool stopped reading answers. */
static int run_piece(void *ctx, const rdp_rec *recs, size_t n)
{
    spy *s = ctx;
    for (const rdp_rec *r = recs; r < recs + n; r++) {
        if (s->cfg_got < s->cfg_want)
            take_config(s, r);
        else if (r->instr != RDP_CONTROL)
            reference(s, r);
        else if (control(s, r) != 0)
            return -1;
    }
    return 0;
}

int spy_consume(int doorbell, int out, RdpRing *ring, void *ctx)
{
    spy *s = xcalloc(sizeof *s);
    s->threads = ctx ? *(const unsigned *)ctx : 1;
    s->alloc = ring_allocator(SPY_CONSUMER_NAME);
    s->answer = xrealloc(NULL, sizeof *s->answer);
    s->answer->fd = out, s->answer->failed = 0, s->answer->used = 0;
    ring_drain(ring, doorbell, CHUNK_RECS, run_piece, s);
    spy_stages_free(s->stages);
    spy_tally_free(&s->tally);
    if (s->sim)
        ms_free(s->sim);
    free(s->answer);
    free(s);
    return 0;
}

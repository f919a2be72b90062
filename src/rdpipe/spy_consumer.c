/* spy_consumer.c — memspy's simulator and counting in augur's consumer
 * process: the references the memspy tool sends (spy_proto.h) run through
 * the simulator (cachesim/memsim.h) as memspy_access.c runs them inline,
 * and are counted by the same rules (cachesim/ms_counts.h) per
 * (instruction, object) pair, eviction and thread, until a flush sends the
 * counts back.
 *
 * A pair is found from its instruction's short list, most recent first,
 * and its evictions from its own short list, most recent first: an
 * instruction nearly always references one object, and its misses nearly
 * always evict one object's lines, so no table is needed.
 */
#include "rdpipe/spy_consumer.h"
#include "rdpipe/ring_reader.h"
#include "rdpipe/spy_proto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK_RECS 16384u /* records run before the ring's tail moves on: 256 KiB */

/* Evictions a pair's misses made at one level, of one victim's lines. */
typedef struct evict {
    struct evict *next;
    uint64_t key; /* ms_evict_key */
    uint64_t count;
} evict;

typedef struct pair {
    struct pair *next; /* the instruction's next, less recently used */
    struct pair *all;  /* every pair, for the flush */
    uint32_t code, obj;
    ms_counts n;
    uint64_t (*groups)[MS_SET_GROUPS]; /* set sampling alone: from the first miss */
    evict *evicts;                      /* most recent first */
} pair;

typedef struct spy {
    spy_config cfg;
    size_t cfg_got, cfg_want; /* bytes of the configuration read, and to read */
    ms_sim *sim;              /* NULL until the configuration is read */
    rd_allocator alloc;
    unsigned thread;       /* the current simulator thread */
    uint64_t high;         /* SPY_HIGH's bits for the next access */
    int new_sample;        /* SPY_SAMPLE seen: the next access starts a sample */
    pair **by_code;        /* per instruction id, its pairs */
    uint32_t ncodes;
    pair *pairs;           /* all of them */
    ms_totals thread_totals[MS_MAX_THREADS];
    uint64_t skipped;      /* references outside the sampled sets */
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

/* The pair (code, obj), created if new, moved to the front of code's list. */
static pair *pair_of(spy *s, uint32_t code, uint32_t obj)
{
    if (code >= s->ncodes) {
        void *codes = s->by_code;
        ring_grow_zeroed(&codes, &s->ncodes, code, sizeof *s->by_code, SPY_CONSUMER_NAME);
        s->by_code = codes;
    }
    pair **head = &s->by_code[code], *p = *head, *prev = NULL;
    for (; p && p->obj != obj; prev = p, p = p->next)
        ;
    if (!p) {
        p = xcalloc(sizeof *p);
        p->code = code, p->obj = obj;
        p->all = s->pairs;
        s->pairs = p;
    } else if (!prev) {
        return p;
    } else {
        prev->next = p->next;
    }
    p->next = *head;
    *head = p;
    return p;
}

/* A miss of pair p at `level` replaced a line of object victim. */
static void count_eviction(pair *p, unsigned level, uint32_t victim)
{
    uint64_t key = ms_evict_key(level, victim, p->obj);
    evict *e = p->evicts, *prev = NULL;
    for (; e && e->key != key; prev = e, e = e->next)
        ;
    if (!e) {
        e = xcalloc(sizeof *e);
        e->key = key;
    } else if (prev) {
        prev->next = e->next;
    }
    if (e != p->evicts) {
        e->next = p->evicts;
        p->evicts = e;
    }
    e->count++;
}

/* An access record r: simulated and counted as memspy_access.c's
 * simulate() and memspy_count() do. */
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
    ms_totals *t = &s->thread_totals[s->thread];
    pair *p = r->instr < s->ncodes ? s->by_code[r->instr] : NULL;
    if (ms_access(s->sim, s->thread, addr, sw >> 1, is_write, obj, &res) && p && p->obj == obj) {
        ms_count_ref(&p->n, t, is_write); /* the usual case */
        return;
    }
    if (!res.sampled) {
        s->skipped++;
        return;
    }
    p = pair_of(s, r->instr, obj);
    ms_count_ref(&p->n, t, is_write);
    ms_count_result(&p->n, t, s->cfg.sim.nlevels, &res);
    for (unsigned k = 0; k < res.hit_level; k++) {
        if (s->cfg.groups) {
            if (!p->groups)
                p->groups = xcalloc(CS_MAX_LEVELS * sizeof *p->groups);
            p->groups[k][ms_group_of(addr, s->cfg.group_shift)]++;
        }
        if (res.evicted[k] != MS_NO_TAG)
            count_eviction(p, k, res.evicted[k]);
    }
}

/* SPY_FLUSH: the counts since the last flush (spy_proto.h), then zeroed.
 * 0, or -1 when the tool is gone. */
static int answer_flush(spy *s)
{
    ring_answer *a = s->answer;
    for (pair *p = s->pairs; p; p = p->all) {
        if (!p->n.refs)
            continue;
        spy_pair head = {p->code, p->obj, p->groups != NULL, 0, p->n};
        ring_answer_put(a, &head, sizeof head);
        if (p->groups) {
            ring_answer_put(a, p->groups, CS_MAX_LEVELS * sizeof *p->groups);
            memset(p->groups, 0, CS_MAX_LEVELS * sizeof *p->groups);
        }
        memset(&p->n, 0, sizeof p->n);
    }
    spy_pair end = {RDP_CONTROL, 0, 0, 0, {0}};
    ring_answer_put(a, &end, sizeof end);
    for (pair *p = s->pairs; p; p = p->all)
        for (evict *e = p->evicts; e; e = e->next)
            if (e->count) {
                spy_evict ev = {e->key, e->count};
                ring_answer_put(a, &ev, sizeof ev);
                e->count = 0;
            }
    spy_evict last = {UINT64_MAX, 0};
    ring_answer_put(a, &last, sizeof last);
    ring_answer_put(a, s->thread_totals, sizeof s->thread_totals);
    ring_answer_put(a, &s->skipped, sizeof s->skipped);
    memset(s->thread_totals, 0, sizeof s->thread_totals);
    s->skipped = 0;
    return ring_answer_end(a);
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
    (void)ctx;
    spy *s = xcalloc(sizeof *s);
    s->alloc = ring_allocator(SPY_CONSUMER_NAME);
    s->answer = xrealloc(NULL, sizeof *s->answer);
    s->answer->fd = out, s->answer->failed = 0, s->answer->used = 0;
    ring_drain(ring, doorbell, CHUNK_RECS, run_piece, s);
    for (pair *p = s->pairs, *next; p; p = next) {
        next = p->all;
        for (evict *e = p->evicts, *en; e; e = en) {
            en = e->next;
            free(e);
        }
        free(p->groups);
        free(p);
    }
    if (s->sim)
        ms_free(s->sim);
    free(s->by_code);
    free(s->answer);
    free(s);
    return 0;
}

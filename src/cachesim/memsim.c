/* memsim.c — memspy's simulator (memsim.h): configuration checks, lazily
 * created per-thread private levels, shared levels, and the walk of one
 * reference down the levels with the cause of each miss.
 *
 * A reference goes level by level, as in Cachegrind: every (sampled) line
 * of it is accessed at level k, and if any missed, the whole reference goes
 * on to level k+1.  The cause of a miss is decided from the instance's
 * seen-set record (cold), its invalidation state (sharing, ms_coherence.c)
 * and its fully-associative shadow (capacity / conflict).  Freestanding. */
#include <stddef.h>
#include <stdint.h>

#include "cachesim/cachesim.h"
#include "cachesim/memsim.h"
#include "cachesim/memsim_internal.h"
#include "cachesim/ms_cache.h"
#include "cachesim/ms_shadow.h"
#include "cachesim/ms_table.h"
#include "rd/rd.h"

/* 1 if x is a non-zero power of two. */
static int is_pow2(uint64_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

/* log2 of a power of two x. */
static unsigned log2_pow2(uint64_t x)
{
    return 63u - (unsigned)__builtin_clzll(x);
}

/* c's shadow sampling as a count (0 means 1: exact). */
static uint32_t shadow_sample(const ms_config *c)
{
    return c->shadow_sample ? c->shadow_sample : 1;
}

/* NULL if level l is acceptable in c, else why not. */
static const char *check_level(const ms_config *c, const ms_level_config *l)
{
    const char *why = cs_level_check(l->size, l->line, l->ways);
    if (why)
        return why;
    if (l->line != c->level[0].line)
        return "cache line size must be the same at every level";
    if (l->shared_by == 0)
        return "shared_by must be 1 (a private level per thread) or the number of threads "
               "sharing the level";
    uint64_t sets = l->size / ((uint64_t)l->line * l->ways);
    if (c->set_sample > sets)
        return "set_sample must not exceed the number of sets of any level";
    if (l->size / l->line / c->set_sample < shadow_sample(c))
        return "shadow_sample must not exceed the number of lines of any level (divided by "
               "set_sample)";
    if (l->size / l->line / c->set_sample > MS_SHADOW_MAX_LINES)
        return "cache has too many lines for the fully-associative shadow (at most 2^31 "
               "simulated lines per level)";
    return NULL;
}

/* NULL if c is a configuration ms_new accepts, else why not. */
static const char *check_config(const ms_config *c)
{
    if (c->nlevels < 1 || c->nlevels > CS_MAX_LEVELS)
        return "the number of cache levels must be 1 to 4";
    if (!is_pow2(c->set_sample))
        return "set_sample must be a power of two (1 simulates every set)";
    if (!is_pow2(shadow_sample(c)))
        return "shadow_sample must be a power of two (1 gives every line to the shadows: exact "
               "causes)";
    for (unsigned k = 0; k < c->nlevels; k++) {
        const char *why = check_level(c, &c->level[k]);
        if (why)
            return why;
    }
    return NULL;
}

/* Create instance c of level k of configuration cfg: its sets, and a
 * shadow scaled down by set and shadow sampling. */
static void instance_init(ms_cache *c, const ms_config *cfg, unsigned k, const rd_allocator *a)
{
    const ms_level_config *l = &cfg->level[k];
    ms_cache_init(c, l->size, l->line, l->ways, (uint64_t)cfg->set_sample * shadow_sample(cfg), a);
}

ms_sim *ms_new(const ms_config *c, const rd_allocator *a, const char **error)
{
    const char *why = check_config(c);
    if (why) {
        if (error)
            *error = why;
        return NULL;
    }
    ms_sim *s = a->alloc(a->ctx, sizeof *s);
    s->a = a;
    s->c = *c;
    s->f.line_shift = log2_pow2(c->level[0].line);
    s->gran_shift = s->f.line_shift > 6 ? s->f.line_shift - 6 : 0;
    s->f.sample_mask = c->set_sample - 1;
    s->f.shadow_log2 = log2_pow2(shadow_sample(c)) + log2_pow2(c->set_sample);
    s->f.shadows_apart = c->set_sample > 1;
    s->nprivate = 0;
    s->nthreads = 0;
    s->f.coherent = 0;
    s->f.epoch = 0;
    for (unsigned k = 0; k < CS_MAX_LEVELS; k++) {
        const ms_level_config *l = &c->level[k];
        s->shared[k].shadow = NULL;
        if (k >= c->nlevels)
            continue;
        if (l->shared_by == 1)
            s->nprivate++;
        else
            instance_init(&s->shared[k], c, k, a);
    }
    for (unsigned t = 0; t < MS_MAX_THREADS; t++) {
        s->thread[t] = NULL;
        s->f.first[t] = NULL;
    }
    return s;
}

void ms_free(ms_sim *s)
{
    if (!s)
        return;
    const rd_allocator *a = s->a;
    for (unsigned t = 0; t < MS_MAX_THREADS; t++) {
        ms_thread *th = s->thread[t];
        if (!th)
            continue;
        for (unsigned k = 0; k < CS_MAX_LEVELS; k++)
            ms_cache_free(&th->level[k]);
        ms_table_free(&th->inv);
        a->release(a->ctx, th);
    }
    for (unsigned k = 0; k < CS_MAX_LEVELS; k++)
        ms_cache_free(&s->shared[k]);
    if (s->f.coherent)
        ms_table_free(&s->dir);
    a->release(a->ctx, s);
}

/* Thread t's state, created (with its private instances) on first use;
 * a second thread with private levels starts the coherence directory. */
static ms_thread *thread_state(ms_sim *s, unsigned t)
{
    if (s->thread[t])
        return s->thread[t];
    ms_thread *th = s->a->alloc(s->a->ctx, sizeof *th);
    for (unsigned k = 0; k < CS_MAX_LEVELS; k++) {
        th->level[k].shadow = NULL;
        if (k < s->c.nlevels && s->c.level[k].shared_by == 1)
            instance_init(&th->level[k], &s->c, k, s->a);
    }
    ms_table_init(&th->inv, sizeof(ms_inv_line), s->a);
    s->thread[t] = th;
    s->f.first[t] = s->c.level[0].shared_by == 1 ? &th->level[0] : &s->shared[0];
    if (++s->nthreads == 2 && s->nprivate > 0)
        ms_coherence_start(s);
    return th;
}

uint64_t ms_touch_mask(const ms_sim *s, uint64_t block, uint64_t addr, uint64_t last)
{
    uint64_t base = block << s->f.line_shift, end = base + ((uint64_t)1 << s->f.line_shift) - 1;
    unsigned lo = (unsigned)(((addr > base ? addr : base) - base) >> s->gran_shift);
    unsigned hi = (unsigned)(((last < end ? last : end) - base) >> s->gran_shift);
    uint64_t upto = hi == 63 ? UINT64_MAX : ((uint64_t)1 << (hi + 1)) - 1;
    return upto & ~(((uint64_t)1 << lo) - 1);
}

/* One reference on its way down: who, what, and the bytes touched. */
#define MS_FA_LINES 4 /* lines of a reference whose shadow verdicts are kept */
typedef struct ref {
    unsigned t;
    ms_thread *th;
    uint64_t addr, last; /* first and last byte */
    uint32_t tag;
    uint32_t epoch;      /* the time sample it was made in */
    /* With shadows apart: for its i-th line (i < MS_FA_LINES) fed to the
     * shadows, the first level whose shadow held it (nlevels: none). */
    uint8_t fa_level[MS_FA_LINES];
} ref;

/* 1 if the instance whose seen-set is t has held `block` before; marks it
 * held from now on. */
static int seen_before(ms_table *t, uint64_t block)
{
    int created;
    ms_seen_chunk *c = ms_table_get(t, block >> 6, &created);
    uint64_t bit = (uint64_t)1 << (block & 63);
    int seen = (c->bits & bit) != 0;
    c->bits |= bit;
    return seen;
}

/* The cause of the miss of `block` at level k, in instance c (o: what it
 * did). */
static enum ms_cause miss_cause(ms_sim *s, const ref *r, unsigned k, ms_cache *c, uint64_t block,
                                const ms_outcome *o)
{
    int priv = s->c.level[k].shared_by == 1;
    /* A shadow hit means the instance held the line before, so its seen
     * bit is set already: only a shadow miss needs the probe.  Shadows fed
     * apart say only that the thread touched the line before. */
    if (!(o->shadow_fed && o->shadow_hit && !s->f.shadows_apart) &&
        !seen_before(&c->seen, block))
        return MS_COLD;
    if (priv && s->f.coherent) {
        ms_inv_line *l = ms_table_find(&r->th->inv, block);
        uint64_t bit = (uint64_t)1 << k;
        if (l && (l->inv_levels & bit)) {
            l->inv_levels &= ~bit;
            return ms_touch_mask(s, block, r->addr, r->last) & l->inv_mask ? MS_TRUE_SHARING
                                                                            : MS_FALSE_SHARING;
        }
    }
    if (!o->shadow_fed)
        return MS_UNSPLIT;
    return o->shadow_hit ? MS_CONFLICT : MS_CAPACITY;
}

/* Level k's instance that reference r uses. */
static ms_cache *instance(ms_sim *s, const ref *r, unsigned k)
{
    return s->c.level[k].shared_by == 1 ? &r->th->level[k] : &s->shared[k];
}

/* With shadows apart: feed each line of r that the hash samples to the
 * shadows of levels [from, to) in turn, down to the first that held it,
 * and keep that level in r->fa_level (a hierarchy of fully-associative
 * caches: what hits level k's shadow does not reach k+1's).  *descending
 * has bit i for line i (below MS_PASS_LINES) that no shadow above `from`
 * held, and leaves with it for those none above `to` held. */
static void feed_shadows(ms_sim *s, ref *r, unsigned from, unsigned to, uint64_t *descending)
{
    uint64_t first = r->addr >> s->f.line_shift, last = r->last >> s->f.line_shift;
    for (uint64_t b = first;; b++) {
        uint64_t i = b - first, bit = i < MS_PASS_LINES ? (uint64_t)1 << i : 0;
        if (ms_shadow_sampled(b, s->f.shadow_log2)) {
            unsigned k = from;
            if (from > 0 && !(*descending & bit))
                k = 0; /* held above: a hit at every level here */
            else
                while (k < to && !ms_shadow_access(instance(s, r, k)->shadow, b))
                    k++;
            *descending = k == to ? *descending | bit : *descending & ~bit;
            if (i < MS_FA_LINES)
                r->fa_level[i] = (uint8_t)k;
        }
        if (b == last)
            return;
    }
}

/* With shadows apart: the shadow verdict at level k of line i of r (fed:
 * sampled by the hash) into o, from feed_shadows: it hit if a shadow at
 * level k or above held it. */
static void apart_verdict(const ref *r, uint64_t i, unsigned k, int fed, ms_outcome *o)
{
    o->shadow_fed = fed && i < MS_FA_LINES;
    o->shadow_hit = o->shadow_fed && r->fa_level[i] <= k;
}

/* Access every simulated line of r at level k; 1 if any missed, with the
 * first miss's cause and evicted tag in out, and out->unknown_from set to
 * k if any line's outcome is unknown and no level above was. */
static int level_access(ms_sim *s, const ref *r, unsigned k, ms_result *out)
{
    ms_cache *c = instance(s, r, k);
    uint64_t first = r->addr >> s->f.line_shift, last = r->last >> s->f.line_shift;
    int missed = 0;
    for (uint64_t b = first;; b++) {
        if (!(b & s->f.sample_mask)) {
            int fed = ms_shadow_sampled(b, s->f.shadow_log2);
            ms_outcome o = ms_cache_access(c, b, r->tag, r->epoch, fed && !s->f.shadows_apart);
            if (s->f.shadows_apart)
                apart_verdict(r, b - first, k, fed, &o);
            if (o.unknown && out->unknown_from > k)
                out->unknown_from = (uint8_t)k;
            if (!o.hit) {
                enum ms_cause cause = miss_cause(s, r, k, c, b, &o);
                if (!missed) {
                    out->cause[k] = (uint8_t)cause;
                    out->evicted[k] = o.evicted ? o.victim_tag : MS_NO_TAG;
                    missed = 1;
                }
            }
        }
        if (b == last)
            return missed;
    }
}

/* Tell the directory what reference r did, line by line: a write
 * invalidates other threads' copies; a read that missed level 0 filled the
 * thread's private levels. */
static void coherence_update(ms_sim *s, const ref *r, int is_write, unsigned hit_level)
{
    uint64_t first = r->addr >> s->f.line_shift, last = r->last >> s->f.line_shift;
    for (uint64_t b = first;; b++) {
        if (!(b & s->f.sample_mask)) {
            if (is_write)
                ms_coherence_write(s, r->t, b, ms_touch_mask(s, b, r->addr, r->last));
            else if (hit_level > 0)
                ms_coherence_fill(s, r->t, b);
        }
        if (b == last)
            return;
    }
}

/* The walk of reference r down levels [from, to), for what the fast path
 * in ms_access did not take: hit_level is the level that hit, `to` when
 * none did.  Returns ms_access's result. */
static int walk(ms_sim *s, const ref *r, int is_write, unsigned from, unsigned to, ms_result *out)
{
    unsigned k = from;
    while (k < to && level_access(s, r, k, out))
        k++;
    out->hit_level = (uint8_t)k;
    if (s->f.coherent) /* only ever with every level (ms_splittable) */
        coherence_update(s, r, is_write, k);
    /* From k, not from out's bytes: a wider load of bytes just stored one
     * by one waits for the stores (a store-forwarding stall, measured at a
     * tenth of the tool's time on mm_conflict). */
    return k == 0 && out->unknown_from == MS_ALL_KNOWN;
}

/* After levels [.., to) of a reference: what the levels below need, in p,
 * from out (walked: out->sampled). */
static void pass_on(const ms_sim *s, unsigned to, const ms_result *out, ms_pass *p)
{
    int below = to < s->c.nlevels;
    p->walking = below && out->sampled && out->hit_level == to;
    if (out->sampled)
        p->unknown_from = out->unknown_from;
    if (!below)
        p->descending = 0;
}

int ms_access_walk(ms_sim *s, unsigned thread, uint64_t addr, uint32_t size, int is_write, uint32_t tag,
                   unsigned to, ms_result *out, ms_pass *next)
{
    if (!next || to > s->c.nlevels)
        to = s->c.nlevels;
    uint64_t span = size ? size - 1 : 0, descending = 0;
    ref r = {thread % MS_MAX_THREADS, NULL, addr, span > UINT64_MAX - addr ? UINT64_MAX : addr + span,
             tag, s->f.epoch, {0}};
    int sampled = !((addr >> s->f.line_shift) & s->f.sample_mask), hit = 0;
    if (sampled || s->f.shadows_apart)
        r.th = thread_state(s, r.t);
    if (s->f.shadows_apart)
        feed_shadows(s, &r, 0, to, &descending);
    out->sampled = (uint8_t)sampled;
    if (sampled) {
        out->unknown_from = MS_ALL_KNOWN;
        hit = walk(s, &r, is_write, 0, to, out);
    }
    if (next) {
        *next = (ms_pass){r.addr, r.last, tag, r.epoch, (uint8_t)r.t, 0, MS_ALL_KNOWN, 0, descending};
        pass_on(s, to, out, next);
    }
    return hit;
}

int ms_access_levels(ms_sim *s, ms_pass *p, unsigned from, unsigned to, ms_result *out)
{
    ref r = {p->thread, s->thread[p->thread], p->addr, p->last, p->tag, p->epoch, {0}};
    if (s->f.shadows_apart)
        feed_shadows(s, &r, from, to, &p->descending);
    out->sampled = p->walking;
    if (p->walking) {
        out->unknown_from = p->unknown_from;
        walk(s, &r, 0, from, to, out);
    }
    pass_on(s, to, out, p);
    return 0;
}

int ms_splittable(const ms_sim *s, unsigned thread, uint64_t addr, uint32_t size)
{
    unsigned t = thread % MS_MAX_THREADS;
    if (s->f.coherent || (s->nprivate > 0 && !s->thread[t] && s->nthreads > 0))
        return 0; /* coherence kept, or this thread would start it */
    uint64_t span = size ? size - 1 : 0, last = span > UINT64_MAX - addr ? UINT64_MAX : addr + span;
    return (last >> s->f.line_shift) - (addr >> s->f.line_shift) < MS_PASS_LINES;
}

void ms_sample_start(ms_sim *s)
{
    s->f.epoch++;
}

const char *ms_cause_name(enum ms_cause c)
{
    static const char *const names[MS_NCAUSES] = {"cold",         "capacity",      "conflict",
                                                  "true_sharing", "false_sharing", "unsplit"};
    return (unsigned)c < MS_NCAUSES ? names[c] : "unknown";
}

/* spy_tally.c — the simulator consumer's counts (spy_tally.h).
 *
 * A pair is found from its instruction's short list, most recent first,
 * and its evictions from its own short list, most recent first: an
 * instruction nearly always references one object, and its misses nearly
 * always evict one object's lines, so no table is needed. */
#include "rdpipe/spy_tally.h"
#include "rdpipe/spy_consumer.h"

#include <stdlib.h>
#include <string.h>

static void *xcalloc(size_t bytes)
{
    return memset(ring_xrealloc(NULL, bytes, SPY_CONSUMER_NAME), 0, bytes);
}

spy_pair_count *spy_pair_of(spy_tally *t, uint32_t code, uint32_t obj)
{
    if (code >= t->ncodes) {
        void *codes = t->by_code;
        ring_grow_zeroed(&codes, &t->ncodes, code, sizeof *t->by_code, SPY_CONSUMER_NAME);
        t->by_code = codes;
    }
    spy_pair_count **head = &t->by_code[code], *p = *head, *prev = NULL;
    for (; p && p->obj != obj; prev = p, p = p->next)
        ;
    if (!p) {
        p = xcalloc(sizeof *p);
        p->code = code, p->obj = obj;
        p->all = t->pairs;
        t->pairs = p;
    } else if (!prev) {
        return p;
    } else {
        prev->next = p->next;
    }
    p->next = *head;
    *head = p;
    return p;
}

/* count more evictions of key by pair p's misses. */
static void add_evictions(spy_pair_count *p, uint64_t key, uint64_t count)
{
    spy_evict_count *e = p->evicts, *prev = NULL;
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
    e->count += count;
}

void spy_tally_levels(spy_tally *t, spy_pair_count *p, const spy_config *cfg, unsigned thread, uint64_t addr,
                      const ms_result *res, unsigned from, unsigned to)
{
    ms_count_levels(&p->n, &t->thread_totals[thread], cfg->sim.nlevels, res, from, to);
    for (unsigned k = from; k < res->hit_level && k < to; k++) {
        if (cfg->groups) {
            if (!p->groups)
                p->groups = xcalloc(CS_MAX_LEVELS * sizeof *p->groups);
            p->groups[k][ms_group_of(addr, cfg->group_shift)]++;
        }
        if (res->evicted[k] != MS_NO_TAG)
            add_evictions(p, ms_evict_key(k, res->evicted[k], p->obj), 1);
    }
}

void spy_tally_merge(spy_tally *into, spy_tally *from)
{
    for (spy_pair_count *p = from->pairs; p; p = p->all) {
        spy_pair_count *q = spy_pair_of(into, p->code, p->obj);
        ms_counts_add(&q->n, &p->n);
        memset(&p->n, 0, sizeof p->n);
        if (p->groups) {
            if (!q->groups)
                q->groups = xcalloc(CS_MAX_LEVELS * sizeof *q->groups);
            for (unsigned k = 0; k < CS_MAX_LEVELS; k++)
                for (unsigned g = 0; g < MS_SET_GROUPS; g++)
                    q->groups[k][g] += p->groups[k][g];
            memset(p->groups, 0, CS_MAX_LEVELS * sizeof *p->groups);
        }
        for (spy_evict_count *e = p->evicts; e; e = e->next)
            if (e->count) {
                add_evictions(q, e->key, e->count);
                e->count = 0;
            }
    }
    for (unsigned t = 0; t < MS_MAX_THREADS; t++)
        ms_totals_add(&into->thread_totals[t], &from->thread_totals[t]);
    memset(from->thread_totals, 0, sizeof from->thread_totals);
    into->skipped += from->skipped;
    from->skipped = 0;
}

int spy_tally_answer(spy_tally *t, ring_answer *a)
{
    for (spy_pair_count *p = t->pairs; p; p = p->all) {
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
    for (spy_pair_count *p = t->pairs; p; p = p->all)
        for (spy_evict_count *e = p->evicts; e; e = e->next)
            if (e->count) {
                spy_evict ev = {e->key, e->count};
                ring_answer_put(a, &ev, sizeof ev);
                e->count = 0;
            }
    spy_evict last = {UINT64_MAX, 0};
    ring_answer_put(a, &last, sizeof last);
    ring_answer_put(a, t->thread_totals, sizeof t->thread_totals);
    ring_answer_put(a, &t->skipped, sizeof t->skipped);
    memset(t->thread_totals, 0, sizeof t->thread_totals);
    t->skipped = 0;
    return ring_answer_end(a);
}

void spy_tally_free(spy_tally *t)
{
    for (spy_pair_count *p = t->pairs, *next; p; p = next) {
        next = p->all;
        for (spy_evict_count *e = p->evicts, *en; e; e = en) {
            en = e->next;
            free(e);
        }
        free(p->groups);
        free(p);
    }
    free(t->by_code);
}

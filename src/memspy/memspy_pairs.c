/* memspy_pairs.c — code locations and what is counted for them: per
 * (instruction, object) pair references, reads, writes, and at each level
 * misses, their causes and the misses time sampling cannot vouch for; per
 * level (victim, evictor) eviction counts; per-thread totals.
 *
 * A pair is found from its instruction's short list, most recent first:
 * an instruction nearly always references one object, so the first entry
 * is the answer and no table lookup is made.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"

#include "memspy/memspy.h"

void memspy_pairs_init(void)
{
    memspy.codes = VG_(HT_construct)("memspy.codes");
    memspy.evictions = VG_(HT_construct)("memspy.evictions");
    vgn_init(&memspy.names);
}

CodeRec *memspy_code(Addr addr)
{
    CodeRec *code = VG_(HT_lookup)(memspy.codes, addr);
    if (code)
        return code;
    code = VG_(calloc)("memspy.code", 1, sizeof *code);
    code->addr = addr;
    code->loc = vgn_code_loc(&memspy.names, addr);
    code->hit_epoch = UINT32_MAX; /* no cached object yet */
    code->stack_obj = NO_OBJ;
    if (memspy.channel)
        memspy_pipe_register(code);
    VG_(HT_add_node)(memspy.codes, code);
    return code;
}

/* The pair (code, obj), created if new, moved to the front of the list. */
static PairRec *pair_of(CodeRec *code, UInt obj)
{
    PairRec *p = code->pairs, *prev = NULL;
    if (LIKELY(p && p->obj == obj))
        return p;
    for (; p && p->obj != obj; prev = p, p = p->next)
        ;
    if (p) {
        prev->next = p->next;
    } else {
        p = VG_(calloc)("memspy.pair", 1, sizeof *p);
        p->obj = obj;
    }
    p->next = code->pairs;
    code->pairs = p;
    return p;
}

/* The eviction record of key, created if new (records are never freed). */
static EvictRec *evict_rec(UWord key)
{
    EvictRec *e = VG_(HT_lookup)(memspy.evictions, key);
    if (!e) {
        e = VG_(calloc)("memspy.evict", 1, sizeof *e);
        e->key = key;
        VG_(HT_add_node)(memspy.evictions, e);
    }
    return e;
}

/* Count that a miss of pair p at `level` evicted a line of object `victim`
 * (p caches the record it counted last). */
static void count_eviction(PairRec *p, UInt level, UInt victim)
{
    UWord key = ms_evict_key(level, victim, p->obj);
    EvictRec *e = p->last_evict[level];
    if (!e || e->key != key)
        e = p->last_evict[level] = evict_rec(key);
    e->count++;
}

void memspy_evictions_add(UWord key, ULong count)
{
    evict_rec(key)->count += count;
}

/* Under set sampling alone (with time sampling too, time's bounds apply),
 * count a miss of pair p at `level` in the group of the line at addr (the
 * reference's first line, the one sampling chose by). */
static void count_group(PairRec *p, UInt level, Addr addr)
{
    if (!memspy_sets_in_ir())
        return;
    if (!p->group_miss)
        p->group_miss = VG_(calloc)("memspy.groups", MAX_LEVELS, sizeof *p->group_miss);
    p->group_miss[level][ms_group_of(addr, memspy.group_shift)]++;
}

void memspy_count(CodeRec *code, UInt obj, UInt thread, Bool is_write, Addr addr, const ms_result *r)
{
    PairRec *p = pair_of(code, obj);
    ThreadTotals *t = &memspy.thread[thread];
    memspy_count_ref(p, t, is_write);
    ms_count_result(&p->n, t, memspy.config.nlevels, r);
    for (UInt k = 0; k < r->hit_level; k++) {
        count_group(p, k, addr);
        if (r->evicted[k] != MS_NO_TAG)
            count_eviction(p, k, r->evicted[k]);
    }
}

void memspy_pairs_merge(CodeRec *code, UInt obj, const ms_counts *n, const ULong (*groups)[MEMSPY_GROUPS])
{
    PairRec *p = pair_of(code, obj);
    ms_counts_add(&p->n, n);
    if (!groups)
        return;
    if (!p->group_miss)
        p->group_miss = VG_(calloc)("memspy.groups", MAX_LEVELS, sizeof *p->group_miss);
    for (UInt k = 0; k < MAX_LEVELS; k++)
        for (UInt g = 0; g < MEMSPY_GROUPS; g++)
            p->group_miss[k][g] += groups[k][g];
}

void memspy_pairs_reset(void)
{
    VG_(HT_ResetIter)(memspy.codes);
    for (CodeRec *code; (code = VG_(HT_Next)(memspy.codes));)
        for (PairRec *p = code->pairs; p; p = p->next) {
            PairRec keep = {.next = p->next, .obj = p->obj, .group_miss = p->group_miss};
            if (keep.group_miss)
                VG_(memset)(keep.group_miss, 0, MAX_LEVELS * sizeof *keep.group_miss);
            *p = keep;
        }
    VG_(HT_ResetIter)(memspy.evictions);
    for (EvictRec *e; (e = VG_(HT_Next)(memspy.evictions));)
        e->count = 0;
    VG_(memset)(memspy.thread, 0, sizeof memspy.thread);
    memspy_access_reset();
}

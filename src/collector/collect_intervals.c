/* collect_intervals.c — counts per interval of the run (docs/collector.md,
 * "Regions and intervals").
 *
 * An interval ends at each call of an interval function
 * (--augur-interval-fn), at each DUMP_STATS request, and at the end of the
 * process.  Closing one folds the superblock counters into the records
 * (collect_take_counts), adds the records that executed to the process's
 * total and then either writes them at once as the interval's profile
 * (augur.<pid>.<token>.i<index>.prof) or, with --augur-interval-by=callsite,
 * adds them to the phase of the call site that closed the interval
 * (written at the end, one profile per call site); then every count is
 * zeroed.  A phase holds only the instructions that executed in it, so
 * memory grows with the code each phase runs, not with the intervals.
 * Until the first interval closes nothing of this exists, and a run
 * without intervals writes its records directly, as before.
 */
#include "pub_tool_basics.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_xarray.h"

#include "collector/collect.h"

/* One instruction's counts in a phase. */
typedef struct PhaseRec {
    struct PhaseRec *next; /* VgHashTable chaining; must come first */
    UWord addr;            /* the key: rec->addr */
    InstrRec *rec;
    InstrCounts n;
} PhaseRec;

/* The sum of some intervals: the whole process, or those one call site closed. */
typedef struct Phase {
    VgHashTable *recs; /* PhaseRec by address */
    IntervalInfo info; /* the first interval, how many, what closed them */
} Phase;

static Phase *new_phase(ClosedBy how, InstrRec *site)
{
    Phase *p = VG_(calloc)("augur.phase", 1, sizeof *p);
    p->recs = VG_(HT_construct)("augur.phase.recs");
    p->info = (IntervalInfo){collector.intervals_closed, 0, how, site};
    return p;
}

static void add_keys(KeyCounts *to, const KeyCounts *from)
{
    for (UInt i = 0; i < from->n; i++)
        if (from->e[i].count)
            collect_count_key(to, from->e[i].key, from->e[i].count);
}

/* Fold the stride vote of a later stretch into *to as one vote over both
 * would end (the mergeable form of Boyer-Moore's: the candidates' votes
 * cancel): a delta that is the majority of both stretches' deltas stays
 * the candidate, and the count stays a lower bound of its deltas.  The
 * delta between the stretches is in neither. */
static void merge_vote(StrideVote *to, const StrideVote *from)
{
    if (!from->deltas)
        return;
    ULong deltas = to->deltas + from->deltas, pow2[PROFILE_POW2_CLASSES];
    for (UInt k = 0; k < PROFILE_POW2_CLASSES; k++)
        pow2[k] = to->pow2[k] + from->pow2[k];
    if (!to->deltas)
        *to = *from;
    else if (to->stride == from->stride) {
        to->votes += from->votes;
        to->count += from->count;
    } else if (from->votes > to->votes) {
        ULong votes = from->votes - to->votes;
        *to = *from;
        to->votes = votes;
    } else
        to->votes -= from->votes;
    to->deltas = deltas;
    for (UInt k = 0; k < PROFILE_POW2_CLASSES; k++)
        to->pow2[k] = pow2[k];
}

/* Add what rec did in the interval to phase p. */
static void add_to_phase(Phase *p, InstrRec *rec)
{
    Collector *c = &collector;
    PhaseRec *pr = VG_(HT_lookup)(p->recs, rec->addr);
    if (!pr) {
        pr = VG_(calloc)("augur.phase.rec", 1, sizeof *pr);
        pr->addr = rec->addr;
        pr->rec = rec;
        VG_(HT_add_node)(p->recs, pr);
    }
    pr->n.execs += rec->n.execs;
    pr->n.reads += rec->n.reads;
    pr->n.writes += rec->n.writes;
    pr->n.taken += rec->n.taken;
    pr->n.exact_zero += rec->n.exact_zero;
    add_keys(&pr->n.targets, &rec->n.targets);
    add_keys(&pr->n.callees, &rec->n.callees);
    for (UInt i = 0; i < c->nengines; i++)
        rd_hist_merge(&pr->n.hist[i], &rec->n.hist[i], &c->alloc);
    merge_vote(&pr->n.vote, &rec->n.vote);
}

/* The phase of call site `site` closed `how` (by_callsite), made on first use. */
static Phase *phase_of(ClosedBy how, InstrRec *site)
{
    Collector *c = &collector;
    if (!c->phases)
        c->phases = VG_(newXA)(VG_(malloc), "augur.phases", VG_(free), sizeof(Phase *));
    for (Word i = 0; i < VG_(sizeXA)(c->phases); i++) {
        Phase *p = *(Phase **)VG_(indexXA)(c->phases, i);
        if (p->info.how == how && p->info.site == site)
            return p;
    }
    Phase *p = new_phase(how, site);
    VG_(addToXA)(c->phases, &p);
    return p;
}

/* The records that executed since the last reset, as profile rows; a new
 * array (VG_(free) it) of *n rows: those of the touched records that
 * executed. */
static ProfileRow *executed_records(UInt *n)
{
    UInt all_n;
    InstrRec **all = collect_touched(&all_n);
    ProfileRow *rows = VG_(malloc)("augur.rows", (all_n ? all_n : 1) * sizeof *rows);
    *n = 0;
    for (UInt i = 0; i < all_n; i++)
        if (all[i]->n.execs)
            rows[(*n)++] = (ProfileRow){all[i], &all[i]->n};
    return rows;
}

void collect_close_interval(ClosedBy how, InstrRec *site)
{
    Collector *c = &collector;
    collect_take_counts();
    if (!c->total)
        c->total = new_phase(CLOSED_BY_END, NULL);
    UInt n;
    ProfileRow *rows = executed_records(&n);
    for (UInt i = 0; i < n; i++)
        add_to_phase(c->total, rows[i].rec);
    if (c->by_callsite) {
        Phase *p = phase_of(how, site);
        p->info.count++;
        for (UInt i = 0; i < n; i++)
            add_to_phase(p, rows[i].rec);
    } else {
        IntervalInfo info = {c->intervals_closed, 1, how, site};
        collect_write_profile(rows, n, &info);
    }
    VG_(free)(rows);
    collect_reset_counts();
    c->intervals_closed++;
}

/* Write phase p's profile (the process's own when `info` is NULL). */
static void write_phase(Phase *p, const IntervalInfo *info)
{
    UInt n = 0, cap = VG_(HT_count_nodes)(p->recs);
    ProfileRow *rows = VG_(malloc)("augur.rows", (cap ? cap : 1) * sizeof *rows);
    VG_(HT_ResetIter)(p->recs);
    for (PhaseRec *pr; (pr = VG_(HT_Next)(p->recs));)
        rows[n++] = (ProfileRow){pr->rec, &pr->n};
    collect_write_profile(rows, n, info);
    VG_(free)(rows);
}

void collect_finish_profiles(void)
{
    Collector *c = &collector;
    if (!c->total) { /* no interval closed: the records are the process's counts */
        collect_take_counts();
        UInt n;
        ProfileRow *rows = executed_records(&n);
        collect_write_profile(rows, n, NULL);
        VG_(free)(rows);
        return;
    }
    collect_close_interval(CLOSED_BY_END, NULL);
    write_phase(c->total, NULL);
    for (Word i = 0; c->phases && i < VG_(sizeXA)(c->phases); i++) {
        Phase *p = *(Phase **)VG_(indexXA)(c->phases, i);
        write_phase(p, &p->info);
    }
}

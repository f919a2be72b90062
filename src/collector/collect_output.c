/* collect_output.c — write this process's raw profile (docs/profile-format.md),
 * and those of its intervals.
 *
 * Written to <out>/augur.<pid>[.<token>].prof.tmp and renamed to
 * augur.<pid>[.<token>].prof only when complete, so a profile that exists is
 * whole; the token (--augur-run) marks the files of one `augur collect`.  An
 * interval's profile is augur.<pid>[.<token>].i<index>.prof.  Instructions
 * are sorted by module and address so that profiles of identical runs are
 * identical.
 */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"

#include "collector/collect.h"
#include "profile/profile_writer.h"
#include "vgcommon/vg_outfile.h"

/* The `regions` line and the patterns' lines, when the run was not
 * counted whole from start to end (docs/profile-format.md, "Regions"). */
static void write_regions(profile_writer *w)
{
    Collector *c = &collector;
    if (c->instr_at_start && !c->starts && !c->stops && !c->zeros && !c->dumps && !c->nregion_fns &&
        !c->ninterval_fns)
        return;
    pw_key(w, "regions");
    pw_u64(w, c->instr_at_start);
    pw_u64(w, c->starts);
    pw_u64(w, c->stops);
    pw_u64(w, c->zeros);
    pw_u64(w, c->dumps);
    pw_eol(w);
    for (UInt i = 0; i < c->nregion_fns; i++) {
        pw_key(w, "region-fn");
        pw_str(w, c->region_fn[i].glob);
        pw_u64(w, c->region_fn[i].entries);
        pw_eol(w);
    }
    for (UInt i = 0; i < c->ninterval_fns; i++) {
        pw_key(w, "interval-fn");
        pw_str(w, c->interval_fn[i].glob);
        pw_u64(w, c->interval_fn[i].entries);
        pw_eol(w);
    }
}

/* The `interval` line of an interval's profile. */
static void write_interval(profile_writer *w, const IntervalInfo *iv)
{
    static const HChar *const how[] = {[CLOSED_BY_CALL] = "call", [CLOSED_BY_DUMP] = "dump", [CLOSED_BY_END] = "end"};
    const InstrRec *site = iv->site;
    pw_key(w, "interval");
    pw_u64(w, iv->index);
    pw_u64(w, iv->count);
    pw_str(w, how[iv->how]);
    if (site)
        vgn_write_location(&collector.names, w, site->module, site->addr);
    else
        pw_i64(w, -1), pw_str(w, "0");
    pw_i64(w, site ? site->fn : -1);
    pw_i64(w, site ? site->file : -1);
    pw_u64(w, site ? site->line : 0);
    pw_eol(w);
}

static void write_header(profile_writer *w)
{
    Collector *c = &collector;
    pw_key(w, "augur-profile");
    pw_u64(w, PROFILE_VERSION);
    pw_eol(w);
    pw_key(w, "tool");
    pw_str(w, "augur-collect");
    pw_str(w, AUGUR_TOOL_VERSION);
    pw_eol(w);
    vgo_write_process(w);
    for (UInt i = 0; i < c->nblock_sizes; i++) {
        pw_key(w, "block-size");
        pw_u64(w, c->block_size[i]);
        pw_eol(w);
    }
    for (UInt j = 0; j < c->nset_counts; j++) {
        pw_key(w, "set-count");
        pw_u64(w, c->set_count[j]);
        pw_u64(w, 1u << RD_SET_LINE_SHIFT);
        pw_u64(w, RD_SET_WAYS);
        pw_eol(w);
    }
    pw_key(w, "threads");
    pw_u64(w, c->threads_created);
    pw_eol(w);
    if (c->sample_threshold) {
        pw_key(w, "sample-rd");
        pw_u64(w, c->sample_threshold);
        pw_u64(w, RD_SAMPLE_MODULUS);
        pw_eol(w);
    }
    collect_write_mpi(w);
    write_regions(w);
    vgn_write(&c->names, w);
}

/* `addr` as the profile stores it: module-relative when in a module. */
static void write_location(profile_writer *w, Int module, Addr addr)
{
    vgn_write_location(&collector.names, w, module, addr);
}

/* Bin b of h as the profile gives it: as counted, or sampling, scaled to the
 * whole run, with the accesses the fast path skipped (exact_zero) in bin 0. */
static rd_bin bin_out(const rd_hist *h, UInt b, ULong exact_zero)
{
    UInt threshold = collector.sample_threshold;
    rd_bin x = b < h->nbins ? h->bins[b] : (rd_bin){0, 0};
    if (!threshold)
        return x;
    if (x.count)
        x = rd_bin_sample_scale(b, x, threshold);
    if (b == 0)
        x.count += exact_zero;
    return x;
}

/* A `hist` line at block size `key` (keyword "hist"), or a `sets` line at
 * set count `key` (its cold count the far touches; never sampled). */
static void write_hist(profile_writer *w, const HChar *keyword, UInt key, const rd_hist *h, ULong exact_zero)
{
    UInt top = h->nbins ? h->nbins : exact_zero != 0; /* bins [0, top) may be non-empty */
    ULong cold = collector.sample_threshold ? rd_sample_scale(h->cold, collector.sample_threshold) : h->cold;
    ULong touches = cold;
    UInt nonempty = 0;
    for (UInt b = 0; b < top; b++) {
        rd_bin x = bin_out(h, b, exact_zero);
        touches += x.count;
        nonempty += x.count != 0;
    }
    pw_key(w, keyword);
    pw_u64(w, key);
    pw_u64(w, touches);
    pw_u64(w, cold);
    pw_u64(w, nonempty);
    for (UInt b = 0; b < top; b++) {
        rd_bin x = bin_out(h, b, exact_zero);
        if (x.count) {
            pw_u64(w, b);
            pw_u64(w, x.count);
            pw_u64(w, x.sum);
        }
    }
    pw_eol(w);
}

/* The instruction's dominant address delta and its deltas' 2-adic classes
 * (docs/profile-format.md, "Strides"), when two of its counted accesses
 * reached a helper. */
static void write_stride(profile_writer *w, const StrideVote *v)
{
    if (!v->deltas)
        return;
    pw_key(w, "stride");
    pw_i64(w, v->stride);
    pw_u64(w, v->count);
    pw_u64(w, v->deltas);
    for (UInt k = 0; k < PROFILE_POW2_CLASSES; k++)
        if (v->pow2[k]) {
            pw_u64(w, PROFILE_POW2_FIRST + k);
            pw_u64(w, v->pow2[k]);
        }
    pw_eol(w);
}

static void write_instr(profile_writer *w, const InstrRec *rec, const InstrCounts *n)
{
    Collector *c = &collector;
    pw_key(w, "ins");
    write_location(w, rec->module, rec->addr);
    pw_u64(w, rec->len);
    pw_i64(w, rec->fn);
    pw_i64(w, rec->file);
    pw_u64(w, rec->line);
    pw_u64(w, n->execs);
    pw_u64(w, n->reads);
    pw_u64(w, n->writes);
    pw_eol(w);
    if (rec->is_cond_branch) {
        pw_key(w, "br");
        pw_u64(w, n->taken);
        pw_eol(w);
    }
    for (UInt i = 0; i < n->targets.n; i++) {
        const KeyCount *t = &n->targets.e[i];
        if (!t->count)
            continue;
        Addr bias;
        pw_key(w, "ind");
        write_location(w, vgn_module(&collector.names, t->key, &bias), t->key);
        pw_u64(w, t->count);
        pw_eol(w);
    }
    for (UInt i = 0; i < n->callees.n; i++) {
        const KeyCount *e = &n->callees.e[i];
        const InstrRec *callee = (const InstrRec *)e->key;
        if (!e->count || !callee->in_profile) /* a call into what was not counted (an interval function) */
            continue;
        pw_key(w, "call");
        write_location(w, callee->module, callee->addr);
        pw_u64(w, e->count);
        pw_eol(w);
    }
    if (n->reads + n->writes > 0) {
        for (UInt i = 0; i < c->nblock_sizes; i++)
            write_hist(w, "hist", c->block_size[i], &n->hist[i], n->exact_zero);
        for (UInt j = 0; j < c->nset_counts; j++)
            write_hist(w, "sets", c->set_count[j], &n->hist[c->nblock_sizes + j], 0);
        write_stride(w, &n->vote);
    }
}

static Int by_module_then_address(const void *a, const void *b)
{
    const InstrRec *x = ((const ProfileRow *)a)->rec, *y = ((const ProfileRow *)b)->rec;
    if (x->module != y->module)
        return x->module < y->module ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

typedef struct Body {
    ProfileRow *rows;
    UInt n;
    const IntervalInfo *interval;
} Body;

static void write_body(profile_writer *w, void *ctx)
{
    Body *b = ctx;
    /* Resolve indirect-branch targets to modules before the header lists the
     * modules: a target may lie in a module no executed code came from. */
    for (UInt i = 0; i < b->n; i++)
        for (UInt k = 0; k < b->rows[i].n->targets.n; k++) {
            Addr bias;
            vgn_module(&collector.names, b->rows[i].n->targets.e[k].key, &bias);
        }
    if (b->interval && b->interval->site) {
        Addr bias;
        vgn_module(&collector.names, b->interval->site->addr, &bias);
    }
    write_header(w);
    if (b->n)
        VG_(ssort)(b->rows, b->n, sizeof *b->rows, by_module_then_address);
    for (UInt i = 0; i < b->n; i++)
        b->rows[i].rec->in_profile = b->rows[i].n->execs > 0;
    for (UInt i = 0; i < b->n; i++)
        if (b->rows[i].n->execs)
            write_instr(w, b->rows[i].rec, b->rows[i].n);
    for (UInt i = 0; i < b->n; i++)
        b->rows[i].rec->in_profile = False;
    if (b->interval)
        write_interval(w, b->interval);
    else
        collect_write_comm(w);
    if (collector.exited) {
        pw_key(w, "exit");
        pw_u64(w, (ULong)(UInt)collector.exit_code & 0xff);
        pw_eol(w);
    }
}

void collect_write_profile(ProfileRow *rows, UInt n, const IntervalInfo *interval)
{
    HChar name[128], part[32] = "";
    if (interval)
        VG_(snprintf)(part, sizeof part, ".i%llu", interval->index);
    if (collector.run_token)
        VG_(snprintf)(name, sizeof name, "augur.%d.%s%s.prof", VG_(getpid)(), collector.run_token, part);
    else
        VG_(snprintf)(name, sizeof name, "augur.%d%s.prof", VG_(getpid)(), part);
    Body b = {rows, n, interval};
    vgo_write_file("augur", collector.out_dir, name, write_body, &b);
}

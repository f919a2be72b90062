/* collect_output.c — write this process's raw profile (docs/profile-format.md).
 *
 * Written to <out>/augur.<pid>[.<token>].prof.tmp and renamed to
 * augur.<pid>[.<token>].prof only when complete, so a profile that exists is
 * whole; the token (--augur-run) marks the files of one `augur collect`.  Instructions are sorted
 * by module and address so that profiles of identical runs are identical.
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
    pw_key(w, "threads");
    pw_u64(w, c->threads_created);
    pw_eol(w);
    vgn_write(&c->names, w);
}

/* `addr` as the profile stores it: module-relative when in a module. */
static void write_location(profile_writer *w, Int module, Addr addr)
{
    vgn_write_location(&collector.names, w, module, addr);
}

static void write_hist(profile_writer *w, UInt block_size, const rd_hist *h)
{
    ULong touches = h->cold;
    UInt nonempty = 0;
    for (UInt b = 0; b < h->nbins; b++) {
        touches += h->bins[b].count;
        nonempty += h->bins[b].count != 0;
    }
    pw_key(w, "hist");
    pw_u64(w, block_size);
    pw_u64(w, touches);
    pw_u64(w, h->cold);
    pw_u64(w, nonempty);
    for (UInt b = 0; b < h->nbins; b++) {
        if (h->bins[b].count) {
            pw_u64(w, b);
            pw_u64(w, h->bins[b].count);
            pw_u64(w, h->bins[b].sum);
        }
    }
    pw_eol(w);
}

/* The instruction's dominant address delta (docs/profile-format.md,
 * "Strides"), when two of its accesses reached a helper. */
static void write_stride(profile_writer *w, const InstrRec *rec)
{
    if (!rec->deltas)
        return;
    pw_key(w, "stride");
    pw_i64(w, rec->stride);
    pw_u64(w, rec->stride_count);
    pw_u64(w, rec->deltas);
    pw_eol(w);
}

static void write_instr(profile_writer *w, const InstrRec *rec)
{
    Collector *c = &collector;
    pw_key(w, "ins");
    write_location(w, rec->module, rec->addr);
    pw_u64(w, rec->len);
    pw_i64(w, rec->fn);
    pw_i64(w, rec->file);
    pw_u64(w, rec->line);
    pw_u64(w, rec->execs);
    pw_u64(w, rec->reads);
    pw_u64(w, rec->writes);
    pw_eol(w);
    if (rec->is_cond_branch) {
        pw_key(w, "br");
        pw_u64(w, rec->taken);
        pw_eol(w);
    }
    for (UInt i = 0; i < rec->targets.n; i++) {
        const KeyCount *t = &rec->targets.e[i];
        if (!t->count)
            continue;
        Addr bias;
        pw_key(w, "ind");
        write_location(w, vgn_module(&collector.names, t->key, &bias), t->key);
        pw_u64(w, t->count);
        pw_eol(w);
    }
    for (UInt i = 0; i < rec->callees.n; i++) {
        const KeyCount *e = &rec->callees.e[i];
        const InstrRec *callee = (const InstrRec *)e->key;
        if (!e->count)
            continue;
        pw_key(w, "call");
        write_location(w, callee->module, callee->addr);
        pw_u64(w, e->count);
        pw_eol(w);
    }
    if (rec->reads + rec->writes > 0) {
        for (UInt i = 0; i < c->nblock_sizes; i++)
            write_hist(w, c->block_size[i], &rec->hist[i]);
        write_stride(w, rec);
    }
}

static Int by_module_then_address(const void *a, const void *b)
{
    const InstrRec *x = *(InstrRec *const *)a, *y = *(InstrRec *const *)b;
    if (x->module != y->module)
        return x->module < y->module ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void write_body(profile_writer *w, void *ctx)
{
    (void)ctx;
    UInt n;
    VgHashNode **all = VG_(HT_to_array)(collector.instrs, &n);
    InstrRec **recs = (InstrRec **)all;
    /* Resolve indirect-branch targets to modules before the header lists the
     * modules: a target may lie in a module no executed code came from. */
    for (UInt i = 0; i < n; i++)
        for (UInt k = 0; k < recs[i]->targets.n; k++) {
            Addr bias;
            vgn_module(&collector.names, recs[i]->targets.e[k].key, &bias);
        }
    write_header(w);
    if (n)
        VG_(ssort)(recs, n, sizeof *recs, by_module_then_address);
    for (UInt i = 0; i < n; i++)
        if (recs[i]->execs)
            write_instr(w, recs[i]);
    if (all)
        VG_(free)(all);
    if (collector.exited) {
        pw_key(w, "exit");
        pw_u64(w, (ULong)(UInt)collector.exit_code & 0xff);
        pw_eol(w);
    }
}

void collect_write_profile(void)
{
    HChar name[96];
    if (collector.run_token)
        VG_(snprintf)(name, sizeof name, "augur.%d.%s.prof", VG_(getpid)(), collector.run_token);
    else
        VG_(snprintf)(name, sizeof name, "augur.%d.prof", VG_(getpid)());
    vgo_write_file("augur", collector.out_dir, name, write_body, NULL);
}

/* memspy_output.c — write this process's raw file (docs/memspy-format.md).
 *
 * Written to <out-dir>/memspy.<pid>.out.tmp and renamed to memspy.<pid>.out
 * when complete (src/vgcommon/vg_outfile.c).  Code locations are numbered
 * in module-and-address order and only those with a pair are written, and
 * each one's pairs in object order, so the files of identical runs are
 * identical, whether simulated in the tool or in augur's consumer.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"

#include "memspy/memspy.h"
#include "profile/profile_writer.h"
#include "vgcommon/vg_outfile.h"

static const HChar *const kind_names[] = {"heap", "global", "stack", "other"};

static void line_u64(profile_writer *w, const HChar *key, ULong v)
{
    pw_key(w, key);
    pw_u64(w, v);
    pw_eol(w);
}

static void write_config(profile_writer *w)
{
    const ms_config *c = &memspy.config;
    for (UInt k = 0; k < c->nlevels; k++) {
        pw_key(w, "level");
        pw_u64(w, k);
        pw_str(w, memspy.level_name[k]);
        pw_u64(w, c->level[k].size);
        pw_u64(w, c->level[k].line);
        pw_u64(w, c->level[k].ways);
        pw_u64(w, c->level[k].shared_by);
        pw_eol(w);
    }
    if (memspy.sample_on) {
        pw_key(w, "sampling");
        pw_str(w, "time");
        pw_u64(w, memspy.sample_on);
        pw_u64(w, memspy.sample_off);
        pw_eol(w);
    }
    if (c->set_sample > 1) {
        pw_key(w, "sampling");
        pw_str(w, "sets");
        pw_u64(w, c->set_sample);
        pw_eol(w);
    }
    if (!memspy.sample_on && c->set_sample <= 1) {
        pw_key(w, "sampling");
        pw_str(w, "none");
        pw_eol(w);
    }
    /* the lines the shadows tell apart: 1 in set_sample * shadow_sample
     * under set sampling (memsim.h) */
    line_u64(w, "shadow", (ULong)1 << ((const ms_fast *)(void *)memspy.sim)->shadow_log2);
    if (memspy.regions_used)
        line_u64(w, "regions", memspy.regions);
}

static void write_header(profile_writer *w)
{
    line_u64(w, "augur-memspy", 2);
    pw_key(w, "tool");
    pw_str(w, "augur-memspy");
    pw_str(w, MEMSPY_VERSION);
    pw_eol(w);
    vgo_write_process(w);
    write_config(w);
    line_u64(w, "threads", memspy.threads_created);
    if (memspy_threads_folded()) {
        HChar text[160];
        VG_(snprintf)(text, sizeof text, "%u threads share the private caches of %u: thread n "
                      "simulated as thread n mod %u", memspy.threads_created, MS_MAX_THREADS,
                      MS_MAX_THREADS);
        pw_key(w, "warning");
        pw_str(w, text);
        pw_eol(w);
    }
    vgn_write(&memspy.names, w);
}

static void write_loc(profile_writer *w, const HChar *key, UInt id, Addr addr, const VgCodeLoc *loc)
{
    pw_key(w, key);
    pw_u64(w, id);
    vgn_write_location(&memspy.names, w, loc->module, addr);
    pw_i64(w, loc->fn);
    pw_i64(w, loc->file);
    pw_u64(w, loc->line);
    pw_eol(w);
}

static void write_objects(profile_writer *w)
{
    for (UInt id = 0; id < memspy_nobjs(); id++) {
        const DataObj *o = memspy_obj(id);
        pw_key(w, "obj");
        pw_u64(w, id);
        pw_str(w, kind_names[o->kind]);
        pw_str(w, o->name);
        pw_u64(w, o->size);
        pw_u64(w, o->count);
        pw_eol(w);
        for (UInt f = 0; f < o->nframes; f++)
            write_loc(w, "site", f, o->frames[f].addr, &o->frames[f].loc);
    }
}

static Int by_module_then_address(const void *a, const void *b)
{
    const CodeRec *x = *(CodeRec *const *)a, *y = *(CodeRec *const *)b;
    if (x->loc.module != y->loc.module)
        return x->loc.module < y->loc.module ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Set sampling: the pair's misses per level and group, the line after its
 * pair line (none for a pair that never missed). */
static void write_groups(profile_writer *w, const PairRec *p)
{
    pw_key(w, "groups");
    for (UInt k = 0; k < memspy.config.nlevels; k++)
        for (UInt g = 0; g < MEMSPY_GROUPS; g++)
            pw_u64(w, p->group_miss[k][g]);
    pw_eol(w);
}

static void write_pair(profile_writer *w, UInt code_id, const PairRec *p)
{
    pw_key(w, "pair");
    pw_u64(w, code_id);
    pw_u64(w, p->obj);
    pw_u64(w, p->n.refs);
    pw_u64(w, p->n.reads);
    pw_u64(w, p->n.writes);
    for (UInt k = 0; k < memspy.config.nlevels; k++) {
        pw_u64(w, p->n.miss[k]);
        pw_u64(w, p->n.cause[k][MS_COLD]);
        pw_u64(w, p->n.cause[k][MS_CAPACITY]);
        pw_u64(w, p->n.cause[k][MS_CONFLICT]);
        pw_u64(w, p->n.cause[k][MS_TRUE_SHARING]);
        pw_u64(w, p->n.cause[k][MS_FALSE_SHARING]);
        pw_u64(w, p->n.unknown[k]);
        pw_u64(w, p->n.unknown_hits[k]);
    }
    pw_eol(w);
    if (p->group_miss)
        write_groups(w, p);
}

static Bool has_refs(const CodeRec *code)
{
    for (const PairRec *p = code->pairs; p; p = p->next)
        if (p->n.refs)
            return True;
    return False;
}

static Int by_obj(const void *a, const void *b)
{
    UInt x = (*(PairRec *const *)a)->obj, y = (*(PairRec *const *)b)->obj;
    return x < y ? -1 : x > y;
}

/* The pairs of code (id code_id) with references, by object: their list's
 * order is the order of use, which the simulator's consumer
 * (--analysis pipe) does not keep. */
static void write_pairs_of(profile_writer *w, UInt code_id, const CodeRec *code)
{
    UInt n = 0, k = 0;
    for (const PairRec *p = code->pairs; p; p = p->next)
        n += p->n.refs != 0;
    const PairRec **sorted = VG_(malloc)("memspy.out.pairs", n * sizeof *sorted);
    for (const PairRec *p = code->pairs; p; p = p->next)
        if (p->n.refs)
            sorted[k++] = p;
    VG_(ssort)(sorted, n, sizeof *sorted, by_obj);
    for (k = 0; k < n; k++)
        write_pair(w, code_id, sorted[k]);
    VG_(free)(sorted);
}

/* Every code location with references, then its pairs; ids dense. */
static void write_codes_and_pairs(profile_writer *w)
{
    UInt n;
    CodeRec **codes = (CodeRec **)VG_(HT_to_array)(memspy.codes, &n);
    if (n)
        VG_(ssort)(codes, n, sizeof *codes, by_module_then_address);
    UInt id = 0;
    for (UInt i = 0; i < n; i++)
        if (has_refs(codes[i]))
            write_loc(w, "code", id++, codes[i]->addr, &codes[i]->loc);
    id = 0;
    for (UInt i = 0; i < n; i++) {
        if (!has_refs(codes[i]))
            continue;
        write_pairs_of(w, id++, codes[i]);
    }
    if (codes)
        VG_(free)(codes);
}

static Int by_key(const void *a, const void *b)
{
    UWord x = (*(EvictRec *const *)a)->key, y = (*(EvictRec *const *)b)->key;
    return x < y ? -1 : x > y;
}

static void write_evictions(profile_writer *w)
{
    UInt n;
    EvictRec **e = (EvictRec **)VG_(HT_to_array)(memspy.evictions, &n);
    if (n)
        VG_(ssort)(e, n, sizeof *e, by_key);
    for (UInt i = 0; i < n; i++) {
        if (!e[i]->count)
            continue;
        pw_key(w, "evict");
        pw_u64(w, e[i]->key >> 60);
        pw_u64(w, (e[i]->key >> 30) & ((1u << 30) - 1));
        pw_u64(w, e[i]->key & ((1u << 30) - 1));
        pw_u64(w, e[i]->count);
        pw_eol(w);
    }
    if (e)
        VG_(free)(e);
}

static void write_threads(profile_writer *w)
{
    UInt n = memspy.threads_created < MS_MAX_THREADS ? memspy.threads_created : MS_MAX_THREADS;
    for (UInt t = 0; t < n; t++) {
        pw_key(w, "thread");
        pw_u64(w, t);
        pw_u64(w, memspy.thread[t].refs);
        for (UInt k = 0; k < memspy.config.nlevels; k++)
            pw_u64(w, memspy.thread[t].miss[k]);
        pw_eol(w);
    }
}

static void write_body(profile_writer *w, void *ctx)
{
    (void)ctx;
    /* Code and object names are interned when first seen, so every fn and
     * file id is known before the header lists them. */
    write_header(w);
    write_objects(w);
    write_codes_and_pairs(w);
    write_evictions(w);
    write_threads(w);
    line_u64(w, "skipped", memspy_skipped());
    if (memspy.exec_path) {
        pw_key(w, "exec");
        pw_str(w, memspy.exec_path);
        pw_eol(w);
    }
    if (memspy.exited)
        line_u64(w, "exit", (ULong)(UInt)memspy.exit_code & 0xff);
}

void memspy_write_output(void)
{
    if (memspy.channel)
        memspy_pipe_flush(); /* the counts are the consumer's */
    HChar name[64];
    VG_(snprintf)(name, sizeof name, "memspy.%d.out", VG_(getpid)());
    vgo_write_file("memspy", memspy.out_dir, name, write_body, NULL);
}

void memspy_write_before_exec(const HChar *path)
{
    memspy_flush();
    if (!memspy.simulate)
        return;
    memspy.exec_path = path;
    memspy_write_output();
    memspy.exec_path = NULL;
}

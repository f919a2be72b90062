/* memspy_read.c — the strict reader of memspy's raw file
 * (docs/memspy-format.md).  The framing (version, end line, line count,
 * CRC-32) is checked first by rawtext_open, so that damage is named as
 * damage; then each line is parsed through a table of keywords whose
 * ranks never decrease (the documented order), and every identifier must
 * be defined before its use.  Counts that contradict each other are
 * refused here, so the report can trust them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memspy_report/memspy_report.h"
#include "util/array.h"
#include "util/rawtext.h"

#define PAIR_FIELDS (6 + MR_LEVEL_FIELDS * MR_MAX_LEVELS + 2)
#define GROUPS_FIELDS (1 + MS_SET_GROUPS * MR_MAX_LEVELS + 2)
#define MAX_FIELDS (PAIR_FIELDS > GROUPS_FIELDS ? PAIR_FIELDS : GROUPS_FIELDS)
#define TRUNCATED_HINT "the program may have been killed before memspy finished its file"

enum rank { R_MAGIC, R_TOOL, R_PID, R_PPID, R_EXE, R_ARG, R_LEVEL, R_SAMPLING, R_SHADOW, R_THREADS, R_BODY, R_SKIPPED,
            R_EXEC, R_EXIT };

typedef struct reader {
    rawtext t;
    memspy_raw *m;
    size_t cap_args, cap_modules, cap_bias, cap_fns, cap_files, cap_objs, cap_sites, cap_codes, cap_pairs,
        cap_evicts, cap_threads, cap_warnings;
    rawtext_order order; /* the keyword table and the lines seen so far */
    int sampling_lines;  /* 'sampling' lines read so far */
    int after_pair;      /* the line before was a 'pair' line (a 'groups' line may follow) */
    uint64_t refs, evictions, thread_refs; /* the file's sums, each within RAWTEXT_MAX_COUNT */
    size_t threads_line;
    char *fields[MAX_FIELDS];
} reader;

#define fail(r, ...) rawtext_fail(&(r)->t, (r)->t.lineno, __VA_ARGS__)

static int out_of_memory(reader *r)
{
    return fail(r, "out of memory");
}

/* Room for one more element of a growing array: returns the element, or
 * NULL (message written) when memory runs out. */
static void *append(reader *r, void **arr, size_t n, size_t *cap, size_t size)
{
    void *a = array_grow(*arr, n, cap, size);
    if (!a) {
        out_of_memory(r);
        return NULL;
    }
    *arr = a;
    char *slot = (char *)a + n * size;
    memset(slot, 0, size);
    return slot;
}

/* ---- header -------------------------------------------------------------- */

static int parse_magic(reader *r, char **f)
{
    return rawtext_version(&r->t, f[1]);
}

static int parse_tool(reader *r, char **f)
{
    return rawtext_tool(&r->t, f[1], f[2], &r->m->tool);
}

static int parse_pid(reader *r, char **f)
{
    return rawtext_process_id(&r->t, f[1], "pid", &r->m->pid);
}

static int parse_ppid(reader *r, char **f)
{
    return rawtext_process_id(&r->t, f[1], "ppid", &r->m->ppid);
}

static int parse_exe(reader *r, char **f)
{
    return rawtext_string(&r->t, f[1], "exe", &r->m->exe);
}

static int parse_arg(reader *r, char **f)
{
    return rawtext_push_string(&r->t, f[1], "arg", &r->m->argv, &r->m->argc, &r->cap_args);
}

/* A level the simulator could have simulated (its own rules,
 * cachesim.h cs_level_check: a size of 0 was taken). */
static int check_level_geometry(reader *r, const mr_level *l)
{
    const char *why = cs_level_check(l->size, l->line, l->ways);
    if (why)
        return fail(r, "level %s: SIZE %llu, LINE %u, WAYS %u: %s: the file is damaged (run augur memspy again)",
                    l->name, (unsigned long long)l->size, l->line, l->ways, why);
    if (l->shared_by == 0)
        return fail(r, "level %s: SHARED is 0 (1 for a private level, the cores sharing it otherwise)", l->name);
    return 0;
}

static int parse_level(reader *r, char **f)
{
    memspy_raw *m = r->m;
    uint64_t size, line, ways, shared;
    if (m->nlevels == MR_MAX_LEVELS)
        return fail(r, "more than %u cache levels", MR_MAX_LEVELS);
    if (rawtext_dense_id(&r->t, f[1], "level", (int)m->nlevels) != 0)
        return -1;
    mr_level *l = &m->level[m->nlevels];
    if (rawtext_string(&r->t, f[2], "level name", &l->name) != 0)
        return -1;
    m->nlevels++; /* from here the name is owned by the raw file */
    if (rawtext_u64(&r->t, f[3], "SIZE", &size) != 0 || rawtext_bounded(&r->t, f[4], "LINE", UINT32_MAX, &line) != 0 ||
        rawtext_bounded(&r->t, f[5], "WAYS", UINT32_MAX, &ways) != 0 ||
        rawtext_bounded(&r->t, f[6], "SHARED", UINT32_MAX, &shared) != 0)
        return -1;
    *l = (mr_level){l->name, size, (uint32_t)line, (uint32_t)ways, (uint32_t)shared};
    if (m->nlevels > 1 && l->line != m->level[0].line)
        return fail(r, "level %s has %u-byte lines, level %s %u: memspy simulates one line size", l->name, l->line,
                    m->level[0].name, m->level[0].line);
    return check_level_geometry(r, l);
}

static int parse_sampling(reader *r, char **f, int nf)
{
    memspy_raw *m = r->m;
    int first = !r->sampling_lines++;
    if (!first && !(m->sampling == MR_SAMPLE_TIME && m->sets == 0 && nf >= 2 && !strcmp(f[1], "sets")))
        return fail(r, "a second 'sampling' line: only 'sampling sets N' may follow 'sampling time ON OFF'");
    if (nf == 2 && !strcmp(f[1], "none")) {
        m->sampling = MR_SAMPLE_NONE;
        return 0;
    }
    if (nf == 4 && !strcmp(f[1], "time")) {
        m->sampling = MR_SAMPLE_TIME;
        if (rawtext_u64(&r->t, f[2], "ON", &m->on) != 0 || rawtext_u64(&r->t, f[3], "OFF", &m->off) != 0)
            return -1;
        return m->on ? 0 : fail(r, "time sampling with ON = 0 simulates nothing");
    }
    if (nf == 3 && !strcmp(f[1], "sets")) {
        if (first) /* with time sampling, the sets come second and time's bounds apply */
            m->sampling = MR_SAMPLE_SETS;
        if (rawtext_u64(&r->t, f[2], "N", &m->sets) != 0)
            return -1;
        return m->sets && !(m->sets & (m->sets - 1)) ? 0 : fail(r, "set sampling N must be a power of two >= 1");
    }
    return fail(r, "malformed 'sampling' line (expected: sampling none | sampling time ON OFF | sampling sets N)");
}

/* shadow N: capacity and conflict told apart on 1 line in N (1: every
 * miss has its cause).  Optional: files written before it was added say
 * nothing, and then causes falling short of MISS are read as unsplit. */
static int parse_shadow(reader *r, char **f)
{
    memspy_raw *m = r->m;
    if (rawtext_u64(&r->t, f[1], "N", &m->shadow_sample) != 0)
        return -1;
    return m->shadow_sample && !(m->shadow_sample & (m->shadow_sample - 1))
               ? 0
               : fail(r, "shadow sampling N must be a power of two >= 1");
}

static int parse_regions(reader *r, char **f)
{
    uint64_t n;
    if (rawtext_bounded(&r->t, f[1], "regions", INT64_MAX, &n) != 0)
        return -1;
    r->m->regions = (int64_t)n;
    return 0;
}

/* A note from the tool for the reader of the report (threads folded onto
 * the simulator's 64, for one). */
static int parse_warning(reader *r, char **f)
{
    memspy_raw *m = r->m;
    char **slot = append(r, (void **)&m->warnings, m->nwarnings, &r->cap_warnings, sizeof *slot);
    if (!slot)
        return -1;
    m->nwarnings++;
    return rawtext_string(&r->t, f[1], "warning", slot);
}

static int parse_threads(reader *r, char **f)
{
    uint64_t t;
    if (rawtext_bounded(&r->t, f[1], "threads", UINT32_MAX, &t) != 0)
        return -1;
    if (t == 0)
        return fail(r, "threads is 0 (the main thread counts)");
    r->m->threads = (uint32_t)t;
    r->threads_line = r->t.lineno;
    return 0;
}

/* ---- definitions --------------------------------------------------------- */

static int parse_module(reader *r, char **f)
{
    memspy_raw *m = r->m;
    if (rawtext_dense_id(&r->t, f[1], "module", m->nmodules) != 0)
        return -1;
    char **p = append(r, (void **)&m->module_paths, (size_t)m->nmodules, &r->cap_modules, sizeof *p);
    uint64_t *b = p ? append(r, (void **)&m->module_bias, (size_t)m->nmodules, &r->cap_bias, sizeof *b) : NULL;
    if (!b)
        return -1;
    m->nmodules++;
    return rawtext_hex(&r->t, f[3], "module bias", b) != 0 ? -1 : rawtext_string(&r->t, f[2], "module path", p);
}

static int parse_fn(reader *r, char **f)
{
    return rawtext_name(&r->t, f, "fn", &r->m->fns, &r->m->nfns, &r->cap_fns);
}

static int parse_file(reader *r, char **f)
{
    return rawtext_name(&r->t, f, "file", &r->m->files, &r->m->nfiles, &r->cap_files);
}

static int parse_obj(reader *r, char **f)
{
    memspy_raw *m = r->m;
    if (rawtext_dense_id(&r->t, f[1], "obj", (int)m->nobjs) != 0)
        return -1;
    mr_obj *o = append(r, (void **)&m->objs, m->nobjs, &r->cap_objs, sizeof *o);
    if (!o)
        return -1;
    m->nobjs++;
    o->kind = MR_NKINDS;
    for (int k = 0; k < MR_NKINDS; k++)
        if (!strcmp(f[2], mr_kind_name((enum mr_obj_kind)k)))
            o->kind = (uint8_t)k;
    if (o->kind == MR_NKINDS)
        return fail(r, "object kind '%s' is none of heap, global, stack, other", f[2]);
    o->first_site = (uint32_t)m->nsites;
    return rawtext_string(&r->t, f[3], "object name", &o->name) != 0 ||
                   rawtext_u64(&r->t, f[4], "SIZE", &o->size) != 0 || rawtext_u64(&r->t, f[5], "COUNT", &o->count) != 0
               ? -1
               : 0;
}

/* The fields MODULE ADDR FN FILE LINE of code and site lines. */
static int parse_loc(reader *r, char **f, mr_loc *l)
{
    const memspy_raw *m = r->m;
    uint64_t line;
    if (rawtext_id(&r->t, f[0], "module", m->nmodules, 1, &l->module) != 0 ||
        rawtext_hex(&r->t, f[1], "address", &l->addr) != 0 || rawtext_id(&r->t, f[2], "fn", m->nfns, 1, &l->fn) != 0 ||
        rawtext_id(&r->t, f[3], "file", m->nfiles, 1, &l->file) != 0 ||
        rawtext_bounded(&r->t, f[4], "line", UINT32_MAX, &line) != 0)
        return -1;
    l->line = (uint32_t)line;
    return 0;
}

static int parse_site(reader *r, char **f)
{
    memspy_raw *m = r->m;
    mr_obj *o = m->nobjs ? &m->objs[m->nobjs - 1] : NULL;
    if (!o || o->kind != MR_HEAP || o->first_site + o->nsites != m->nsites)
        return fail(r, "'site' line not directly after a heap object's 'obj' line or its other sites");
    if (rawtext_dense_id(&r->t, f[1], "site", (int)o->nsites) != 0) /* the frame's depth in its stack */
        return -1;
    if (o->nsites == MR_MAX_SITES)
        return fail(r, "more than %d sites for one object", MR_MAX_SITES);
    mr_loc *l = append(r, (void **)&m->sites, m->nsites, &r->cap_sites, sizeof *l);
    if (!l || parse_loc(r, f + 2, l) != 0)
        return -1;
    m->nsites++;
    o->nsites++;
    return 0;
}

static int parse_code(reader *r, char **f)
{
    memspy_raw *m = r->m;
    if (rawtext_dense_id(&r->t, f[1], "code", (int)m->ncodes) != 0)
        return -1;
    mr_loc *l = append(r, (void **)&m->codes, m->ncodes, &r->cap_codes, sizeof *l);
    if (!l || parse_loc(r, f + 2, l) != 0)
        return -1;
    m->ncodes++;
    return 0;
}

/* ---- counts -------------------------------------------------------------- */

/* MISS COLD CAPACITY CONFLICT TRUE FALSE UNKNOWN UNKNOWN-HITS of one level. */
static int parse_misses(reader *r, char **f, const char *level, uint64_t refs, const mr_misses *above,
                        mr_misses *m)
{
    static const char *const names[] = {"MISS", "COLD",    "CAPACITY", "CONFLICT",
                                        "TRUE", "FALSE",   "UNKNOWN",  "UNKNOWN-HITS"};
    uint64_t v[MR_LEVEL_FIELDS], sum = 0;
    for (int i = 0; i < MR_LEVEL_FIELDS; i++)
        if (rawtext_u64(&r->t, f[i], names[i], &v[i]) != 0)
            return -1;
    m->miss = v[0];
    m->unknown = v[6];
    m->unknown_hits = v[7];
    for (int c = 0; c < MS_UNSPLIT; c++) {
        m->cause[c] = v[1 + c];
        if (__builtin_add_overflow(sum, v[1 + c], &sum))
            return fail(r, "level %s: causes overflow 64 bits", level);
    }
    if (sum > m->miss)
        return fail(r, "level %s: the causes add up to %llu, more than MISS (%llu)", level,
                    (unsigned long long)sum, (unsigned long long)m->miss);
    if (sum < m->miss && r->m->shadow_sample == 1)
        return fail(r, "level %s: the causes add up to %llu, less than MISS (%llu), but the run gave every miss its "
                    "cause ('shadow 1')", level, (unsigned long long)sum, (unsigned long long)m->miss);
    m->cause[MS_UNSPLIT] = m->miss - sum; /* shadow sampling's unsplit misses */
    if (m->unknown > m->miss)
        return fail(r, "level %s: UNKNOWN %llu exceeds MISS %llu", level, (unsigned long long)m->unknown,
                    (unsigned long long)m->miss);
    if (m->unknown_hits > refs - m->miss)
        return fail(r, "level %s: UNKNOWN-HITS %llu exceeds the %llu references that did not miss", level,
                    (unsigned long long)m->unknown_hits, (unsigned long long)(refs - m->miss));
    if (m->miss > (above ? above->miss : refs))
        return fail(r, "level %s: %llu misses, more than %s (%llu)", level, (unsigned long long)m->miss,
                    above ? "the level above it has" : "references", (unsigned long long)(above ? above->miss : refs));
    return 0;
}

static int parse_pair(reader *r, char **f, int nf)
{
    memspy_raw *m = r->m;
    if (nf != 6 + MR_LEVEL_FIELDS * (int)m->nlevels)
        return fail(r, "'pair' line with %d fields, expected %u (5 + %d per level)", nf - 1,
                    5 + MR_LEVEL_FIELDS * m->nlevels, MR_LEVEL_FIELDS);
    int32_t code, obj;
    mr_pair *p = append(r, (void **)&m->pairs, m->npairs, &r->cap_pairs, sizeof *p);
    if (!p || rawtext_id(&r->t, f[1], "code", (int)m->ncodes, 0, &code) != 0 ||
        rawtext_id(&r->t, f[2], "obj", (int)m->nobjs, 0, &obj) != 0 || rawtext_u64(&r->t, f[3], "REFS", &p->refs) != 0 ||
        rawtext_u64(&r->t, f[4], "READS", &p->reads) != 0 || rawtext_u64(&r->t, f[5], "WRITES", &p->writes) != 0)
        return -1;
    p->code = (uint32_t)code;
    p->obj = (uint32_t)obj;
    if (p->reads > UINT64_MAX - p->writes || p->reads + p->writes != p->refs)
        return fail(r, "READS + WRITES is not REFS");
    /* Within a pair, every other count is at most REFS: this bound keeps
     * every sum over pairs (mr_stats_add) and the scaled totals exact. */
    if (rawtext_add_count(&r->t, &r->refs, p->refs, "pairs' REFS") != 0)
        return -1;
    for (unsigned k = 0; k < m->nlevels; k++)
        if (parse_misses(r, f + 6 + MR_LEVEL_FIELDS * k, m->level[k].name, p->refs, k ? &p->lv[k - 1] : NULL, &p->lv[k]) != 0)
            return -1;
    m->npairs++;
    r->after_pair = 1;
    return 0;
}

/* Set sampling: the misses per level and random group of the pair on the
 * line before, which must add up to its MISS at each level. */
static int parse_groups(reader *r, char **f, int nf)
{
    memspy_raw *m = r->m;
    if (!r->after_pair)
        return fail(r, "a 'groups' line must follow the 'pair' line it belongs to");
    if (m->sampling != MR_SAMPLE_SETS)
        return fail(r, "a 'groups' line in a run without set sampling ('sampling sets N' alone)");
    if (nf != 1 + MS_SET_GROUPS * (int)m->nlevels)
        return fail(r, "'groups' line with %d fields, expected %u (%d per level)", nf - 1,
                    MS_SET_GROUPS * m->nlevels, MS_SET_GROUPS);
    mr_pair *p = &m->pairs[m->npairs - 1];
    for (unsigned k = 0; k < m->nlevels; k++) {
        uint64_t sum = 0, *g = p->lv[k].group;
        for (int i = 0; i < MS_SET_GROUPS; i++) {
            if (rawtext_u64(&r->t, f[1 + MS_SET_GROUPS * k + i], "group misses", &g[i]) != 0)
                return -1;
            if (__builtin_add_overflow(sum, g[i], &sum))
                return fail(r, "level %s: group misses overflow 64 bits", m->level[k].name);
        }
        if (sum != p->lv[k].miss)
            return fail(r, "level %s: the groups add up to %llu, not the pair's MISS (%llu)", m->level[k].name,
                        (unsigned long long)sum, (unsigned long long)p->lv[k].miss);
    }
    m->has_groups = 1;
    r->after_pair = 0;
    return 0;
}

/* Once every line is read: if the file has groups, every pair that missed
 * has them (a pair without a 'groups' line has none). */
static int check_groups(reader *r)
{
    const memspy_raw *m = r->m;
    for (size_t i = 0; m->has_groups && i < m->npairs; i++) {
        const mr_misses *l1 = &m->pairs[i].lv[0];
        uint64_t sum = 0;
        for (int g = 0; g < MS_SET_GROUPS; g++)
            sum += l1->group[g];
        if (sum != l1->miss)
            return rawtext_fail(&r->t, 0, "pair %zu has misses but no 'groups' line, which other pairs have", i);
    }
    return 0;
}

static int parse_evict(reader *r, char **f)
{
    memspy_raw *m = r->m;
    uint64_t level;
    int32_t victim, evictor;
    mr_evict *e = append(r, (void **)&m->evicts, m->nevicts, &r->cap_evicts, sizeof *e);
    if (!e || rawtext_bounded(&r->t, f[1], "level", m->nlevels ? m->nlevels - 1 : 0, &level) != 0 ||
        rawtext_id(&r->t, f[2], "obj", (int)m->nobjs, 0, &victim) != 0 ||
        rawtext_id(&r->t, f[3], "obj", (int)m->nobjs, 0, &evictor) != 0 ||
        rawtext_u64(&r->t, f[4], "COUNT", &e->count) != 0 ||
        rawtext_add_count(&r->t, &r->evictions, e->count, "evictions' COUNTs") != 0)
        return -1;
    *e = (mr_evict){(uint32_t)level, (uint32_t)victim, (uint32_t)evictor, e->count};
    m->nevicts++;
    return 0;
}

static int parse_thread(reader *r, char **f, int nf)
{
    memspy_raw *m = r->m;
    if (nf != 3 + (int)m->nlevels)
        return fail(r, "'thread' line with %d fields, expected %u (T REFS and one MISS per level)", nf - 1,
                    2 + m->nlevels);
    mr_thread *t = append(r, (void **)&m->thread, m->nthreads, &r->cap_threads, sizeof *t);
    if (!t || rawtext_dense_id(&r->t, f[1], "thread", (int)m->nthreads) != 0 ||
        rawtext_u64(&r->t, f[2], "REFS", &t->refs) != 0 ||
        rawtext_add_count(&r->t, &r->thread_refs, t->refs, "threads' REFS") != 0)
        return -1;
    if (m->nthreads == MS_MAX_THREADS || m->nthreads == m->threads)
        return fail(r, "more 'thread' lines than min(threads %u, %u)", m->threads, MS_MAX_THREADS);
    t->id = (uint32_t)m->nthreads;
    for (unsigned k = 0; k < m->nlevels; k++)
        if (rawtext_u64(&r->t, f[3 + k], "MISS", &t->miss[k]) != 0)
            return -1;
    m->nthreads++;
    return 0;
}

static int parse_skipped(reader *r, char **f)
{
    uint64_t total = r->refs;
    return rawtext_u64(&r->t, f[1], "skipped", &r->m->skipped) != 0
               ? -1
               : rawtext_add_count(&r->t, &total, r->m->skipped, "pairs' REFS and the skipped references");
}

/* exec PATH: the process exec'd PATH, whose run memspy does not follow;
 * passed on as a warning too, so every report says it. */
static int parse_exec(reader *r, char **f)
{
    memspy_raw *m = r->m;
    if (rawtext_string(&r->t, f[1], "exec", &m->exec_path) != 0)
        return -1;
    const char *fmt = "the program exec'd %s; memspy does not follow exec: the report covers the part before it";
    char **slot = append(r, (void **)&m->warnings, m->nwarnings, &r->cap_warnings, sizeof *slot);
    size_t len = strlen(fmt) + strlen(m->exec_path);
    if (!slot || !(*slot = malloc(len)))
        return slot ? out_of_memory(r) : -1;
    m->nwarnings++;
    snprintf(*slot, len, fmt, m->exec_path);
    return 0;
}

static int parse_exit(reader *r, char **f)
{
    uint64_t code;
    if (rawtext_bounded(&r->t, f[1], "exit code", 255, &code) != 0)
        return -1;
    r->m->has_exit = 1;
    r->m->exit_code = (int)code;
    return 0;
}

/* ---- lines --------------------------------------------------------------- */

typedef struct keyword {
    rawtext_kw kw;                               /* name, rank, once, required, nfields */
    int (*parse)(reader *r, char **f);           /* when nfields >= 0 */
    int (*parse_n)(reader *r, char **f, int nf); /* when nfields < 0 */
} keyword;

static const keyword keywords[] = {
    {{"augur-memspy", R_MAGIC, 1, 1, 1}, parse_magic, NULL},
    {{"tool", R_TOOL, 1, 1, 2}, parse_tool, NULL},
    {{"pid", R_PID, 1, 1, 1}, parse_pid, NULL},
    {{"ppid", R_PPID, 1, 1, 1}, parse_ppid, NULL},
    {{"exe", R_EXE, 1, 1, 1}, parse_exe, NULL},
    {{"arg", R_ARG, 0, 0, 1}, parse_arg, NULL},
    {{"level", R_LEVEL, 0, 1, 6}, parse_level, NULL},
    {{"sampling", R_SAMPLING, 0, 1, -1}, NULL, parse_sampling}, /* time, then sets: see parse_sampling */
    {{"shadow", R_SHADOW, 1, 0, 1}, parse_shadow, NULL},
    {{"regions", R_SHADOW, 1, 0, 1}, parse_regions, NULL},
    {{"threads", R_THREADS, 1, 1, 1}, parse_threads, NULL},
    {{"warning", R_THREADS, 0, 0, 1}, parse_warning, NULL},
    {{"module", R_BODY, 0, 0, 3}, parse_module, NULL},
    {{"fn", R_BODY, 0, 0, 2}, parse_fn, NULL},
    {{"file", R_BODY, 0, 0, 2}, parse_file, NULL},
    {{"obj", R_BODY, 0, 0, 5}, parse_obj, NULL},
    {{"site", R_BODY, 0, 0, 6}, parse_site, NULL},
    {{"code", R_BODY, 0, 0, 6}, parse_code, NULL},
    {{"pair", R_BODY, 0, 0, -1}, NULL, parse_pair},
    {{"groups", R_BODY, 0, 0, -1}, NULL, parse_groups},
    {{"evict", R_BODY, 0, 0, 4}, parse_evict, NULL},
    {{"thread", R_BODY, 0, 0, -1}, NULL, parse_thread},
    {{"skipped", R_SKIPPED, 1, 1, 1}, parse_skipped, NULL},
    {{"exec", R_EXEC, 1, 0, 1}, parse_exec, NULL},
    {{"exit", R_EXIT, 1, 0, 1}, parse_exit, NULL},
};
#define NKEYWORDS (sizeof keywords / sizeof *keywords)

/* One line of the body (a rawtext_each_line callback; ctx is the reader). */
static int parse_line(void *ctx, char *line)
{
    reader *r = ctx;
    int nf;
    if (rawtext_split(&r->t, line, r->fields, MAX_FIELDS, &nf) != 0)
        return -1;
    size_t k;
    if (rawtext_keyword(&r->t, &r->order, r->fields, nf, &k) != 0)
        return -1;
    const keyword *kw = &keywords[k];
    if (kw->parse_n != parse_groups)
        r->after_pair = 0; /* parse_pair sets it again */
    return kw->kw.nfields < 0 ? kw->parse_n(r, r->fields, nf) : kw->parse(r, r->fields);
}

/* The tool writes a 'thread' line for each thread it simulated, the
 * first MS_MAX_THREADS (later ones fold onto them): a `threads` count
 * they do not match (4294967295 was taken) is damage. */
static int check_threads(reader *r)
{
    const memspy_raw *m = r->m;
    uint32_t simulated = m->threads < MS_MAX_THREADS ? m->threads : MS_MAX_THREADS;
    if (m->nthreads == simulated)
        return 0;
    return rawtext_fail(&r->t, r->threads_line,
                        "threads %u, but %zu 'thread' lines: memspy writes one for each thread up to %u, so there "
                        "should be %u (the file is damaged; run augur memspy again)",
                        m->threads, m->nthreads, MS_MAX_THREADS, simulated);
}

/* The lines before the end line (a rawtext_reader's parse). */
static int parse_body(void *reader_, char *buf, size_t body_len)
{
    reader *r = reader_;
    if (rawtext_each_line(&r->t, buf, body_len, parse_line, r) != 0 || check_groups(r) != 0 ||
        rawtext_required_before(&r->t, &r->order, R_EXIT + 1, "the 'end' line") != 0)
        return -1;
    return check_threads(r);
}

/* A rawtext_reader's setup: the reader writes into out. */
static void setup(void *reader_, void *out)
{
    reader *r = reader_;
    r->m = out;
    r->m->regions = -1; /* no `regions` line: the whole run */
    r->order = (rawtext_order){.table = keywords, .n = NKEYWORDS, .stride = sizeof *keywords,
                               .doc = "docs/memspy-format.md", .rank = R_MAGIC, .prev = ""};
}

/* A rawtext_reader's free_out. */
static void free_out(void *out)
{
    memspy_raw_free(out);
}

int memspy_read(const char *path, memspy_raw *out, char *err, size_t errlen)
{
    const rawtext t = {.path = path, .magic = "augur-memspy", .version = MEMSPY_VERSION, .kind = "memspy output",
                       .hint = TRUNCATED_HINT, .redo = "run augur memspy again", .err = err, .errlen = errlen};
    static const rawtext_reader how = {.size = sizeof(reader), .setup = setup, .parse = parse_body,
                                       .free_out = free_out};
    return rawtext_read(&t, &how, out, sizeof *out);
}

void memspy_raw_free(memspy_raw *m)
{
    free(m->tool);
    free(m->exe);
    free(m->exec_path);
    array_free_strings(m->argv, (size_t)m->argc);
    for (unsigned k = 0; k < m->nlevels; k++)
        free(m->level[k].name);
    array_free_strings(m->module_paths, (size_t)m->nmodules);
    free(m->module_bias);
    array_free_strings(m->fns, (size_t)m->nfns);
    array_free_strings(m->files, (size_t)m->nfiles);
    for (size_t i = 0; i < m->nobjs; i++)
        free(m->objs[i].name);
    free(m->objs);
    array_free_strings(m->warnings, m->nwarnings);
    free(m->sites), free(m->codes), free(m->pairs), free(m->evicts), free(m->thread);
    memset(m, 0, sizeof *m);
}

const char *mr_kind_name(enum mr_obj_kind k)
{
    static const char *const names[MR_NKINDS] = {"heap", "global", "stack", "other"};
    return k < MR_NKINDS ? names[k] : "?";
}

/* profile_reader.c — the strict reader of raw profiles (docs/profile-format.md).
 *
 * profile_read() first checks the file's framing with rawtext_open
 * (util/rawtext.h: the `augur-profile` line, the `end` line, its line count
 * and CRC-32), so that damage is reported as damage.  Only then are the lines parsed, one by one, through a table of
 * keywords.  Each keyword has a rank, the section of the file it belongs to;
 * ranks never decrease, which enforces the documented order of lines.
 *
 * Everything a later stage relies on is checked here: identifiers are
 * defined before use, histograms add up, bins are ascending and in range,
 * hist lines follow the block-size lines, br/ind/call/hist/stride lines
 * follow an ins, and every call's callee is an instruction of the profile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "util/array.h"
#include "util/parse.h"
#include "util/rawtext.h"

/* Fields of the longest possible line: a hist line listing every bin. */
#define MAX_FIELDS (5 + 3 * RD_MAX_BINS)

#define TRUNCATED_HINT "the process may have been killed before its profile was finished"

/* Sections of the file, in order (the rank of a keyword). */
enum rank { R_MAGIC, R_TOOL, R_PID, R_PPID, R_EXE, R_ARG, R_BLOCK, R_SETS, R_THREADS, R_SAMPLE, R_MPI, R_REGIONS,
             R_REGION_FN, R_BODY, R_COMM, R_INTERVAL, R_EXIT };

/* What the last line attached to the current instruction was; an
 * instruction's lines come in the order ins, br, ind..., call..., hist...,
 * stride */
enum stage { S_INS, S_BR, S_IND, S_CALL, S_HIST, S_SETS, S_STRIDE };

typedef struct reader {
    rawtext t;       /* the file, its error buffer and the line being parsed */
    profile *p;
    size_t cap_instrs, cap_modules, cap_fns, cap_files, cap_args, cap_targets, cap_calls, cap_region_fns,
        cap_interval_fns, cap_comms;
    rawtext_order order; /* the keyword table and the lines seen so far */
    prof_instr *cur; /* the last ins, NULL before the first */
    size_t cur_lineno;
    enum stage cur_stage;
    uint64_t cur_target_total; /* sum of the current instruction's ind COUNTs */
    size_t *call_lines;        /* the line of each call line, in the order read */
    size_t ncall_lines, cap_call_lines;
    size_t *ins_lines;         /* the line of each instruction's ins line */
    size_t cap_ins_lines;
    uint64_t touches[PROFILE_MAX_BLOCK_SIZES]; /* the TOUCHES of each block size, summed */
    size_t threads_line;
    char *fields[MAX_FIELDS];
} reader;

#define fail(r, ...) rawtext_fail(&(r)->t, (r)->t.lineno, __VA_ARGS__)

static int out_of_memory(reader *r)
{
    return fail(r, "out of memory");
}

/* ---- header lines -------------------------------------------------------- */

static int parse_magic(reader *r, char **f)
{
    return rawtext_version(&r->t, f[1]);
}

static int parse_tool(reader *r, char **f)
{
    return rawtext_tool(&r->t, f[1], f[2], &r->p->tool);
}

static int parse_pid(reader *r, char **f)
{
    return rawtext_process_id(&r->t, f[1], "pid", &r->p->pid);
}

static int parse_ppid(reader *r, char **f)
{
    return rawtext_process_id(&r->t, f[1], "ppid", &r->p->ppid);
}

static int parse_exe(reader *r, char **f)
{
    return rawtext_string(&r->t, f[1], "exe", &r->p->exe);
}

static int parse_arg(reader *r, char **f)
{
    return rawtext_push_string(&r->t, f[1], "arg", &r->p->argv, &r->p->argc, &r->cap_args);
}

static int parse_block_size(reader *r, char **f)
{
    profile *p = r->p;
    uint64_t b;
    if (rawtext_bounded(&r->t, f[1], "block size", UINT32_MAX, &b) != 0)
        return -1;
    if (b < RD_MIN_BLOCK_SIZE || b > RD_MAX_BLOCK_SIZE || (b & (b - 1)) != 0)
        return fail(r, "block size %llu is not a power of two from %u to %u (1 GiB)", (unsigned long long)b,
                    RD_MIN_BLOCK_SIZE, RD_MAX_BLOCK_SIZE);
    if (p->nblock_sizes > 0 && b <= p->block_sizes[p->nblock_sizes - 1])
        return fail(r, "block size %llu after %u: block sizes must be listed in ascending order",
                    (unsigned long long)b, p->block_sizes[p->nblock_sizes - 1]);
    if (p->nblock_sizes == PROFILE_MAX_BLOCK_SIZES)
        return fail(r, "more than %d block sizes", PROFILE_MAX_BLOCK_SIZES);
    p->block_sizes[p->nblock_sizes++] = (uint32_t)b;
    return 0;
}

static int since(reader *r, const char *keyword, const char *what, int version);

/* `set-count S LINE WAYS` (version 8): set-local histograms at S sets of
 * LINE-byte lines (64), distances below WAYS; ascending S, one WAYS. */
static int parse_set_count(reader *r, char **f)
{
    profile *p = r->p;
    uint64_t s, line, ways;
    if (since(r, "set-count", "set-local histograms", 8) != 0 ||
        rawtext_bounded(&r->t, f[1], "set count", RD_MAX_SETS, &s) != 0 ||
        rawtext_u64(&r->t, f[2], "LINE", &line) != 0 || rawtext_bounded(&r->t, f[3], "WAYS", RD_SET_WAYS, &ways) != 0)
        return -1;
    if (s == 0 || (s & (s - 1)) != 0)
        return fail(r, "set count %llu is not a power of two from 1 to %u", (unsigned long long)s, RD_MAX_SETS);
    if (line != 1u << RD_SET_LINE_SHIFT)
        return fail(r, "set-count line size %llu: set-local histograms are of 64-byte lines", (unsigned long long)line);
    if (ways == 0 || (p->nset_counts > 0 && ways != p->set_ways))
        return fail(r, "set-count WAYS %llu: 1 to %u, the same on every set-count line", (unsigned long long)ways,
                    RD_SET_WAYS);
    if (p->nset_counts > 0 && s <= p->set_counts[p->nset_counts - 1])
        return fail(r, "set count %llu after %u: set counts must be listed in ascending order", (unsigned long long)s,
                    p->set_counts[p->nset_counts - 1]);
    if (p->nset_counts == PROFILE_MAX_SET_COUNTS)
        return fail(r, "more than %d set counts", PROFILE_MAX_SET_COUNTS);
    if (p->nblock_sizes == 0 || p->block_sizes[0] != line)
        return fail(r, "set-count line without 64 as the first block size (set-local histograms need it)");
    p->set_counts[p->nset_counts++] = (uint32_t)s;
    p->set_ways = (uint32_t)ways;
    return 0;
}

static int parse_threads(reader *r, char **f)
{
    uint64_t t;
    if (rawtext_bounded(&r->t, f[1], "threads", UINT32_MAX, &t) != 0)
        return -1;
    if (t == 0)
        return fail(r, "threads is 0 (the main thread counts)");
    r->p->threads = (uint32_t)t;
    r->threads_line = r->t.lineno;
    return 0;
}

/* ---- definitions --------------------------------------------------------- */

static int parse_module(reader *r, char **f)
{
    profile *p = r->p;
    if (rawtext_dense_id(&r->t, f[1], "module", p->nmodules) != 0)
        return -1;
    prof_module *m = array_grow(p->modules, (size_t)p->nmodules, &r->cap_modules, sizeof *m);
    if (!m)
        return out_of_memory(r);
    p->modules = m;
    m = &p->modules[p->nmodules];
    memset(m, 0, sizeof *m);
    if (rawtext_hex(&r->t, f[3], "module bias", &m->bias) != 0 || rawtext_string(&r->t, f[2], "module path", &m->path) != 0)
        return -1;
    p->nmodules++;
    return 0;
}

static int parse_fn(reader *r, char **f)
{
    return rawtext_name(&r->t, f, "fn", &r->p->fns, &r->p->nfns, &r->cap_fns);
}

static int parse_file(reader *r, char **f)
{
    return rawtext_name(&r->t, f, "file", &r->p->files, &r->p->nfiles, &r->cap_files);
}

/* ---- instructions -------------------------------------------------------- */

static int accesses_memory(const prof_instr *in)
{
    return in->reads + in->writes > 0;
}

/* Check that the current instruction got all its lines (one hist line per
 * block size when it accesses memory). */
static int finish_instr(reader *r)
{
    const prof_instr *in = r->cur;
    if (in && accesses_memory(in) && in->nhists != (uint32_t)r->p->nblock_sizes)
        return rawtext_fail(&r->t, r->cur_lineno,
                       "the instruction has %u hist lines, expected %d (one per block-size line, "
                       "since it accesses memory)",
                       in->nhists, r->p->nblock_sizes);
    if (in && accesses_memory(in) && in->nsets != (uint32_t)r->p->nset_counts)
        return rawtext_fail(&r->t, r->cur_lineno,
                       "the instruction has %u sets lines, expected %d (one per set-count line, "
                       "since it accesses memory)",
                       in->nsets, r->p->nset_counts);
    return 0;
}

static int parse_ins(reader *r, char **f)
{
    profile *p = r->p;
    if (finish_instr(r) != 0)
        return -1;
    prof_instr *in = array_grow(p->instrs, p->ninstrs, &r->cap_instrs, sizeof *in);
    if (!in)
        return out_of_memory(r);
    p->instrs = in;
    in = &p->instrs[p->ninstrs];
    memset(in, 0, sizeof *in);
    uint64_t len, line;
    if (rawtext_id(&r->t, f[1], "module", p->nmodules, 1, &in->module) != 0 ||
        rawtext_hex(&r->t, f[2], "address", &in->addr) != 0 || rawtext_bounded(&r->t, f[3], "length", UINT32_MAX, &len) != 0 ||
        rawtext_id(&r->t, f[4], "fn", p->nfns, 1, &in->fn) != 0 || rawtext_id(&r->t, f[5], "file", p->nfiles, 1, &in->file) != 0 ||
        rawtext_bounded(&r->t, f[6], "line", UINT32_MAX, &line) != 0 || rawtext_u64(&r->t, f[7], "EXECS", &in->execs) != 0 ||
        rawtext_u64(&r->t, f[8], "READS", &in->reads) != 0 || rawtext_u64(&r->t, f[9], "WRITES", &in->writes) != 0)
        return -1;
    if (len == 0)
        return fail(r, "instruction length 0");
    if (rawtext_add_count(&r->t, &p->total_execs, in->execs, "instructions' EXECS") != 0 ||
        rawtext_add_count(&r->t, &p->total_reads, in->reads, "instructions' READS") != 0 ||
        rawtext_add_count(&r->t, &p->total_writes, in->writes, "instructions' WRITES") != 0)
        return -1;
    size_t *line_of = array_grow(r->ins_lines, p->ninstrs, &r->cap_ins_lines, sizeof *line_of);
    if (!line_of)
        return out_of_memory(r);
    r->ins_lines = line_of;
    r->ins_lines[p->ninstrs] = r->t.lineno;
    in->len = (uint32_t)len;
    in->line = (uint32_t)line;
    p->ninstrs++;
    r->cur = in;
    r->cur_lineno = r->t.lineno;
    r->cur_stage = S_INS;
    r->cap_targets = r->cap_calls = 0;
    r->cur_target_total = 0;
    return 0;
}

/* The current instruction, for a br/ind/hist/stride line that may not
 * come after a line of a later stage of the same instruction; advances
 * the stage. */
static prof_instr *attach(reader *r, const char *keyword, enum stage stage)
{
    if (!r->cur) {
        fail(r, "'%s' line before any 'ins' line (br, ind, call, hist and stride lines belong to the ins line "
                "above them)",
             keyword);
        return NULL;
    }
    if (r->cur_stage > stage || ((stage == S_BR || stage == S_STRIDE) && r->cur_stage == stage)) {
        fail(r, "misplaced '%s' line: the lines of an instruction come in the order ins, br, ind..., call..., "
                "hist..., sets..., stride (br and stride once)",
             keyword);
        return NULL;
    }
    r->cur_stage = stage;
    return r->cur;
}

/* 0 when the profile's format version is at least `version`, which
 * introduced lines of kind `keyword` (`what`: "calls"); else -1 with a
 * message: such a line in an older file is damage. */
static int since(reader *r, const char *keyword, const char *what, int version)
{
    if (r->t.found >= version)
        return 0;
    return fail(r, "'%s' line in a version-%d profile: %s are recorded from version %d on (the file is damaged; %s)",
                keyword, r->t.found, what, version, r->t.redo);
}

/* attach() for a line of a kind that format version `version` introduced
 * (`what`: "calls"); NULL with a message in an older profile. */
static prof_instr *attach_since(reader *r, const char *keyword, const char *what, enum stage stage, int version)
{
    return since(r, keyword, what, version) == 0 ? attach(r, keyword, stage) : NULL;
}

static int parse_br(reader *r, char **f)
{
    prof_instr *in = attach(r, "br", S_BR);
    if (!in || rawtext_u64(&r->t, f[1], "TAKEN", &in->taken) != 0)
        return -1;
    if (in->taken > in->execs)
        return fail(r, "branch taken %llu times but executed %llu times", (unsigned long long)in->taken,
                    (unsigned long long)in->execs);
    in->is_cond_branch = 1;
    return 0;
}

/* One more place the current instruction went (an `ind` target or a
 * `call` callee: MODULE ADDR-hex COUNT) appended to *list; each COUNT, and
 * when `total` is given their sum there, at most the instruction's
 * executions. */
static int parse_place(reader *r, char **f, prof_instr *in, prof_target **list, uint32_t *n, size_t *cap,
                       uint64_t *total, const char *what)
{
    prof_target *t = array_grow(*list, *n, cap, sizeof *t);
    if (!t)
        return out_of_memory(r);
    *list = t;
    t = &(*list)[*n];
    memset(t, 0, sizeof *t);
    if (rawtext_id(&r->t, f[1], "module", r->p->nmodules, 1, &t->module) != 0 ||
        rawtext_hex(&r->t, f[2], "target address", &t->addr) != 0 || rawtext_u64(&r->t, f[3], "COUNT", &t->count) != 0)
        return -1;
    uint64_t sum = t->count;
    if (t->count > in->execs || (total && (__builtin_add_overflow(*total, t->count, &sum) || sum > in->execs)))
        return fail(r, "%s more often than the instruction executed (%llu times)", what,
                    (unsigned long long)in->execs);
    if (total)
        *total = sum;
    ++*n;
    return 0;
}

static int parse_ind(reader *r, char **f)
{
    prof_instr *in = attach(r, "ind", S_IND);
    return in ? parse_place(r, f, in, &in->targets, &in->ntargets, &r->cap_targets, &r->cur_target_total,
                            "indirect targets taken")
              : -1;
}

/* A call's callee (format version 2): resolved to its instruction once the
 * whole file is read (resolve_calls).  The callees' counts need not add up
 * to at most the executions: a lazily bound call enters the resolver and
 * then the function (docs/collector.md). */
static int parse_call(reader *r, char **f)
{
    prof_instr *in = attach_since(r, "call", "calls", S_CALL, 2);
    if (!in)
        return -1;
    size_t *lines = array_grow(r->call_lines, r->ncall_lines, &r->cap_call_lines, sizeof *lines);
    if (!lines)
        return out_of_memory(r);
    r->call_lines = lines;
    r->call_lines[r->ncall_lines++] = r->t.lineno;
    return parse_place(r, f, in, &in->calls, &in->ncalls, &r->cap_calls, NULL, "a callee entered");
}

/* Check one bin record and, when it is not empty, append it to h.  *total
 * accumulates the counts. */
static int add_bin(reader *r, prof_hist *h, char **f, uint64_t *total)
{
    uint64_t bin, count, sum;
    if (rawtext_u64(&r->t, f[0], "BIN", &bin) != 0 || rawtext_u64(&r->t, f[1], "COUNT", &count) != 0 ||
        rawtext_u64(&r->t, f[2], "SUM", &sum) != 0)
        return -1;
    if (bin >= RD_MAX_BINS)
        return fail(r, "bin %llu is out of range (bins are < %u)", (unsigned long long)bin, RD_MAX_BINS);
    if (h->nbins > 0 && bin <= h->bins[h->nbins - 1].bin)
        return fail(r, "bin %llu after bin %u: bins must be listed in ascending order", (unsigned long long)bin,
                    h->bins[h->nbins - 1].bin);
    /* Every distance in the bin lies in [low, high): the sum must too,
     * times the count, unless the true sum may have wrapped past 2^64. */
    uint64_t low = rd_bin_low((unsigned)bin), high = rd_bin_high((unsigned)bin), max_sum;
    if (!__builtin_mul_overflow(count, high - 1, &max_sum) && (sum < count * low || sum > max_sum))
        return fail(r, "bin %llu: SUM %llu is impossible for %llu distances in [%llu, %llu)",
                    (unsigned long long)bin, (unsigned long long)sum, (unsigned long long)count,
                    (unsigned long long)low, (unsigned long long)high);
    if (__builtin_add_overflow(*total, count, total))
        return fail(r, "histogram counts overflow 64 bits");
    if (count > 0)
        h->bins[h->nbins++] = (rd_binrec){.bin = (uint32_t)bin, .count = count, .sum = sum};
    return 0;
}

/* The N bins of a hist or sets line, f[5..nf), into h, which must add up
 * to h->touches with h->cold; bins at or past `max_bin` are refused. */
static int parse_bins(reader *r, prof_hist *h, char **f, int nf, uint64_t n, uint64_t max_bin)
{
    if ((uint64_t)nf != 5 + 3 * n)
        return fail(r, "'%s' line with N = %llu bins has %d fields, expected %llu", f[0], (unsigned long long)n,
                    nf - 1, (unsigned long long)(4 + 3 * n));
    if (n > 0 && !(h->bins = malloc(n * sizeof *h->bins)))
        return out_of_memory(r);
    uint64_t total = h->cold;
    for (uint64_t i = 0; i < n; i++) {
        if (add_bin(r, h, f + 5 + 3 * i, &total) != 0)
            return -1;
        if (h->nbins && h->bins[h->nbins - 1].bin >= max_bin)
            return fail(r, "bin %u of a sets line: set-local distances are below WAYS (%llu)",
                        h->bins[h->nbins - 1].bin, (unsigned long long)rd_bin_low((unsigned)max_bin));
    }
    if (total != h->touches)
        return fail(r, "histogram counts add up to %llu (COLD + the bins' COUNTs), TOUCHES says %llu",
                    (unsigned long long)total, (unsigned long long)h->touches);
    return 0;
}

/* What tells a hist line from a sets line: its keyword, key ("block
 * size", "set count") and the header line giving the keys, and what its
 * cold count is ("COLD", "FAR"). */
typedef struct hist_kind {
    const char *keyword, *key, *key_line, *cold;
} hist_kind;

static const hist_kind HIST_LINE = {"hist", "block size", "block-size", "COLD"};
static const hist_kind SETS_LINE = {"sets", "set count", "set-count", "FAR"};

/* The head of a hist or sets line of `in` (of memory-accessing
 * instructions only, at most nkeys per instruction, the n-th with key
 * keys[n]): a new histogram in *arr with its TOUCHES and cold count, and
 * its N in *nbins; not yet counted in n (the caller counts it once it owns
 * it).  NULL with a message. */
static prof_hist *hist_head(reader *r, const prof_instr *in, const hist_kind *k, prof_hist **arr, uint32_t n,
                            int nkeys, const uint32_t *keys, char **f, int nf, uint64_t *nbins)
{
    if (!accesses_memory(in)) {
        fail(r, "'%s' line for an instruction that does not access memory (READS + WRITES is 0)", k->keyword);
        return NULL;
    }
    if (n == (uint32_t)nkeys) {
        fail(r, "more %s lines than %ss (%d)", k->keyword, k->key, nkeys);
        return NULL;
    }
    if (nf < 5) {
        fail(r, "'%s' line with %d fields, expected at least 4: %c TOUCHES %s N", k->keyword, nf - 1,
             k->keyword[0] == 'h' ? 'B' : 'S', k->cold);
        return NULL;
    }
    if (!*arr && !(*arr = calloc((size_t)nkeys, sizeof **arr))) {
        out_of_memory(r);
        return NULL;
    }
    prof_hist *h = &(*arr)[n];
    uint64_t key;
    if (rawtext_u64(&r->t, f[1], k->key, &key) != 0 || rawtext_u64(&r->t, f[2], "TOUCHES", &h->touches) != 0 ||
        rawtext_u64(&r->t, f[3], k->cold, &h->cold) != 0 || rawtext_bounded(&r->t, f[4], "N", RD_MAX_BINS, nbins) != 0)
        return NULL;
    if (key != keys[n]) {
        fail(r, "%s for %s %llu where %s %u was expected (%s lines follow the %s lines, in order)", k->keyword, k->key,
             (unsigned long long)key, k->key, keys[n], k->keyword, k->key_line);
        return NULL;
    }
    h->block_size = (uint32_t)key;
    return h;
}

/* `sets S TOUCHES FAR N (BIN COUNT SUM)*N` (version 8): after the hist
 * lines, one per set-count line, in order; as many touches as at 64 bytes. */
static int parse_sets(reader *r, char **f, int nf)
{
    prof_instr *in = attach_since(r, "sets", "set-local histograms", S_SETS, 8);
    if (!in)
        return -1;
    const profile *p = r->p;
    if (in->nhists != (uint32_t)p->nblock_sizes)
        return fail(r, "'sets' line before the instruction's hist lines (%u of %d): it comes after them",
                    in->nhists, p->nblock_sizes);
    uint64_t n;
    prof_hist *h = hist_head(r, in, &SETS_LINE, &in->sets, in->nsets, p->nset_counts, p->set_counts, f, nf, &n);
    if (!h)
        return -1;
    if (h->touches != in->hists[0].touches)
        return fail(r, "sets TOUCHES %llu, but the instruction touched %llu lines of 64 bytes (its first hist line)",
                    (unsigned long long)h->touches, (unsigned long long)in->hists[0].touches);
    in->nsets++; /* from here h is owned by the instruction (freed with it) */
    return parse_bins(r, h, f, nf, n, rd_bin_index(p->set_ways));
}

static int parse_hist(reader *r, char **f, int nf)
{
    prof_instr *in = attach(r, "hist", S_HIST);
    if (!in)
        return -1;
    const profile *p = r->p;
    uint64_t n;
    prof_hist *h = hist_head(r, in, &HIST_LINE, &in->hists, in->nhists, p->nblock_sizes, p->block_sizes, f, nf, &n);
    if (!h || rawtext_add_count(&r->t, &r->touches[in->nhists], h->touches, "instructions' TOUCHES") != 0)
        return -1;
    in->nhists++; /* from here h is owned by the instruction (freed with it) */
    return parse_bins(r, h, f, nf, n, RD_MAX_BINS);
}

/* The `SHIFT COUNT` pairs of a stride line (version 7) from f[4] on, nf
 * fields in all, into in->stride_pow2: SHIFT ascending from
 * PROFILE_POW2_FIRST to its last class, COUNT positive, the COUNTs at most
 * DELTAS. */
static int parse_stride_pow2(reader *r, prof_instr *in, char **f, int nf)
{
    const int last = PROFILE_POW2_FIRST + PROFILE_POW2_CLASSES - 1;
    if (nf > 4 && since(r, "stride", "the 2-adic classes of a stride line's deltas", 7) != 0)
        return -1;
    if ((nf - 4) % 2)
        return fail(r, "'stride' line with %d fields: DELTA COUNT DELTAS, then SHIFT COUNT pairs", nf - 1);
    uint64_t shift, count, sum = 0, prev = 0;
    for (int i = 4; i < nf; i += 2) {
        if (rawtext_u64(&r->t, f[i], "SHIFT", &shift) != 0 || rawtext_u64(&r->t, f[i + 1], "COUNT", &count) != 0)
            return -1;
        if (shift < PROFILE_POW2_FIRST || shift > (uint64_t)last || shift <= prev)
            return fail(r, "stride SHIFT %llu: the classes are %d to %d, ascending", (unsigned long long)shift,
                        PROFILE_POW2_FIRST, last);
        if (count == 0)
            return fail(r, "stride class %llu with COUNT 0: empty classes are left out", (unsigned long long)shift);
        in->stride_pow2[shift - PROFILE_POW2_FIRST] = count;
        sum += count;
        prev = shift;
    }
    if (sum > in->stride_deltas)
        return fail(r, "stride classes count %llu deltas, more than DELTAS (%llu)", (unsigned long long)sum,
                    (unsigned long long)in->stride_deltas);
    return 0;
}

/* `stride DELTA COUNT DELTAS [SHIFT COUNT]...` (format version 3; the
 * pairs from 7): after the hist lines of an instruction that accesses
 * memory; 1 <= COUNT <= DELTAS < READS + WRITES (a delta is between two of
 * its accesses); the pairs parse_stride_pow2's. */
static int parse_stride(reader *r, char **f, int nf)
{
    prof_instr *in = attach_since(r, "stride", "strides", S_STRIDE, 3);
    if (!in)
        return -1;
    if (nf < 4)
        return fail(r, "'stride' line with %d fields, expected at least 3: DELTA COUNT DELTAS", nf - 1);
    if (!accesses_memory(in))
        return fail(r, "'stride' line for an instruction that does not access memory (READS + WRITES is 0)");
    if (in->nhists != (uint32_t)r->p->nblock_sizes)
        return fail(r, "'stride' line before the instruction's hist lines (%u of %d): it comes after them",
                    in->nhists, r->p->nblock_sizes);
    if (in->nsets != (uint32_t)r->p->nset_counts)
        return fail(r, "'stride' line before the instruction's sets lines (%u of %d): it comes after them",
                    in->nsets, r->p->nset_counts);
    if (rawtext_i64(&r->t, f[1], "DELTA", &in->stride) != 0 ||
        rawtext_u64(&r->t, f[2], "COUNT", &in->stride_count) != 0 ||
        rawtext_u64(&r->t, f[3], "DELTAS", &in->stride_deltas) != 0)
        return -1;
    if (in->stride_deltas == 0 || in->stride_deltas >= in->reads + in->writes)
        return fail(r, "stride DELTAS %llu: an instruction of %llu accesses has 1 to %llu deltas between them",
                    (unsigned long long)in->stride_deltas, (unsigned long long)(in->reads + in->writes),
                    (unsigned long long)(in->reads + in->writes - 1));
    if (in->stride_count == 0 || in->stride_count > in->stride_deltas)
        return fail(r, "stride COUNT %llu is not from 1 to DELTAS (%llu)", (unsigned long long)in->stride_count,
                    (unsigned long long)in->stride_deltas);
    return parse_stride_pow2(r, in, f, nf);
}

/* ---- regions and intervals (version 4) ---------------------------------- */

/* `sample-rd THRESHOLD MODULUS` (version 5): the histograms are of the
 * blocks whose hash mod MODULUS is below THRESHOLD, scaled; the collector's
 * modulus is RD_SAMPLE_MODULUS, and a threshold of it would sample every
 * block (no line is written then). */
static int parse_sample_rd(reader *r, char **f)
{
    uint64_t t, m;
    if (since(r, "sample-rd", "sampled histograms", 5) != 0 ||
        rawtext_u64(&r->t, f[1], "THRESHOLD", &t) != 0 || rawtext_u64(&r->t, f[2], "MODULUS", &m) != 0)
        return -1;
    if (m != RD_SAMPLE_MODULUS || t < 1 || t >= m)
        return fail(r, "sample-rd %llu %llu: expected a THRESHOLD from 1 to %u and MODULUS %u (the file is damaged; "
                       "collect the profile again)",
                    (unsigned long long)t, (unsigned long long)m, RD_SAMPLE_MODULUS - 1, RD_SAMPLE_MODULUS);
    r->p->sample_threshold = (uint32_t)t;
    return 0;
}

static int parse_regions(reader *r, char **f)
{
    prof_regions *g = &r->p->regions;
    uint64_t at_start;
    if (since(r, "regions", "regions", 4) != 0 || rawtext_bounded(&r->t, f[1], "INSTR_AT_START", 1, &at_start) != 0 ||
        rawtext_u64(&r->t, f[2], "STARTS", &g->starts) != 0 || rawtext_u64(&r->t, f[3], "STOPS", &g->stops) != 0 ||
        rawtext_u64(&r->t, f[4], "ZEROS", &g->zeros) != 0 || rawtext_u64(&r->t, f[5], "DUMPS", &g->dumps) != 0)
        return -1;
    g->has_regions = 1;
    g->instr_at_start = (int)at_start;
    return 0;
}

/* A region-fn or interval-fn line: GLOB ENTRIES, appended to *list. */
static int parse_pattern(reader *r, char **f, const char *keyword, prof_pattern **list, int *n, size_t *cap)
{
    if (!r->p->regions.has_regions)
        return fail(r, "'%s' line without a 'regions' line before it", keyword);
    prof_pattern *a = array_grow(*list, (size_t)*n, cap, sizeof *a);
    if (!a)
        return out_of_memory(r);
    *list = a;
    a = &a[*n];
    memset(a, 0, sizeof *a);
    if (rawtext_string(&r->t, f[1], "pattern", &a->glob) != 0)
        return -1;
    ++*n; /* owns glob from here */
    return rawtext_u64(&r->t, f[2], "ENTRIES", &a->entries);
}

static int parse_region_fn(reader *r, char **f)
{
    prof_regions *g = &r->p->regions;
    return parse_pattern(r, f, "region-fn", &g->region_fns, &g->nregion_fns, &r->cap_region_fns);
}

static int parse_interval_fn(reader *r, char **f)
{
    prof_regions *g = &r->p->regions;
    return parse_pattern(r, f, "interval-fn", &g->interval_fns, &g->ninterval_fns, &r->cap_interval_fns);
}

/* interval INDEX COUNT CLOSED-BY MODULE ADDR-hex FN FILE LINE */
static int parse_interval(reader *r, char **f)
{
    profile *p = r->p;
    prof_interval *iv = &p->interval;
    uint64_t line;
    if (r->p->ncomms)
        return fail(r, "'interval' line after 'comm' lines: an interval's profile has no MPI calls (%s)", r->t.redo);
    if (since(r, "interval", "intervals", 4) != 0 || finish_instr(r) != 0 ||
        rawtext_u64(&r->t, f[1], "INDEX", &iv->index) != 0 || rawtext_u64(&r->t, f[2], "COUNT", &iv->count) != 0 ||
        rawtext_id(&r->t, f[4], "module", p->nmodules, 1, &iv->module) != 0 ||
        rawtext_hex(&r->t, f[5], "address", &iv->addr) != 0 || rawtext_id(&r->t, f[6], "fn", p->nfns, 1, &iv->fn) != 0 ||
        rawtext_id(&r->t, f[7], "file", p->nfiles, 1, &iv->file) != 0 ||
        rawtext_bounded(&r->t, f[8], "line", UINT32_MAX, &line) != 0)
        return -1;
    if (strcmp(f[3], "call") && strcmp(f[3], "dump") && strcmp(f[3], "end"))
        return fail(r, "interval closed by '%s': expected call, dump or end", f[3]);
    if (iv->count == 0)
        return fail(r, "interval COUNT 0: a profile sums at least one interval");
    snprintf(iv->closed_by, sizeof iv->closed_by, "%s", f[3]);
    iv->line = (uint32_t)line;
    iv->is_interval = 1;
    return 0;
}

/* ---- MPI (version 6) ----------------------------------------------------- */

/* mpi RANK SIZE */
static int parse_mpi(reader *r, char **f)
{
    prof_mpi *m = &r->p->mpi;
    if (since(r, "mpi", "MPI ranks", 6) != 0 || rawtext_u64(&r->t, f[1], "RANK", &m->rank) != 0 ||
        rawtext_bounded(&r->t, f[2], "SIZE", INT32_MAX, &m->size) != 0)
        return -1;
    if (m->rank >= m->size)
        return fail(r, "mpi RANK %llu is not below SIZE %llu: the profile is damaged (%s)",
                    (unsigned long long)m->rank, (unsigned long long)m->size, r->t.redo);
    m->has_mpi = 1;
    return 0;
}

/* A signed field of a comm line: -1 or more. */
static int comm_signed(reader *r, const char *f, const char *what, int64_t *out)
{
    if (rawtext_i64(&r->t, f, what, out) != 0)
        return -1;
    return *out < -1 ? fail(r, "comm %s %lld: -1 (none) or a number from 0", what, (long long)*out) : 0;
}

/* comm FN PEER COMM INTERVAL CALLS SENT RECEIVED FILE LINE DEPTH FRAME*DEPTH */
static int parse_comm(reader *r, char **f, int nf)
{
    profile *p = r->p;
    uint64_t line, depth;
    if (since(r, "comm", "MPI calls", 6) != 0 || finish_instr(r) != 0)
        return -1;
    if (nf < 11)
        return fail(r, "'comm' line with %d fields; expected at least 10 after the keyword", nf - 1);
    prof_comm *a = array_grow(p->comms, p->ncomms, &r->cap_comms, sizeof *a);
    if (!a)
        return out_of_memory(r);
    p->comms = a;
    prof_comm *c = &a[p->ncomms];
    memset(c, 0, sizeof *c);
    if (rawtext_id(&r->t, f[1], "fn", p->nfns, 0, &c->fn) != 0 || comm_signed(r, f[2], "PEER", &c->peer) != 0 ||
        comm_signed(r, f[3], "COMM", &c->comm) != 0 || comm_signed(r, f[4], "INTERVAL", &c->interval) != 0 ||
        rawtext_u64(&r->t, f[5], "CALLS", &c->calls) != 0 || rawtext_u64(&r->t, f[6], "SENT", &c->sent) != 0 ||
        rawtext_u64(&r->t, f[7], "RECEIVED", &c->received) != 0 ||
        rawtext_id(&r->t, f[8], "file", p->nfiles, 1, &c->file) != 0 ||
        rawtext_bounded(&r->t, f[9], "line", UINT32_MAX, &line) != 0 ||
        rawtext_bounded(&r->t, f[10], "DEPTH", PROFILE_MAX_COMM_DEPTH, &depth) != 0)
        return -1;
    if (c->calls == 0)
        return fail(r, "comm CALLS 0: a line sums at least one call (%s)", r->t.redo);
    if ((uint64_t)nf != 11 + depth)
        return fail(r, "comm DEPTH %llu, but %d callers follow it", (unsigned long long)depth, nf - 11);
    c->line = (uint32_t)line;
    c->frames = malloc((depth + 1) * sizeof *c->frames);
    if (!c->frames)
        return out_of_memory(r);
    p->ncomms++; /* owns frames from here */
    for (uint64_t k = 0; k < depth; k++)
        if (rawtext_id(&r->t, f[11 + k], "fn", p->nfns, 0, &c->frames[k]) != 0)
            return -1;
    c->depth = (uint32_t)depth;
    return 0;
}

static int parse_exit(reader *r, char **f)
{
    uint64_t code;
    if (rawtext_bounded(&r->t, f[1], "exit code", 255, &code) != 0)
        return -1;
    r->p->has_exit = 1;
    r->p->exit_code = (int)code;
    return 0;
}

/* ---- lines --------------------------------------------------------------- */

typedef struct keyword {
    rawtext_kw kw;                               /* name, rank, once, required, nfields */
    int (*parse)(reader *r, char **f);           /* when nfields >= 0 */
    int (*parse_n)(reader *r, char **f, int nf); /* when nfields < 0 */
} keyword;

static const keyword keywords[] = {
    {{"augur-profile", R_MAGIC, 1, 1, 1}, parse_magic, NULL},
    {{"tool", R_TOOL, 1, 1, 2}, parse_tool, NULL},
    {{"pid", R_PID, 1, 1, 1}, parse_pid, NULL},
    {{"ppid", R_PPID, 1, 1, 1}, parse_ppid, NULL},
    {{"exe", R_EXE, 1, 1, 1}, parse_exe, NULL},
    {{"arg", R_ARG, 0, 0, 1}, parse_arg, NULL},
    {{"block-size", R_BLOCK, 0, 0, 1}, parse_block_size, NULL},
    {{"set-count", R_SETS, 0, 0, 3}, parse_set_count, NULL},
    {{"threads", R_THREADS, 1, 1, 1}, parse_threads, NULL},
    {{"sample-rd", R_SAMPLE, 1, 0, 2}, parse_sample_rd, NULL},
    {{"mpi", R_MPI, 1, 0, 2}, parse_mpi, NULL},
    {{"regions", R_REGIONS, 1, 0, 5}, parse_regions, NULL},
    {{"region-fn", R_REGION_FN, 0, 0, 2}, parse_region_fn, NULL},
    {{"interval-fn", R_REGION_FN, 0, 0, 2}, parse_interval_fn, NULL},
    {{"module", R_BODY, 0, 0, 3}, parse_module, NULL},
    {{"fn", R_BODY, 0, 0, 2}, parse_fn, NULL},
    {{"file", R_BODY, 0, 0, 2}, parse_file, NULL},
    {{"ins", R_BODY, 0, 0, 9}, parse_ins, NULL},
    {{"br", R_BODY, 0, 0, 1}, parse_br, NULL},
    {{"ind", R_BODY, 0, 0, 3}, parse_ind, NULL},
    {{"call", R_BODY, 0, 0, 3}, parse_call, NULL},
    {{"hist", R_BODY, 0, 0, -1}, NULL, parse_hist},
    {{"sets", R_BODY, 0, 0, -1}, NULL, parse_sets},
    {{"stride", R_BODY, 0, 0, -1}, NULL, parse_stride},
    {{"comm", R_COMM, 0, 0, -1}, NULL, parse_comm},
    {{"interval", R_INTERVAL, 1, 0, 8}, parse_interval, NULL},
    {{"exit", R_EXIT, 1, 0, 1}, parse_exit, NULL},
};
#define NKEYWORDS (sizeof keywords / sizeof *keywords)

/* One line of the body (a rawtext_each_line callback; ctx is the reader). */
static int parse_line(void *ctx, char *line)
{
    reader *r = ctx;
    int nf = 0; /* set by rawtext_split; initialised for gcc -O3, which cannot see that */
    if (rawtext_split(&r->t, line, r->fields, MAX_FIELDS, &nf) != 0)
        return -1;
    size_t k;
    if (rawtext_keyword(&r->t, &r->order, r->fields, nf, &k) != 0)
        return -1;
    const keyword *kw = &keywords[k];
    return kw->kw.nfields < 0 ? kw->parse_n(r, r->fields, nf) : kw->parse(r, r->fields);
}

/* ---- the file ------------------------------------------------------------ */

/* Each thread but the main one was made by a clone the process executed:
 * more threads than instructions is damage (4294967295 was taken). */
static int check_threads(reader *r)
{
    const profile *p = r->p;
    if (p->threads - 1 <= p->total_execs)
        return 0;
    return rawtext_fail(&r->t, r->threads_line,
                        "threads %u, but the process executed %llu instructions, and each thread after the first "
                        "is made by one (a clone): the profile is damaged (collect the profile again)",
                        p->threads, (unsigned long long)p->total_execs);
}

/* qsort order of pointers to instructions: by module, then address. */
static int by_location(const void *a, const void *b)
{
    const prof_instr *x = *(prof_instr *const *)a, *y = *(prof_instr *const *)b;
    if (x->module != y->module)
        return x->module < y->module ? -1 : 1;
    return (x->addr > y->addr) - (x->addr < y->addr);
}

/* The instructions sorted by location (by_location), into a new array;
 * NULL when memory runs out. */
static prof_instr **sorted_instrs(const profile *p)
{
    prof_instr **sorted = malloc((p->ninstrs + 1) * sizeof *sorted);
    if (!sorted)
        return NULL;
    for (size_t i = 0; i < p->ninstrs; i++)
        sorted[i] = &p->instrs[i];
    qsort(sorted, p->ninstrs, sizeof *sorted, by_location);
    return sorted;
}

/* One ins line per instruction: a second line for the same module and
 * address would be counted twice. */
static int check_duplicates(reader *r, prof_instr *const *sorted)
{
    const profile *p = r->p;
    for (size_t i = 1; i < p->ninstrs; i++) {
        if (by_location(&sorted[i - 1], &sorted[i]) != 0)
            continue;
        size_t a = r->ins_lines[sorted[i - 1] - p->instrs], b = r->ins_lines[sorted[i] - p->instrs];
        return rawtext_fail(&r->t, a > b ? a : b,
                            "a second 'ins' line for module %d address %llx, first on line %zu (one line per "
                            "instruction): the profile is damaged (collect the profile again)",
                            sorted[i]->module, (unsigned long long)sorted[i]->addr, a < b ? a : b);
    }
    return 0;
}

/* Every callee is the first instruction of a function entered, which
 * executed: it has an ins line.  Its index goes into the call's `instr`. */
static int resolve_calls(reader *r, prof_instr *const *sorted)
{
    profile *p = r->p;
    size_t k = 0; /* call lines come in file order: instruction by instruction */
    for (size_t i = 0; i < p->ninstrs; i++)
        for (uint32_t c = 0; c < p->instrs[i].ncalls; c++, k++) {
            prof_target *t = &p->instrs[i].calls[c];
            prof_instr key = {.module = t->module, .addr = t->addr}, *pkey = &key;
            prof_instr *const *hit = bsearch(&pkey, sorted, p->ninstrs, sizeof *sorted, by_location);
            if (!hit)
                return rawtext_fail(&r->t, r->call_lines[k],
                                    "the callee at module %d address %llx is no instruction of the profile (it "
                                    "has no 'ins' line): the profile is damaged (collect the profile again)",
                                    t->module, (unsigned long long)t->addr);
            t->instr = (size_t)(*hit - p->instrs);
        }
    return 0;
}

/* The checks of the instructions as a whole. */
static int check_instrs(reader *r)
{
    prof_instr **sorted = sorted_instrs(r->p);
    if (!sorted)
        return out_of_memory(r);
    int rc = check_duplicates(r, sorted) != 0 || resolve_calls(r, sorted) != 0 ? -1 : 0;
    free(sorted);
    return rc;
}

/* Parse the lines before the end line, then check what only the whole
 * file can show (a rawtext_reader's parse). */
static int parse_body(void *reader_, char *buf, size_t body_len)
{
    reader *r = reader_;
    int rc = 0;
    if (rawtext_each_line(&r->t, buf, body_len, parse_line, r) != 0 || finish_instr(r) != 0 ||
        rawtext_required_before(&r->t, &r->order, R_EXIT + 1, "the 'end' line") != 0 || check_threads(r) != 0 ||
        check_instrs(r) != 0)
        rc = -1;
    free(r->ins_lines);
    free(r->call_lines);
    r->ins_lines = r->call_lines = NULL;
    return rc;
}

/* A rawtext_reader's setup: the reader writes into out. */
static void setup(void *reader_, void *out)
{
    reader *r = reader_;
    r->p = out;
    r->order = (rawtext_order){.table = keywords, .n = NKEYWORDS, .stride = sizeof *keywords,
                               .doc = "docs/profile-format.md", .rank = R_MAGIC, .prev = ""};
}

/* A rawtext_reader's free_out. */
static void free_out(void *out)
{
    profile_free(out);
}

int profile_read(const char *path, profile *out, char *err, size_t errlen)
{
    const rawtext t = {.path = path, .magic = "augur-profile", .version = PROFILE_VERSION,
                       .oldest = PROFILE_OLDEST_VERSION, .kind = "profile",
                       .hint = TRUNCATED_HINT, .redo = "collect the profile again", .err = err, .errlen = errlen};
    static const rawtext_reader how = {.size = sizeof(reader), .setup = setup, .parse = parse_body,
                                       .free_out = free_out};
    return rawtext_read(&t, &how, out, sizeof *out);
}

static void free_instr(prof_instr *in)
{
    for (uint32_t h = 0; h < in->nhists; h++)
        free(in->hists[h].bins);
    free(in->hists);
    for (uint32_t h = 0; h < in->nsets; h++)
        free(in->sets[h].bins);
    free(in->sets);
    free(in->targets);
    free(in->calls);
}

void profile_free(profile *p)
{
    free(p->tool);
    free(p->exe);
    array_free_strings(p->argv, (size_t)p->argc);
    for (int i = 0; i < p->nmodules; i++)
        free(p->modules[i].path);
    free(p->modules);
    array_free_strings(p->fns, (size_t)p->nfns);
    array_free_strings(p->files, (size_t)p->nfiles);
    for (size_t i = 0; i < p->ninstrs; i++)
        free_instr(&p->instrs[i]);
    free(p->instrs);
    for (int i = 0; i < p->regions.nregion_fns; i++)
        free(p->regions.region_fns[i].glob);
    for (int i = 0; i < p->regions.ninterval_fns; i++)
        free(p->regions.interval_fns[i].glob);
    free(p->regions.region_fns);
    free(p->regions.interval_fns);
    for (size_t i = 0; i < p->ncomms; i++)
        free(p->comms[i].frames);
    free(p->comms);
    memset(p, 0, sizeof *p);
}

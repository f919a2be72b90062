/* profile_reader.c — the strict reader of raw profiles (docs/profile-format.md).
 *
 * profile_read() loads the whole file and first checks its framing: the
 * `augur-profile` line, the `end` line, the line count and CRC-32 it
 * carries, and that nothing follows it.  Damage is so reported as damage
 * (truncated, corrupt) rather than as whatever odd field it happened to
 * produce.  Only then are the lines parsed, one by one, through a table of
 * keywords.  Each keyword has a rank, the section of the file it belongs to;
 * ranks never decrease, which enforces the documented order of lines.
 *
 * Everything a later stage relies on is checked here: identifiers are
 * defined before use, histograms add up, bins are ascending and in range,
 * hist lines follow the block-size lines, br/ind/hist lines follow an ins.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "profile/profile.h"
#include "util/array.h"
#include "util/parse.h"

/* Fields of the longest possible line: a hist line listing every bin. */
#define MAX_FIELDS (5 + 3 * RD_MAX_BINS)

#define TRUNCATED_HINT "the process may have been killed before its profile was finished"

/* Sections of the file, in order (the rank of a keyword). */
enum rank { R_MAGIC, R_TOOL, R_PID, R_PPID, R_EXE, R_ARG, R_BLOCK, R_THREADS, R_BODY, R_EXIT };

/* What the last line attached to the current instruction was; an
 * instruction's lines come in the order ins, br, ind..., hist... */
enum stage { S_INS, S_BR, S_IND, S_HIST };

typedef struct reader {
    const char *path;
    char *err;
    size_t errlen;
    size_t lineno;   /* line being parsed, from 1 */
    profile *p;
    size_t cap_instrs, cap_modules, cap_fns, cap_files, cap_args, cap_targets;
    unsigned seen;   /* bit k: a line with keywords[k] was seen */
    int rank;        /* rank of the previous line */
    const char *prev_keyword;
    prof_instr *cur; /* the last ins, NULL before the first */
    size_t cur_lineno;
    enum stage cur_stage;
    uint64_t cur_target_total; /* sum of the current instruction's ind COUNTs */
    char *fields[MAX_FIELDS];
} reader;

/* ---- errors -------------------------------------------------------------- */

/* Write "<path>: line <n>: <message>" (no line part when line is 0) and
 * return -1, so that callers can `return fail(...)`. */
__attribute__((format(printf, 3, 4))) static int fail_at(reader *r, size_t line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line)
        snprintf(r->err, r->errlen, "%s: line %zu: %s", r->path, line, msg);
    else
        snprintf(r->err, r->errlen, "%s: %s", r->path, msg);
    return -1;
}

#define fail(r, ...) fail_at((r), (r)->lineno, __VA_ARGS__)

static int out_of_memory(reader *r)
{
    return fail(r, "out of memory");
}

/* A field made printable for an error message: at most 40 bytes, other
 * bytes than printable ASCII shown as '?'. */
static const char *shown(const char *field, char *buf, size_t len)
{
    size_t i = 0;
    for (; field[i] && i + 4 < len && i < 40; i++)
        buf[i] = field[i] > 0x20 && field[i] < 0x7f ? field[i] : '?';
    strcpy(buf + i, field[i] ? "..." : "");
    return buf;
}

/* ---- fields -------------------------------------------------------------- */

static int field_u64(reader *r, const char *f, const char *what, uint64_t *out)
{
    char buf[48];
    if (parse_u64(f, out) != 0)
        return fail(r, "%s '%s' is not an unsigned decimal number", what, shown(f, buf, sizeof buf));
    return 0;
}

static int field_hex(reader *r, const char *f, const char *what, uint64_t *out)
{
    char buf[48];
    if (parse_hex_u64(f, out) != 0)
        return fail(r, "%s '%s' is not a lower-case hexadecimal number", what, shown(f, buf, sizeof buf));
    return 0;
}

/* A decimal number no larger than `max`. */
static int field_bounded(reader *r, const char *f, const char *what, uint64_t max, uint64_t *out)
{
    if (field_u64(r, f, what, out) != 0)
        return -1;
    if (*out > max)
        return fail(r, "%s %llu is out of range (at most %llu)", what, (unsigned long long)*out,
                    (unsigned long long)max);
    return 0;
}

/* An identifier: -1 (unknown, when allowed) or one of the `defined` ids
 * defined so far by `kind` lines. */
static int field_id(reader *r, const char *f, const char *kind, int defined, int allow_unknown, int32_t *out)
{
    if (allow_unknown && strcmp(f, "-1") == 0) {
        *out = -1;
        return 0;
    }
    uint64_t v;
    if (field_u64(r, f, kind, &v) != 0)
        return -1;
    if (v >= (uint64_t)defined)
        return fail(r, "%s %llu is not defined (a '%s %llu' line must come before its first use)", kind,
                    (unsigned long long)v, kind, (unsigned long long)v);
    *out = (int32_t)v;
    return 0;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decode a percent-encoded string field into a new string. */
static int field_string(reader *r, const char *f, const char *what, char **out)
{
    size_t n = strlen(f);
    char *s = malloc(n + 1), *o = s;
    if (!s)
        return out_of_memory(r);
    if (strcmp(f, "-") == 0)
        n = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)f[i];
        if (c == '%') {
            int hi = hex_digit(f[i + 1]); /* f is NUL-terminated: no overrun */
            int lo = hi >= 0 ? hex_digit(f[i + 2]) : -1;
            if (lo < 0 || (hi == 0 && lo == 0)) {
                free(s);
                return fail(r, "%s: bad escape at byte %zu (expected %%XX with two upper-case hex digits, not %%00)",
                            what, i + 1);
            }
            *o++ = (char)(hi * 16 + lo);
            i += 2;
        } else if (c <= 0x20 || c >= 0x7f) {
            free(s);
            return fail(r, "%s: byte 0x%02x at byte %zu must be percent-encoded", what, c, i + 1);
        } else {
            *o++ = (char)c;
        }
    }
    *o = '\0';
    *out = s;
    return 0;
}

/* ---- header lines -------------------------------------------------------- */

static int check_version(reader *r, const char *f)
{
    uint64_t v;
    if (field_u64(r, f, "format version", &v) != 0)
        return -1;
    if (v != PROFILE_VERSION)
        return fail(r, "profile format version %llu is not supported: this augur reads version %d "
                       "(use the augur that wrote it, or collect the profile again)",
                    (unsigned long long)v, PROFILE_VERSION);
    return 0;
}

static int parse_magic(reader *r, char **f)
{
    return check_version(r, f[1]);
}

static int parse_tool(reader *r, char **f)
{
    char *name, *version;
    if (field_string(r, f[1], "tool name", &name) != 0)
        return -1;
    if (field_string(r, f[2], "tool version", &version) != 0) {
        free(name);
        return -1;
    }
    size_t n = strlen(name) + strlen(version) + 2;
    r->p->tool = malloc(n);
    if (r->p->tool)
        snprintf(r->p->tool, n, "%s %s", name, version);
    free(name);
    free(version);
    return r->p->tool ? 0 : out_of_memory(r);
}

static int parse_process_id(reader *r, const char *f, const char *what, int64_t *out)
{
    uint64_t v;
    if (field_bounded(r, f, what, INT64_MAX, &v) != 0)
        return -1;
    *out = (int64_t)v;
    return 0;
}

static int parse_pid(reader *r, char **f)
{
    return parse_process_id(r, f[1], "pid", &r->p->pid);
}

static int parse_ppid(reader *r, char **f)
{
    return parse_process_id(r, f[1], "ppid", &r->p->ppid);
}

static int parse_exe(reader *r, char **f)
{
    return field_string(r, f[1], "exe", &r->p->exe);
}

static int parse_arg(reader *r, char **f)
{
    profile *p = r->p;
    /* One slot more than the arguments: argv stays NULL-terminated. */
    char **a = array_grow(p->argv, (size_t)p->argc + 1, &r->cap_args, sizeof *p->argv);
    if (!a)
        return out_of_memory(r);
    p->argv = a;
    if (field_string(r, f[1], "arg", &p->argv[p->argc]) != 0)
        return -1;
    p->argv[++p->argc] = NULL;
    return 0;
}

static int parse_block_size(reader *r, char **f)
{
    profile *p = r->p;
    uint64_t b;
    if (field_bounded(r, f[1], "block size", UINT32_MAX, &b) != 0)
        return -1;
    if (b < 8 || (b & (b - 1)) != 0)
        return fail(r, "block size %llu is not a power of two >= 8", (unsigned long long)b);
    if (p->nblock_sizes > 0 && b <= p->block_sizes[p->nblock_sizes - 1])
        return fail(r, "block size %llu after %u: block sizes must be listed in ascending order",
                    (unsigned long long)b, p->block_sizes[p->nblock_sizes - 1]);
    if (p->nblock_sizes == PROFILE_MAX_BLOCK_SIZES)
        return fail(r, "more than %d block sizes", PROFILE_MAX_BLOCK_SIZES);
    p->block_sizes[p->nblock_sizes++] = (uint32_t)b;
    return 0;
}

static int parse_threads(reader *r, char **f)
{
    uint64_t t;
    if (field_bounded(r, f[1], "threads", UINT32_MAX, &t) != 0)
        return -1;
    if (t == 0)
        return fail(r, "threads is 0 (the main thread counts)");
    r->p->threads = (uint32_t)t;
    return 0;
}

/* ---- definitions --------------------------------------------------------- */

/* The id of a definition line must be the number of earlier ones. */
static int check_dense_id(reader *r, const char *f, const char *kind, int defined)
{
    uint64_t id;
    if (field_u64(r, f, kind, &id) != 0)
        return -1;
    if (id != (uint64_t)defined)
        return fail(r, "%s %llu defined where %s %d was expected (ids are dense from 0, in order)", kind,
                    (unsigned long long)id, kind, defined);
    if (defined == INT32_MAX)
        return fail(r, "too many %s lines", kind);
    return 0;
}

static int parse_module(reader *r, char **f)
{
    profile *p = r->p;
    if (check_dense_id(r, f[1], "module", p->nmodules) != 0)
        return -1;
    prof_module *m = array_grow(p->modules, (size_t)p->nmodules, &r->cap_modules, sizeof *m);
    if (!m)
        return out_of_memory(r);
    p->modules = m;
    m = &p->modules[p->nmodules];
    memset(m, 0, sizeof *m);
    if (field_hex(r, f[3], "module bias", &m->bias) != 0 || field_string(r, f[2], "module path", &m->path) != 0)
        return -1;
    p->nmodules++;
    return 0;
}

/* A name table: `fn` and `file` lines. */
static int parse_name(reader *r, char **f, const char *kind, char ***names, int *n, size_t *cap)
{
    if (check_dense_id(r, f[1], kind, *n) != 0)
        return -1;
    char **a = array_grow(*names, (size_t)*n, cap, sizeof **names);
    if (!a)
        return out_of_memory(r);
    *names = a;
    if (field_string(r, f[2], kind, &a[*n]) != 0)
        return -1;
    (*n)++;
    return 0;
}

static int parse_fn(reader *r, char **f)
{
    return parse_name(r, f, "fn", &r->p->fns, &r->p->nfns, &r->cap_fns);
}

static int parse_file(reader *r, char **f)
{
    return parse_name(r, f, "file", &r->p->files, &r->p->nfiles, &r->cap_files);
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
        return fail_at(r, r->cur_lineno,
                       "the instruction has %u hist lines, expected %d (one per block-size line, "
                       "since it accesses memory)",
                       in->nhists, r->p->nblock_sizes);
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
    if (field_id(r, f[1], "module", p->nmodules, 1, &in->module) != 0 ||
        field_hex(r, f[2], "address", &in->addr) != 0 || field_bounded(r, f[3], "length", UINT32_MAX, &len) != 0 ||
        field_id(r, f[4], "fn", p->nfns, 1, &in->fn) != 0 || field_id(r, f[5], "file", p->nfiles, 1, &in->file) != 0 ||
        field_bounded(r, f[6], "line", UINT32_MAX, &line) != 0 || field_u64(r, f[7], "EXECS", &in->execs) != 0 ||
        field_u64(r, f[8], "READS", &in->reads) != 0 || field_u64(r, f[9], "WRITES", &in->writes) != 0)
        return -1;
    if (len == 0)
        return fail(r, "instruction length 0");
    if (in->reads > UINT64_MAX - in->writes)
        return fail(r, "READS + WRITES overflows 64 bits");
    in->len = (uint32_t)len;
    in->line = (uint32_t)line;
    p->ninstrs++;
    r->cur = in;
    r->cur_lineno = r->lineno;
    r->cur_stage = S_INS;
    r->cap_targets = 0;
    r->cur_target_total = 0;
    return 0;
}

/* The current instruction, for a br/ind/hist line that may not come after
 * a line of a later stage of the same instruction; advances the stage. */
static prof_instr *attach(reader *r, const char *keyword, enum stage stage)
{
    if (!r->cur) {
        fail(r, "'%s' line before any 'ins' line (br, ind and hist lines belong to the ins line above them)",
             keyword);
        return NULL;
    }
    if (r->cur_stage > stage || (stage == S_BR && r->cur_stage == S_BR)) {
        fail(r, "misplaced '%s' line: the lines of an instruction come in the order ins, br, ind..., hist...",
             keyword);
        return NULL;
    }
    r->cur_stage = stage;
    return r->cur;
}

static int parse_br(reader *r, char **f)
{
    prof_instr *in = attach(r, "br", S_BR);
    if (!in || field_u64(r, f[1], "TAKEN", &in->taken) != 0)
        return -1;
    if (in->taken > in->execs)
        return fail(r, "branch taken %llu times but executed %llu times", (unsigned long long)in->taken,
                    (unsigned long long)in->execs);
    in->is_cond_branch = 1;
    return 0;
}

static int parse_ind(reader *r, char **f)
{
    prof_instr *in = attach(r, "ind", S_IND);
    if (!in)
        return -1;
    prof_target *t = array_grow(in->targets, in->ntargets, &r->cap_targets, sizeof *t);
    if (!t)
        return out_of_memory(r);
    in->targets = t;
    t = &in->targets[in->ntargets];
    if (field_id(r, f[1], "module", r->p->nmodules, 1, &t->module) != 0 ||
        field_hex(r, f[2], "target address", &t->addr) != 0 || field_u64(r, f[3], "COUNT", &t->count) != 0)
        return -1;
    if (__builtin_add_overflow(r->cur_target_total, t->count, &r->cur_target_total) ||
        r->cur_target_total > in->execs)
        return fail(r, "indirect targets taken more often than the instruction executed (%llu times)",
                    (unsigned long long)in->execs);
    in->ntargets++;
    return 0;
}

/* Check one bin record and, when it is not empty, append it to h.  *total
 * accumulates the counts. */
static int add_bin(reader *r, prof_hist *h, char **f, uint64_t *total)
{
    uint64_t bin, count, sum;
    if (field_u64(r, f[0], "BIN", &bin) != 0 || field_u64(r, f[1], "COUNT", &count) != 0 ||
        field_u64(r, f[2], "SUM", &sum) != 0)
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

static int parse_hist(reader *r, char **f, int nf)
{
    prof_instr *in = attach(r, "hist", S_HIST);
    if (!in)
        return -1;
    const profile *p = r->p;
    if (!accesses_memory(in))
        return fail(r, "'hist' line for an instruction that does not access memory (READS + WRITES is 0)");
    if (in->nhists == (uint32_t)p->nblock_sizes)
        return fail(r, "more hist lines than block sizes (%d)", p->nblock_sizes);
    if (nf < 5)
        return fail(r, "'hist' line with %d fields, expected at least 4: B TOUCHES COLD N", nf - 1);
    if (!in->hists && !(in->hists = calloc((size_t)p->nblock_sizes, sizeof *in->hists)))
        return out_of_memory(r);
    prof_hist *h = &in->hists[in->nhists];
    uint64_t b, n, total;
    if (field_u64(r, f[1], "block size", &b) != 0 || field_u64(r, f[2], "TOUCHES", &h->touches) != 0 ||
        field_u64(r, f[3], "COLD", &h->cold) != 0 || field_bounded(r, f[4], "N", RD_MAX_BINS, &n) != 0)
        return -1;
    if (b != p->block_sizes[in->nhists])
        return fail(r, "hist for block size %llu where block size %u was expected (hist lines follow the "
                       "block-size lines, in order)",
                    (unsigned long long)b, p->block_sizes[in->nhists]);
    if ((uint64_t)nf != 5 + 3 * n)
        return fail(r, "'hist' line with N = %llu bins has %d fields, expected %llu", (unsigned long long)n,
                    nf - 1, (unsigned long long)(4 + 3 * n));
    h->block_size = (uint32_t)b;
    in->nhists++; /* from here h is owned by the instruction (freed with it) */
    if (n > 0 && !(h->bins = malloc(n * sizeof *h->bins)))
        return out_of_memory(r);
    total = h->cold;
    for (uint64_t i = 0; i < n; i++)
        if (add_bin(r, h, f + 5 + 3 * i, &total) != 0)
            return -1;
    if (total != h->touches)
        return fail(r, "histogram counts add up to %llu (COLD + the bins' COUNTs), TOUCHES says %llu",
                    (unsigned long long)total, (unsigned long long)h->touches);
    return 0;
}

static int parse_exit(reader *r, char **f)
{
    uint64_t code;
    if (field_bounded(r, f[1], "exit code", 255, &code) != 0)
        return -1;
    r->p->has_exit = 1;
    r->p->exit_code = (int)code;
    return 0;
}

/* ---- lines --------------------------------------------------------------- */

typedef struct keyword {
    const char *name;
    enum rank rank;
    int once;     /* at most one such line */
    int required; /* at least one such line */
    int nfields;  /* fields after the keyword, or -1 when the parser checks */
    int (*parse)(reader *r, char **f);           /* when nfields >= 0 */
    int (*parse_n)(reader *r, char **f, int nf); /* when nfields < 0 */
} keyword;

static const keyword keywords[] = {
    {"augur-profile", R_MAGIC, 1, 1, 1, parse_magic, NULL},
    {"tool", R_TOOL, 1, 1, 2, parse_tool, NULL},
    {"pid", R_PID, 1, 1, 1, parse_pid, NULL},
    {"ppid", R_PPID, 1, 1, 1, parse_ppid, NULL},
    {"exe", R_EXE, 1, 1, 1, parse_exe, NULL},
    {"arg", R_ARG, 0, 0, 1, parse_arg, NULL},
    {"block-size", R_BLOCK, 0, 0, 1, parse_block_size, NULL},
    {"threads", R_THREADS, 1, 1, 1, parse_threads, NULL},
    {"module", R_BODY, 0, 0, 3, parse_module, NULL},
    {"fn", R_BODY, 0, 0, 2, parse_fn, NULL},
    {"file", R_BODY, 0, 0, 2, parse_file, NULL},
    {"ins", R_BODY, 0, 0, 9, parse_ins, NULL},
    {"br", R_BODY, 0, 0, 1, parse_br, NULL},
    {"ind", R_BODY, 0, 0, 3, parse_ind, NULL},
    {"hist", R_BODY, 0, 0, -1, NULL, parse_hist},
    {"exit", R_EXIT, 1, 0, 1, parse_exit, NULL},
};
#define NKEYWORDS (sizeof keywords / sizeof *keywords)

/* Check that every required line of a rank below `rank` was seen. */
static int check_required_before(reader *r, int rank, const char *what)
{
    for (size_t k = 0; k < NKEYWORDS; k++)
        if (keywords[k].required && (int)keywords[k].rank < rank && !(r->seen & (1u << k)))
            return fail(r, "no '%s' line before %s (lines must come in the order of docs/profile-format.md)",
                        keywords[k].name, what);
    return 0;
}

/* Check the line's place in the file and record it. */
static int check_order(reader *r, size_t k)
{
    const keyword *kw = &keywords[k];
    char what[64];
    if ((int)kw->rank < r->rank)
        return fail(r, "'%s' line after a '%s' line (lines must come in the order of docs/profile-format.md)",
                    kw->name, r->prev_keyword);
    if (kw->once && (r->seen & (1u << k)))
        return fail(r, "a second '%s' line", kw->name);
    snprintf(what, sizeof what, "this '%s' line", kw->name);
    if (check_required_before(r, (int)kw->rank, what) != 0)
        return -1;
    r->seen |= 1u << k;
    r->rank = (int)kw->rank;
    r->prev_keyword = kw->name;
    return 0;
}

/* Split a NUL-terminated line into fields at single spaces (in place). */
static int split_fields(reader *r, char *line, int *nf)
{
    int n = 0;
    for (char *s = line;; s++) {
        char *start = s;
        while (*s && *s != ' ')
            s++;
        if (s == start)
            return fail(r, "empty field (fields are separated by exactly one space, with none at either end "
                           "of the line)");
        if (n == MAX_FIELDS)
            return fail(r, "too many fields (more than %d)", MAX_FIELDS);
        r->fields[n++] = start;
        if (!*s)
            break;
        *s = '\0';
    }
    *nf = n;
    return 0;
}

static int parse_line(reader *r, char *line)
{
    int nf = 0; /* set by split_fields; initialised for gcc -O3, which cannot see that */
    if (split_fields(r, line, &nf) != 0)
        return -1;
    char **f = r->fields;
    for (size_t k = 0; k < NKEYWORDS; k++) {
        const keyword *kw = &keywords[k];
        if (strcmp(f[0], kw->name) != 0)
            continue;
        if (check_order(r, k) != 0)
            return -1;
        if (kw->nfields < 0)
            return kw->parse_n(r, f, nf);
        if (nf - 1 != kw->nfields)
            return fail(r, "'%s' line with %d fields, expected %d", kw->name, nf - 1, kw->nfields);
        return kw->parse(r, f);
    }
    char buf[48];
    return fail(r, "unknown keyword '%s'", shown(f[0], buf, sizeof buf));
}

/* ---- framing ------------------------------------------------------------- */

/* The first line must be `augur-profile 1`; checked before anything else
 * so that another file, or another version, is named as such. */
static int check_magic(reader *r, const char *buf, size_t len)
{
    static const char magic[] = "augur-profile ";
    const size_t mlen = sizeof magic - 1;
    r->lineno = 1;
    if (len == 0)
        return fail_at(r, 0, "empty file: the profile is truncated (" TRUNCATED_HINT ")");
    if (len < mlen || memcmp(buf, magic, mlen) != 0)
        return fail(r, "not an augur profile (the first line is not 'augur-profile %d')", PROFILE_VERSION);
    char version[24];
    size_t n = 0;
    while (mlen + n < len && buf[mlen + n] != '\n' && n + 1 < sizeof version) {
        version[n] = buf[mlen + n];
        n++;
    }
    version[n] = '\0';
    return check_version(r, version);
}

/* Find the `end` line, check that it closes the file and that its line
 * count and CRC-32 match the bytes before it.  *body_len receives the
 * offset of the end line. */
static int check_end(reader *r, const char *buf, size_t len, size_t *body_len)
{
    size_t line = 1, pos = 0;
    while (pos < len && !(len - pos >= 3 && memcmp(buf + pos, "end", 3) == 0 &&
                          (len - pos == 3 || buf[pos + 3] == ' ' || buf[pos + 3] == '\n'))) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        if (!nl)
            return fail_at(r, line, "truncated: the last line is incomplete and there is no 'end' line (" TRUNCATED_HINT
                                    ")");
        pos = (size_t)(nl - buf) + 1;
        line++;
    }
    if (pos == len)
        return fail_at(r, 0, "truncated: no 'end' line after line %zu (" TRUNCATED_HINT ")", line - 1);
    r->lineno = line;
    const char *nl = memchr(buf + pos, '\n', len - pos);
    if (!nl)
        return fail(r, "truncated: the 'end' line is incomplete (no newline)");
    size_t tail = len - (size_t)(nl - buf) - 1;
    if (tail)
        return fail(r, "%zu bytes after the 'end' line: the file is corrupt", tail);
    char end[64];
    size_t n = (size_t)(nl - (buf + pos));
    if (n >= sizeof end)
        return fail(r, "malformed 'end' line (expected: end LINES CRC)");
    memcpy(end, buf + pos, n);
    end[n] = '\0';
    int nf = 0;
    uint64_t lines, crc;
    if (split_fields(r, end, &nf) != 0)
        return -1;
    if (nf != 3 || parse_u64(r->fields[1], &lines) != 0 || parse_hex_u64(r->fields[2], &crc) != 0)
        return fail(r, "malformed 'end' line (expected: end LINES CRC-hex)");
    if (lines != line - 1)
        return fail(r, "the 'end' line counts %llu lines but %zu precede it: the file is corrupt",
                    (unsigned long long)lines, line - 1);
    uLong actual = crc32(0L, (const Bytef *)buf, 0);
    for (size_t off = 0; off < pos;) { /* crc32() takes at most UINT_MAX bytes at once */
        size_t chunk = pos - off > (1u << 30) ? (1u << 30) : pos - off;
        actual = crc32(actual, (const Bytef *)buf + off, (uInt)chunk);
        off += chunk;
    }
    if (crc != actual)
        return fail(r, "checksum mismatch (the 'end' line says %llx, the content's CRC-32 is %lx): the file is corrupt",
                    (unsigned long long)crc, (unsigned long)actual);
    *body_len = pos;
    return 0;
}

/* Parse the lines before the end line, then check what only the whole
 * file can show. */
static int parse_body(reader *r, char *buf, size_t body_len)
{
    r->lineno = 1;
    for (char *line = buf; line < buf + body_len; r->lineno++) {
        char *nl = memchr(line, '\n', (size_t)(buf + body_len - line));
        *nl = '\0'; /* check_end saw the newline of every line before it */
        if (parse_line(r, line) != 0)
            return -1;
        line = nl + 1;
    }
    return finish_instr(r) != 0 ? -1 : check_required_before(r, R_EXIT + 1, "the 'end' line");
}

/* Read the whole file into a NUL-terminated buffer. */
static int load(reader *r, char **buf, size_t *len)
{
    FILE *fp = fopen(r->path, "rb");
    if (!fp) {
        snprintf(r->err, r->errlen, "cannot open %s: %s", r->path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    while (b) {
        n += fread(b + n, 1, cap - n - 1, fp);
        if (n < cap - 1)
            break;
        char *nb = realloc(b, cap * 2);
        if (!nb)
            free(b);
        b = nb;
        cap *= 2;
    }
    int read_errno = ferror(fp) ? errno : 0;
    fclose(fp);
    if (!b)
        return fail_at(r, 0, "out of memory");
    if (read_errno) {
        free(b);
        snprintf(r->err, r->errlen, "cannot read %s: %s", r->path, strerror(read_errno));
        return -1;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

int profile_read(const char *path, profile *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    reader *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    r->path = path;
    r->err = err;
    r->errlen = errlen;
    r->p = out;
    r->rank = R_MAGIC;
    r->prev_keyword = "";
    char *buf = NULL;
    size_t len = 0, body_len = 0;
    int rc = load(r, &buf, &len);
    if (rc == 0)
        rc = check_magic(r, buf, len);
    if (rc == 0)
        rc = check_end(r, buf, len, &body_len);
    if (rc == 0)
        rc = parse_body(r, buf, body_len);
    free(buf);
    free(r);
    if (rc != 0)
        profile_free(out);
    return rc;
}

static void free_strings(char **s, int n)
{
    for (int i = 0; i < n; i++)
        free(s[i]);
    free(s);
}

static void free_instr(prof_instr *in)
{
    for (uint32_t h = 0; h < in->nhists; h++)
        free(in->hists[h].bins);
    free(in->hists);
    free(in->targets);
}

void profile_free(profile *p)
{
    free(p->tool);
    free(p->exe);
    free_strings(p->argv, p->argc);
    for (int i = 0; i < p->nmodules; i++)
        free(p->modules[i].path);
    free(p->modules);
    free_strings(p->fns, p->nfns);
    free_strings(p->files, p->nfiles);
    for (size_t i = 0; i < p->ninstrs; i++)
        free_instr(&p->instrs[i]);
    free(p->instrs);
    memset(p, 0, sizeof *p);
}

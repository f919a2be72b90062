/* build_match.c — builds of one source compared and matched (builds.h):
 * their compilation units (files, flags), their scope trees, and their
 * static instructions.  Pure logic on what the database holds; the rules
 * are in builds.h and docs/models.md, "Builds of one source". */
#define _GNU_SOURCE /* qsort_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modelset/builds.h"

/* ---- producer flags -------------------------------------------------------------- */

/* Does word w name a macro or an output?  *takes_next: its argument is the
 * next word (the option alone, e.g. "-D" "N=40"). */
static int left_out(const char *w, size_t n, int *takes_next)
{
    static const char *const with_arg[] = {"-D", "-U", "-o", "-MF", "-MT", "-MQ"};
    static const char *const alone[] = {"-MD", "-MMD", "-MP"};
    *takes_next = 0;
    for (size_t k = 0; k < sizeof alone / sizeof *alone; k++)
        if (n == strlen(alone[k]) && !strncmp(w, alone[k], n))
            return 1;
    for (size_t k = 0; k < sizeof with_arg / sizeof *with_arg; k++) {
        size_t m = strlen(with_arg[k]);
        if (n >= m && !strncmp(w, with_arg[k], m)) {
            *takes_next = n == m;
            return 1;
        }
    }
    return 0;
}

void build_producer_flags(const char *producer, char *out, size_t len)
{
    size_t used = 0;
    int skip_next = 0;
    out[0] = '\0';
    for (const char *p = producer ? producer : ""; *p;) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (!n)
            break;
        int takes_next;
        if (skip_next)
            skip_next = 0;
        else if (left_out(p, n, &takes_next))
            skip_next = takes_next;
        else if (used + n + 2 <= len) {
            used += (size_t)snprintf(out + used, len - used, "%s%.*s", used ? " " : "", (int)n, p);
        }
        p += n;
    }
}

/* ---- comparing units ----------------------------------------------------------------- */

/* A unit as compared: its file and its flags. */
typedef struct unit_key {
    const char *file;
    char flags[2048];
} unit_key;

static int by_file_flags(const void *pa, const void *pb)
{
    const unit_key *a = pa, *b = pb;
    int c = strcmp(a->file, b->file);
    return c ? c : strcmp(a->flags, b->flags);
}

/* The units' keys, sorted; NULL when memory runs out. */
static unit_key *unit_keys(const st_unit *u, size_t n)
{
    unit_key *k = calloc(n + 1, sizeof *k);
    for (size_t i = 0; k && i < n; i++) {
        k[i].file = u[i].file;
        build_producer_flags(u[i].producer, k[i].flags, sizeof k[i].flags);
    }
    if (k)
        qsort(k, n, sizeof *k, by_file_flags);
    return k;
}

/* Append word w (n bytes) to list out[len], separated by `sep`. */
static void append_word(char *out, size_t len, const char *sep, const char *w, size_t n)
{
    size_t used = strlen(out);
    if (used + strlen(sep) + n + 1 < len)
        snprintf(out + used, len - used, "%s%.*s", used ? sep : "", (int)n, w);
}

/* How often the space-separated list `words`, up to `end` (NULL: all of
 * it), holds the word w (n bytes). */
static size_t count_word(const char *words, const char *end, const char *w, size_t n)
{
    size_t k = 0;
    for (const char *p = words; *p && (!end || p < end);) {
        size_t m = strcspn(p, " ");
        k += m == n && !strncmp(p, w, n);
        p += m;
        while (*p == ' ')
            p++;
    }
    return k;
}

/* Into out: the words of x that y lacks, as multisets (`-O2 -O2` against
 * `-O2 -O0` lacks one -O2: the later option is the one that counts),
 * "none" when there is none. */
static void words_only_in(const char *x, const char *y, char *out, size_t len)
{
    out[0] = '\0';
    for (const char *p = x; *p;) {
        size_t m = strcspn(p, " ");
        if (m && count_word(x, p + m, p, m) > count_word(y, NULL, p, m))
            append_word(out, len, " ", p, m);
        p += m;
        while (*p == ' ')
            p++;
    }
    if (!out[0])
        snprintf(out, len, "none");
}

/* Into out: the distinct files of x[0..nx) missing from y[0..ny) (both
 * sorted), "none" when there is none. */
static void files_only_in(const unit_key *x, size_t nx, const unit_key *y, size_t ny, char *out, size_t len)
{
    out[0] = '\0';
    size_t j = 0;
    for (size_t i = 0; i < nx; i++) {
        if (i > 0 && !strcmp(x[i].file, x[i - 1].file))
            continue;
        while (j < ny && strcmp(y[j].file, x[i].file) < 0)
            j++;
        if (j == ny || strcmp(y[j].file, x[i].file))
            append_word(out, len, ", ", x[i].file, strlen(x[i].file));
    }
    if (!out[0])
        snprintf(out, len, "none");
}

void build_compare_units(const st_unit *a, size_t na, const st_unit *b, size_t nb, build_difference *out)
{
    memset(out, 0, sizeof *out);
    if (!na || !nb) {
        out->verdict = BUILD_NO_DEBUG;
        out->a_empty = !na;
        return;
    }
    unit_key *ka = unit_keys(a, na), *kb = unit_keys(b, nb);
    if (!ka || !kb) { /* out of memory: compare nothing, refuse nothing silently */
        out->verdict = BUILD_NO_DEBUG;
        free(ka), free(kb);
        return;
    }
    files_only_in(ka, na, kb, nb, out->a, sizeof out->a);
    files_only_in(kb, nb, ka, na, out->b, sizeof out->b);
    int same_files = !strcmp(out->a, "none") && !strcmp(out->b, "none") && na == nb;
    for (size_t i = 0; same_files && i < na; i++)
        same_files = !strcmp(ka[i].file, kb[i].file);
    if (!same_files)
        out->verdict = BUILD_OTHER_SOURCES;
    else {
        out->verdict = BUILD_SAME;
        out->a[0] = out->b[0] = '\0';
        for (size_t i = 0; i < na && out->verdict == BUILD_SAME; i++)
            if (strcmp(ka[i].flags, kb[i].flags)) {
                out->verdict = BUILD_OTHER_FLAGS;
                snprintf(out->file, sizeof out->file, "%s", ka[i].file);
                words_only_in(ka[i].flags, kb[i].flags, out->a, sizeof out->a);
                words_only_in(kb[i].flags, ka[i].flags, out->b, sizeof out->b);
            }
    }
    free(ka), free(kb);
}

/* ---- matching scopes -------------------------------------------------------------------- */

/* Children of every scope, by entry address: kids[first[s] .. first[s+1]). */
typedef struct kids {
    size_t *first;
    int64_t *kid;
} kids;

static int by_entry(const void *pa, const void *pb, void *ctx)
{
    const db_scope *s = ctx, *a = &s[*(const int64_t *)pa], *b = &s[*(const int64_t *)pb];
    return (a->entry_addr > b->entry_addr) - (a->entry_addr < b->entry_addr);
}

static int kids_make(const db_scope *s, size_t n, kids *k)
{
    k->first = calloc(n + 2, sizeof *k->first);
    k->kid = malloc((n + 1) * sizeof *k->kid);
    size_t *fill = calloc(n + 1, sizeof *fill);
    if (!k->first || !k->kid || !fill) {
        free(fill);
        return -1;
    }
    for (size_t i = 1; i < n; i++)
        if (s[i].parent >= 0 && (size_t)s[i].parent < n)
            k->first[s[i].parent + 1]++;
    for (size_t i = 0; i < n; i++)
        k->first[i + 1] += k->first[i];
    for (size_t i = 1; i < n; i++)
        if (s[i].parent >= 0 && (size_t)s[i].parent < n)
            k->kid[k->first[s[i].parent] + fill[s[i].parent]++] = (int64_t)i;
    for (size_t i = 0; i < n; i++)
        qsort_r(k->kid + k->first[i], k->first[i + 1] - k->first[i], sizeof *k->kid, by_entry, (void *)s);
    free(fill);
    return 0;
}

static void kids_free(kids *k)
{
    free(k->first), free(k->kid);
}

static int is_loop(const db_scope *s)
{
    return !strcmp(s->kind, "loop");
}

static int same_text(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* Order of two scopes by their key (kind, name, file or call site); 0
 * when they can stand for each other. */
static int compare_keys(const db_scope *a, const db_scope *b)
{
    int c = strcmp(a->kind, b->kind);
    if (!c)
        c = strcmp(a->name, b->name);
    const char *fa = !strcmp(a->kind, "inlined") ? a->call_file : a->file;
    const char *fb = !strcmp(b->kind, "inlined") ? b->call_file : b->file;
    if (!c)
        c = strcmp(fa ? fa : "", fb ? fb : "");
    if (!c && !strcmp(a->kind, "inlined"))
        c = (a->call_line > b->call_line) - (a->call_line < b->call_line);
    return c;
}

/* A keyed child and its tree, for sorting one sibling list by key. */
typedef struct keyed {
    const db_scope *s;
    int64_t id;
} keyed;

static int by_key(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    int c = compare_keys(a->s, b->s);
    return c ? c : (a->s->entry_addr > b->s->entry_addr) - (a->s->entry_addr < b->s->entry_addr);
}

/* The children of one scope that are not loops, sorted by key; *n of them. */
static keyed *keyed_kids(const db_scope *s, const kids *k, int64_t parent, size_t *n)
{
    size_t lo = k->first[parent], hi = k->first[parent + 1];
    keyed *out = malloc((hi - lo + 1) * sizeof *out);
    *n = 0;
    for (size_t i = lo; out && i < hi; i++)
        if (!is_loop(&s[k->kid[i]]))
            out[(*n)++] = (keyed){&s[k->kid[i]], k->kid[i]};
    if (out)
        qsort(out, *n, sizeof *out, by_key);
    return out;
}

/* The number of entries of x[i..n) with x[i]'s key. */
static size_t run_of(const keyed *x, size_t i, size_t n)
{
    size_t j = i + 1;
    while (j < n && !compare_keys(x[i].s, x[j].s))
        j++;
    return j - i;
}

/* Pair the children of r-scope p and b-scope q that are functions or
 * inlined subroutines, equal keys in address order when as many. */
static int match_keyed(const db_scope *r, const kids *kr, int64_t p, const db_scope *b, const kids *kb, int64_t q,
                       int64_t *b_of_r, int64_t *r_of_b)
{
    size_t nx, ny;
    keyed *x = keyed_kids(r, kr, p, &nx), *y = keyed_kids(b, kb, q, &ny);
    int rc = x && y ? 0 : -1;
    for (size_t i = 0, j = 0; rc == 0 && i < nx;) {
        size_t rx = run_of(x, i, nx);
        while (j < ny && compare_keys(y[j].s, x[i].s) < 0)
            j++;
        size_t ry = j < ny && !compare_keys(y[j].s, x[i].s) ? run_of(y, j, ny) : 0;
        for (size_t k = 0; rx == ry && k < rx; k++) {
            b_of_r[x[i + k].id] = y[j + k].id;
            r_of_b[y[j + k].id] = x[i + k].id;
        }
        i += rx;
        j += ry;
    }
    free(x), free(y);
    return rc;
}

/* Do loops a and b share a file and a line? */
static int overlap(const db_scope *a, const db_scope *b)
{
    return a->first_line && b->first_line && same_text(a->file, b->file) && a->first_line <= b->last_line &&
           b->first_line <= a->last_line;
}

/* The loop among the children of `parent` of tree s that overlaps loop x
 * of the other tree, when exactly one does; else -1. */
static int64_t only_overlap(const db_scope *s, const kids *k, int64_t parent, const db_scope *x)
{
    int64_t found = -1;
    for (size_t i = k->first[parent]; i < k->first[parent + 1]; i++) {
        const db_scope *c = &s[k->kid[i]];
        if (!is_loop(c) || !overlap(c, x))
            continue;
        if (found >= 0)
            return -1;
        found = k->kid[i];
    }
    return found;
}

/* Pair the loops among the children of r-scope p and b-scope q. */
static void match_loops(const db_scope *r, const kids *kr, int64_t p, const db_scope *b, const kids *kb, int64_t q,
                        int64_t *b_of_r, int64_t *r_of_b)
{
    for (size_t i = kr->first[p]; i < kr->first[p + 1]; i++) {
        int64_t x = kr->kid[i];
        if (!is_loop(&r[x]))
            continue;
        int64_t y = only_overlap(b, kb, q, &r[x]);
        if (y >= 0 && only_overlap(r, kr, p, &b[y]) == x && r[x].folded == b[y].folded) {
            b_of_r[x] = y;
            r_of_b[y] = x;
        }
    }
}

int build_match_scopes(const db_scope *r, size_t nr, const db_scope *b, size_t nb, int64_t *b_of_r,
                       int64_t *r_of_b)
{
    for (size_t i = 0; i < nr; i++)
        b_of_r[i] = -1;
    for (size_t i = 0; i < nb; i++)
        r_of_b[i] = -1;
    if (!nr || !nb)
        return 0;
    kids kr = {0}, kb = {0};
    int rc = kids_make(r, nr, &kr) == 0 && kids_make(b, nb, &kb) == 0 ? 0 : -1;
    if (rc == 0)
        b_of_r[0] = 0, r_of_b[0] = 0;
    for (size_t p = 0; rc == 0 && p < nr; p++) /* parents first: ids ascend from the module */
        if (b_of_r[p] >= 0) {
            rc = match_keyed(r, &kr, (int64_t)p, b, &kb, b_of_r[p], b_of_r, r_of_b);
            match_loops(r, &kr, (int64_t)p, b, &kb, b_of_r[p], b_of_r, r_of_b);
        }
    kids_free(&kr), kids_free(&kb);
    return rc;
}

void build_scope_label(const db_scope *scopes, size_t n, int64_t s, char *buf, size_t len)
{
    if (s < 0 || (size_t)s >= n) {
        snprintf(buf, len, "scope %lld", (long long)s);
        return;
    }
    const db_scope *sc = &scopes[s];
    int64_t f = s;
    while (f > 0 && strcmp(scopes[f].kind, "function"))
        f = scopes[f].parent;
    const char *function = f > 0 ? scopes[f].name : "?";
    if (!strcmp(sc->kind, "function"))
        snprintf(buf, len, "function %s", sc->name);
    else if (is_loop(sc))
        snprintf(buf, len, "%s in %s", sc->name, function);
    else
        snprintf(buf, len, "%s %s in %s", sc->kind, sc->name, function);
}

/* ---- matching instructions --------------------------------------------------------------- */

/* An instruction by its key: the reference's scope (-1: not matched), its
 * line, class and memory kind; then its address. */
typedef struct insn_key {
    int64_t scope;
    uint32_t line;
    int cls, mem;
    uint64_t addr;
    uint32_t len;
} insn_key;

static int compare_insn_keys(const insn_key *a, const insn_key *b)
{
    if (a->scope != b->scope)
        return a->scope < b->scope ? -1 : 1;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->cls != b->cls)
        return a->cls < b->cls ? -1 : 1;
    return (a->mem > b->mem) - (a->mem < b->mem);
}

static int by_insn_key(const void *pa, const void *pb)
{
    const insn_key *a = pa, *b = pb;
    int c = compare_insn_keys(a, b);
    return c ? c : (a->addr > b->addr) - (a->addr < b->addr);
}

/* Build k's instructions by key: only those of modeled scopes. */
static insn_key *keys_of(const db_static_insn *in, size_t n, const int64_t *ref_of, const unsigned char *modeled,
                         size_t nref, size_t *nkeys)
{
    insn_key *k = malloc((n + 1) * sizeof *k);
    *nkeys = 0;
    for (size_t i = 0; k && i < n; i++) {
        int64_t s = ref_of ? (in[i].scope >= 0 ? ref_of[in[i].scope] : -1) : in[i].scope;
        if (s < 0 || (size_t)s >= nref || !modeled[s])
            continue;
        k[(*nkeys)++] = (insn_key){.scope = s, .line = in[i].line, .cls = in[i].cls,
                                   .mem = (in[i].loads > 0) | (in[i].stores > 0) << 1, .addr = in[i].addr,
                                   .len = in[i].len};
    }
    if (k)
        qsort(k, *nkeys, sizeof *k, by_insn_key);
    return k;
}

/* The number of entries of x[i..n) with x[i]'s key. */
static size_t key_run(const insn_key *x, size_t i, size_t n)
{
    size_t j = i + 1;
    while (j < n && !compare_insn_keys(&x[i], &x[j]))
        j++;
    return j - i;
}

/* Where the run of reference key x[i] starts in y (sorted), and how long
 * it is (0 when y has none). */
static size_t find_run(const insn_key *y, size_t ny, const insn_key *key, size_t *len)
{
    size_t lo = 0, hi = ny;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (compare_insn_keys(&y[mid], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *len = lo < ny && !compare_insn_keys(&y[lo], key) ? key_run(y, lo, ny) : 0;
    return lo;
}

static int by_map_addr(const void *pa, const void *pb)
{
    const build_insn_map *a = pa, *b = pb;
    return (a->addr > b->addr) - (a->addr < b->addr);
}

int build_match_insns(size_t nbuilds, const db_static_insn *const *insns, const size_t *ninsns,
                      const int64_t *const *ref_of, const unsigned char *modeled, size_t nref,
                      build_insn_map **map, size_t *nmap)
{
    for (size_t b = 0; b < nbuilds; b++)
        map[b] = NULL, nmap[b] = 0;
    insn_key **k = calloc(nbuilds + 1, sizeof *k);
    size_t *nk = calloc(nbuilds + 1, sizeof *nk);
    int rc = k && nk ? 0 : -1;
    for (size_t b = 0; rc == 0 && b < nbuilds; b++) {
        k[b] = keys_of(insns[b], ninsns[b], b ? ref_of[b] : NULL, modeled, nref, &nk[b]);
        rc = k[b] ? 0 : -1;
        map[b] = rc == 0 ? malloc((nk[b] + 1) * sizeof **map) : NULL;
        nmap[b] = 0;
        rc = map[b] ? rc : -1;
    }
    for (size_t i = 0; rc == 0 && i < nk[0];) { /* each key of the reference */
        size_t run = key_run(k[0], i, nk[0]), len, at = 0;
        int everywhere = 1;
        for (size_t b = 1; everywhere && b < nbuilds; b++) {
            find_run(k[b], nk[b], &k[0][i], &len);
            everywhere = len == run;
        }
        for (size_t b = 0; everywhere && b < nbuilds; b++) {
            at = b ? find_run(k[b], nk[b], &k[0][i], &len) : i;
            for (size_t j = 0; j < run; j++)
                map[b][nmap[b]++] = (build_insn_map){.addr = k[b][at + j].addr, .to = k[0][i + j].addr,
                                                     .len = k[0][i + j].len};
        }
        i += run;
    }
    for (size_t b = 0; rc == 0 && b < nbuilds; b++)
        qsort(map[b], nmap[b], sizeof *map[b], by_map_addr);
    for (size_t b = 0; k && b < nbuilds; b++)
        free(k[b]);
    free(k), free(nk);
    return rc;
}

const build_insn_map *build_insn_find(const build_insn_map *map, size_t n, uint64_t addr)
{
    build_insn_map key = {.addr = addr};
    return n ? bsearch(&key, map, n, sizeof *map, by_map_addr) : NULL;
}

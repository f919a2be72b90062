/* scope.c — the scope tree of a module: module -> function -> inlined
 * subroutine / loop -> ..., with each scope's source file and line range,
 * and each instruction's innermost scope (seed 000 section 3.2).
 *
 * Loops (from the CFG) and inlined subroutines (from DWARF) are both sets
 * of instructions.  They are placed largest first: each instruction is
 * labelled with the innermost scope placed so far, and a new scope becomes
 * the child of the innermost scope holding all its instructions (the lowest
 * common ancestor of their labels), taking over the instructions labelled
 * with exactly that ancestor.  Properly nested sets give the exact tree;
 * a set that partly overlaps another (optimised code can interleave an
 * inlined body with a loop) keeps the instructions already in deeper
 * scopes there.
 *
 * A scope's file is the file most of its own instructions come from (those
 * not inside a nested function or inlined scope); its lines are the range
 * of their lines in that file.  Sibling loops in one file whose line ranges
 * overlap are folded into one scope: they are pieces of one source loop
 * after fission, peeling, versioning, software pipelining or tiling. */
#define _GNU_SOURCE /* qsort_r */
#include "structure/structure.h"
#include "util/array.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An interval [lo, hi) of instruction indices of one function. */
typedef struct span {
    uint32_t lo, hi;
} span;

/* A loop or inlined subroutine waiting to be placed. */
typedef struct candidate {
    uint8_t kind;     /* ST_SCOPE_LOOP or ST_SCOPE_INLINED */
    uint32_t id;      /* loop index in the function, or st_inline index */
    uint32_t size;    /* instructions covered */
    uint32_t first, nspans; /* its spans in the builder's span list */
} candidate;

/* State while building the scopes of one module. */
typedef struct builder {
    st_module *m;
    const st_debug_info *di;
    size_t scopes_cap, depth_cap;
    uint32_t *depth;      /* depth of each scope, parallel to m->scopes */
    span *spans;
    size_t nspans, spans_cap;
    candidate *cands;
    size_t ncands, cands_cap;
    uint64_t (*inl_ranges)[3]; /* {low, high, inline} of every inline range, by low */
    size_t ninl_ranges;
} builder;

/* Append a scope; returns its index or -1. */
static int32_t add_scope(builder *b, uint8_t kind, int32_t parent, const char *name, uint32_t function)
{
    st_module *m = b->m;
    st_scope *scopes = array_grow(m->scopes, m->nscopes, &b->scopes_cap, sizeof *scopes);
    if (scopes)
        m->scopes = scopes;
    uint32_t *depth = scopes ? array_grow(b->depth, m->nscopes, &b->depth_cap, sizeof *depth) : NULL;
    if (!depth)
        return -1;
    b->depth = depth;
    st_scope *s = &m->scopes[m->nscopes];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->parent = parent;
    s->function = function;
    s->loop = -1;
    if (!(s->name = strdup(name)))
        return -1;
    b->depth[m->nscopes] = parent < 0 ? 0 : b->depth[parent] + 1;
    return (int32_t)m->nscopes++;
}

static uint32_t lca(const builder *b, uint32_t x, uint32_t y)
{
    while (b->depth[x] > b->depth[y])
        x = (uint32_t)b->m->scopes[x].parent;
    while (b->depth[y] > b->depth[x])
        y = (uint32_t)b->m->scopes[y].parent;
    while (x != y) {
        x = (uint32_t)b->m->scopes[x].parent;
        y = (uint32_t)b->m->scopes[y].parent;
    }
    return x;
}

/* Append [lo, hi) to the spans of the candidate whose spans start at
 * index `first`.  A span that continues the candidate's last one extends
 * it; one that continues another candidate's (two inlined calls or loops
 * back to back) must not, or that candidate would take it over. */
static int add_span(builder *b, uint32_t first, uint32_t lo, uint32_t hi)
{
    if (lo >= hi)
        return 0;
    if (b->nspans > first && b->spans[b->nspans - 1].hi == lo) { /* extend the previous */
        b->spans[b->nspans - 1].hi = hi;
        return 0;
    }
    span *spans = array_grow(b->spans, b->nspans, &b->spans_cap, sizeof *spans);
    if (!spans)
        return -1;
    b->spans = spans;
    b->spans[b->nspans++] = (span){lo, hi};
    return 0;
}

static int add_candidate(builder *b, uint8_t kind, uint32_t id, uint32_t first)
{
    uint32_t size = 0;
    for (size_t k = first; k < b->nspans; k++)
        size += b->spans[k].hi - b->spans[k].lo;
    if (size == 0)
        return 0;
    candidate *cands = array_grow(b->cands, b->ncands, &b->cands_cap, sizeof *cands);
    if (!cands)
        return -1;
    b->cands = cands;
    b->cands[b->ncands++] = (candidate){kind, id, size, first, (uint32_t)(b->nspans - first)};
    return 0;
}

static int loop_candidates(builder *b, const st_function *f)
{
    for (uint32_t l = 0; l < f->nloops; l++) {
        uint32_t first = (uint32_t)b->nspans;
        for (uint32_t k = 0; k < f->loops[l].nblocks; k++) {
            const st_block *bl = &f->blocks[f->loops[l].blocks[k]];
            if (add_span(b, first, bl->first, bl->first + bl->n) != 0)
                return -1;
        }
        if (add_candidate(b, ST_SCOPE_LOOP, l, first) != 0)
            return -1;
    }
    return 0;
}

static int by_inline_then_low(const void *x, const void *y)
{
    const uint64_t *a = x, *b = y;
    if (a[2] != b[2])
        return a[2] < b[2] ? -1 : 1;
    return (a[0] > b[0]) - (a[0] < b[0]);
}

/* Inlined subroutines with code in f: their ranges starting inside f,
 * grouped per inline. */
static int inline_candidates(builder *b, const st_function *f)
{
    uint64_t end = f->start + f->size;
    size_t lo = 0, hi = b->ninl_ranges;
    while (lo < hi) { /* first range with low >= f->start */
        size_t mid = lo + (hi - lo) / 2;
        if (b->inl_ranges[mid][0] < f->start)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t n = 0;
    while (lo + n < b->ninl_ranges && b->inl_ranges[lo + n][0] < end)
        n++;
    if (n == 0)
        return 0;
    uint64_t(*mine)[3] = malloc(n * sizeof *mine);
    if (!mine)
        return -1;
    memcpy(mine, b->inl_ranges + lo, n * sizeof *mine);
    qsort(mine, n, sizeof *mine, by_inline_then_low);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0;) {
        uint32_t first = (uint32_t)b->nspans;
        size_t j = i;
        for (; j < n && mine[j][2] == mine[i][2] && rc == 0; j++)
            rc = add_span(b, first, st_insn_lower_bound(f, mine[j][0]), st_insn_lower_bound(f, mine[j][1] < end ? mine[j][1] : end));
        if (rc == 0)
            rc = add_candidate(b, ST_SCOPE_INLINED, (uint32_t)mine[i][2], first);
        i = j;
    }
    free(mine);
    return rc;
}

/* Largest first; on equal sets an inlined scope holds a loop (the loop of
 * an inlined function), and DWARF and loop order break remaining ties. */
static int placement_order(const void *x, const void *y)
{
    const candidate *a = x, *b = y;
    if (a->size != b->size)
        return a->size > b->size ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind == ST_SCOPE_INLINED ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* Give the instructions of candidate c labelled `from` the label `to`. */
static void relabel(const builder *b, const candidate *c, uint32_t *label, uint32_t from, uint32_t to)
{
    for (uint32_t k = c->first; k < c->first + c->nspans; k++)
        for (uint32_t i = b->spans[k].lo; i < b->spans[k].hi; i++)
            if (label[i] == from)
                label[i] = to;
}

/* Place loop c of function fi under the LCA of its labels. */
static int place_loop(builder *b, const candidate *c, uint32_t fi, uint32_t *label)
{
    const st_function *f = &b->m->functions[fi];
    uint32_t parent = label[b->spans[c->first].lo];
    for (uint32_t k = c->first; k < c->first + c->nspans; k++)
        for (uint32_t i = b->spans[k].lo; i < b->spans[k].hi; i++)
            if (label[i] != parent)
                parent = lca(b, parent, label[i]);
    uint64_t header = f->insns[f->blocks[f->loops[c->id].header].first].addr;
    char name[256]; /* until its lines are known (name_loops): its header's address */
    snprintf(name, sizeof name, "loop at 0x%llx", (unsigned long long)header);
    int32_t s = add_scope(b, ST_SCOPE_LOOP, (int32_t)parent, name, fi);
    if (s < 0)
        return -1;
    st_scope *sc = &b->m->scopes[s];
    sc->loop = (int32_t)c->id;
    sc->nfolded = 1;
    sc->entry_addr = header;
    b->m->loop_scopes[fi][c->id] = (uint32_t)s;
    relabel(b, c, label, parent, (uint32_t)s);
    return 0;
}

/* One piece of inlined subroutine c: a child of scope `parent` holding the
 * instructions of c labelled with it; `at` is the first of them. */
static int add_inline_piece(builder *b, const candidate *c, uint32_t fi, uint32_t *label, uint32_t parent, uint32_t at)
{
    const st_inline *in = &b->di->inlines[c->id];
    int32_t s = add_scope(b, ST_SCOPE_INLINED, (int32_t)parent, in->name, fi);
    if (s < 0)
        return -1;
    st_scope *sc = &b->m->scopes[s];
    sc->entry_addr = b->m->functions[fi].insns[at].addr;
    sc->call_line = in->call_line;
    if (in->call_file != UINT32_MAX && !(sc->call_file = strdup(b->di->files[in->call_file])))
        return -1;
    relabel(b, c, label, parent, (uint32_t)s);
    return 0;
}

/* Place inlined subroutine c of function fi: one piece under each scope
 * its instructions are labelled with.  The scopes placed before it are at
 * least as large, so none lies inside it; when its code is spread over a
 * loop and the code around it (the loop's body inlined, its setup hoisted
 * out), the piece in the loop holds the loops found in the inlined body,
 * and the loop keeps its place in the caller. */
static int place_inline(builder *b, const candidate *c, uint32_t fi, uint32_t *label)
{
    uint32_t first_new = (uint32_t)b->m->nscopes;
    for (uint32_t k = c->first; k < c->first + c->nspans; k++)
        for (uint32_t i = b->spans[k].lo; i < b->spans[k].hi; i++)
            if (label[i] < first_new && add_inline_piece(b, c, fi, label, label[i], i) != 0)
                return -1;
    return 0;
}

/* The scopes of one function and the innermost scope of each of its
 * instructions. */
static int function_scopes(builder *b, uint32_t fi)
{
    st_module *m = b->m;
    const st_function *f = &m->functions[fi];
    int32_t fs = add_scope(b, ST_SCOPE_FUNCTION, 0, f->name, fi);
    m->places[fi] = calloc(f->ninsns, sizeof **m->places);
    m->loop_scopes[fi] = calloc(f->nloops ? f->nloops : 1, sizeof **m->loop_scopes);
    uint32_t *label = malloc(f->ninsns * sizeof *label);
    int rc = fs >= 0 && m->places[fi] && m->loop_scopes[fi] && label ? 0 : -1;
    if (rc == 0) {
        m->scopes[fs].entry_addr = f->start;
        b->nspans = b->ncands = 0;
        rc = loop_candidates(b, f) || (b->di && inline_candidates(b, f));
    }
    if (rc == 0) {
        for (uint32_t i = 0; i < f->ninsns; i++)
            label[i] = (uint32_t)fs;
        if (b->ncands > 1) /* a function without candidates has no array */
            qsort(b->cands, b->ncands, sizeof *b->cands, placement_order);
        for (size_t k = 0; k < b->ncands && rc == 0; k++)
            rc = b->cands[k].kind == ST_SCOPE_LOOP ? place_loop(b, &b->cands[k], fi, label)
                                                 : place_inline(b, &b->cands[k], fi, label);
    }
    for (uint32_t i = 0; i < f->ninsns && rc == 0; i++) {
        st_place *p = &m->places[fi][i];
        p->scope = label[i];
        st_debug_line(b->di, f->insns[i].addr, &p->file, &p->line);
        if (!b->di || p->line == 0)
            p->file = UINT32_MAX;
    }
    free(label);
    return rc;
}

/* ---- files and line ranges ------------------------------------------------ */

/* (scope, file, line) of an instruction line counted toward a scope. */
typedef struct scope_line {
    uint32_t scope, file, line;
} scope_line;

static int by_scope_file(const void *x, const void *y)
{
    const scope_line *a = x, *b = y;
    if (a->scope != b->scope)
        return a->scope < b->scope ? -1 : 1;
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    return (a->line > b->line) - (a->line < b->line);
}

/* Every instruction's line counts toward its scope and, through loops,
 * up to the first function or inlined scope above it. */
static int collect_lines(const st_module *m, scope_line **out, size_t *n)
{
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    for (size_t fi = 0; fi < m->nfunctions; fi++)
        for (uint32_t i = 0; i < m->functions[fi].ninsns; i++) {
            const st_place *p = &m->places[fi][i];
            if (p->file == UINT32_MAX)
                continue;
            for (int32_t s = (int32_t)p->scope; s > 0; s = m->scopes[s].parent) {
                scope_line *grown = array_grow(*out, *n, &cap, sizeof *grown);
                if (!grown)
                    return -1;
                *out = grown;
                (*out)[(*n)++] = (scope_line){(uint32_t)s, p->file, p->line};
                if (m->scopes[s].kind != ST_SCOPE_LOOP)
                    break;
            }
        }
    return 0;
}

/* Give each scope the file most of its lines are in and their range. */
static int assign_lines(st_module *m)
{
    scope_line *v;
    size_t n;
    if (collect_lines(m, &v, &n) != 0) {
        free(v);
        return -1;
    }
    if (n > 1) /* no lines: no array */
        qsort(v, n, sizeof *v, by_scope_file);
    for (size_t i = 0; i < n;) {
        size_t best = i, best_count = 0, j = i;
        while (j < n && v[j].scope == v[i].scope) { /* one run per file */
            size_t k = j;
            while (k < n && v[k].scope == v[j].scope && v[k].file == v[j].file)
                k++;
            if (k - j > best_count)
                best = j, best_count = k - j;
            j = k;
        }
        st_scope *s = &m->scopes[v[i].scope];
        free(s->file);
        s->file = strdup(m->files[v[best].file]);
        s->first_line = v[best].line;
        s->last_line = v[best + best_count - 1].line;
        if (!s->file) {
            free(v);
            return -1;
        }
        i = j;
    }
    free(v);
    return 0;
}

/* ---- folding ------------------------------------------------------------- */

static int overlap(const st_scope *a, const st_scope *b)
{
    return a->file && b->file && !strcmp(a->file, b->file) && a->first_line && b->first_line &&
           a->first_line <= b->last_line && b->first_line <= a->last_line;
}

/* The scope that `s` was folded into, following chains of folds. */
static uint32_t survivor(const uint32_t *alias, uint32_t s)
{
    while (alias[s] != s)
        s = alias[s];
    return s;
}

/* Fold loop `from` into its sibling `into` (into < from). */
static void merge_into(st_module *m, uint32_t into, uint32_t from, uint32_t *alias)
{
    st_scope *a = &m->scopes[into], *b = &m->scopes[from];
    if (b->first_line < a->first_line)
        a->first_line = b->first_line;
    if (b->last_line > a->last_line)
        a->last_line = b->last_line;
    a->nfolded += b->nfolded;
    alias[from] = into;
}

static int by_parent(const void *x, const void *y, void *ctx)
{
    const uint32_t *a = x, *b = y, *parent = ctx;
    if (parent[*a] != parent[*b])
        return parent[*a] < parent[*b] ? -1 : 1;
    return (*a > *b) - (*a < *b);
}

/* One pass over the loops grouped by (surviving) parent; returns whether
 * anything was folded.  `order` and `parent` are scratch. */
static int fold_pass(st_module *m, uint32_t *alias, uint32_t *order, uint32_t *parent)
{
    size_t n = 0;
    for (size_t s = 1; s < m->nscopes; s++)
        if (alias[s] == s && m->scopes[s].kind == ST_SCOPE_LOOP) {
            parent[s] = survivor(alias, (uint32_t)m->scopes[s].parent);
            order[n++] = (uint32_t)s;
        }
    qsort_r(order, n, sizeof *order, by_parent, parent);
    int changed = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && parent[order[j]] == parent[order[i]])
            j++;
        for (size_t x = i; x < j; x++)
            for (size_t y = x + 1; y < j; y++)
                if (alias[order[x]] == order[x] && alias[order[y]] == order[y] &&
                    overlap(&m->scopes[order[x]], &m->scopes[order[y]])) {
                    merge_into(m, order[x], order[y], alias);
                    changed = 1;
                }
        i = j;
    }
    return changed;
}

/* Fold sibling loops with overlapping line ranges, repeating until no two
 * overlap (a union can reach a third loop, and the children of folded
 * loops become siblings). */
static int fold_loops(st_module *m, uint32_t *alias)
{
    uint32_t *order = malloc(m->nscopes * sizeof *order), *parent = malloc(m->nscopes * sizeof *parent);
    if (!order || !parent) {
        free(order), free(parent);
        return -1;
    }
    for (size_t s = 0; s < m->nscopes; s++)
        alias[s] = (uint32_t)s;
    while (fold_pass(m, alias, order, parent))
        ;
    free(order), free(parent);
    return 0;
}

/* Drop folded scopes and renumber everything that refers to scopes; the
 * order, parents before children, is kept. */
static int compact_scopes(st_module *m, uint32_t *alias)
{
    uint32_t *newid = malloc(m->nscopes * sizeof *newid), n = 0;
    if (!newid)
        return -1;
    for (size_t s = 0; s < m->nscopes; s++) {
        if (alias[s] != s) {
            free(m->scopes[s].name), free(m->scopes[s].file), free(m->scopes[s].call_file);
            continue;
        }
        newid[s] = n;
        m->scopes[n++] = m->scopes[s];
    }
    for (size_t s = 0; s < m->nscopes; s++)
        newid[s] = newid[survivor(alias, (uint32_t)s)];
    for (uint32_t s = 1; s < n; s++)
        m->scopes[s].parent = (int32_t)newid[m->scopes[s].parent];
    for (size_t fi = 0; fi < m->nfunctions; fi++) {
        for (uint32_t i = 0; i < m->functions[fi].ninsns; i++)
            m->places[fi][i].scope = newid[m->places[fi][i].scope];
        for (uint32_t l = 0; l < m->functions[fi].nloops; l++)
            m->loop_scopes[fi][l] = newid[m->loop_scopes[fi][l]];
    }
    m->nscopes = n;
    free(newid);
    return 0;
}

/* The line of the back edge of loop scope sc in its own file: the line of
 * the last instruction of the block the (first) back edge leaves, where
 * compilers put a DO or for statement's increment and test; 0 when that
 * instruction has no line in sc's file. */
static uint32_t latch_line(const st_module *m, const st_scope *sc)
{
    const st_function *f = &m->functions[sc->function];
    const st_loop *lp = &f->loops[sc->loop];
    if (lp->nback == 0)
        return 0;
    const st_block *b = &f->blocks[f->edges[lp->back[0]].from];
    const st_place *p = &m->places[sc->function][b->first + b->n - 1];
    return p->file != UINT32_MAX && strcmp(m->files[p->file], sc->file) == 0 ? p->line : 0;
}

/* The line loop scope sc is named after: its first line, unless its parent
 * is a loop of the same file and first line (gfortran puts an inner DO's
 * setup on the outer DO's line: `do j` and `do k` would both be "loop at
 * mm.f90:14"); then its back edge's line, when that lies later within its
 * lines (the `do k` statement's increment, line 15). */
static uint32_t loop_line(const st_module *m, const st_scope *sc)
{
    const st_scope *up = sc->parent >= 0 ? &m->scopes[sc->parent] : NULL;
    if (!up || up->kind != ST_SCOPE_LOOP || !up->file || strcmp(up->file, sc->file) != 0 ||
        up->first_line != sc->first_line || sc->loop < 0)
        return sc->first_line;
    uint32_t l = latch_line(m, sc);
    return l > sc->first_line && l <= sc->last_line ? l : sc->first_line;
}

/* Loops are named after their line (loop_line) once lines are known. */
static int name_loops(st_module *m)
{
    for (size_t s = 1; s < m->nscopes; s++) {
        st_scope *sc = &m->scopes[s];
        if (sc->kind != ST_SCOPE_LOOP || !sc->file)
            continue;
        const char *base = strrchr(sc->file, '/');
        char buf[512];
        snprintf(buf, sizeof buf, "loop at %s:%u", base ? base + 1 : sc->file, loop_line(m, sc));
        free(sc->name);
        if (!(sc->name = strdup(buf)))
            return -1;
    }
    return 0;
}

/* ---- the module ---------------------------------------------------------- */

static int copy_files(st_module *m, const st_debug_info *di)
{
    if (!di)
        return 0;
    m->files = calloc(di->nfiles ? di->nfiles : 1, sizeof *m->files);
    if (!m->files)
        return -1;
    for (size_t i = 0; i < di->nfiles; i++)
        if (!(m->files[m->nfiles++] = strdup(di->files[i])))
            return -1;
    return 0;
}

static int by_range_low(const void *x, const void *y)
{
    const uint64_t *a = x, *b = y;
    return (a[0] > b[0]) - (a[0] < b[0]);
}

static int index_inline_ranges(builder *b)
{
    size_t n = 0;
    for (size_t i = 0; b->di && i < b->di->ninlines; i++)
        n += b->di->inlines[i].nranges;
    b->inl_ranges = malloc((n ? n : 1) * sizeof *b->inl_ranges);
    if (!b->inl_ranges)
        return -1;
    for (size_t i = 0; b->di && i < b->di->ninlines; i++)
        for (uint32_t r = 0; r < b->di->inlines[i].nranges; r++) {
            uint64_t *e = b->inl_ranges[b->ninl_ranges++];
            e[0] = b->di->inlines[i].ranges[r][0];
            e[1] = b->di->inlines[i].ranges[r][1];
            e[2] = i;
        }
    qsort(b->inl_ranges, b->ninl_ranges, sizeof *b->inl_ranges, by_range_low);
    return 0;
}

int st_build_scopes(st_module *m, const st_debug_info *di, char *err, size_t errlen)
{
    builder b = {.m = m, .di = di};
    const char *base = strrchr(m->path, '/');
    m->places = calloc(m->nfunctions ? m->nfunctions : 1, sizeof *m->places);
    m->loop_scopes = calloc(m->nfunctions ? m->nfunctions : 1, sizeof *m->loop_scopes);
    int rc = m->places && m->loop_scopes ? 0 : -1;
    if (rc == 0)
        rc = copy_files(m, di) || index_inline_ranges(&b) || add_scope(&b, ST_SCOPE_MODULE, -1, base ? base + 1 : m->path, 0) < 0;
    for (size_t fi = 0; fi < m->nfunctions && rc == 0; fi++)
        rc = function_scopes(&b, (uint32_t)fi);
    if (rc == 0)
        rc = assign_lines(m);
    uint32_t *alias = rc == 0 ? malloc(m->nscopes * sizeof *alias) : NULL;
    if (rc == 0)
        rc = !alias || fold_loops(m, alias) || compact_scopes(m, alias) || name_loops(m) ? -1 : 0;
    free(alias);
    free(b.depth), free(b.spans), free(b.cands), free(b.inl_ranges);
    if (rc != 0)
        snprintf(err, errlen, "%s: out of memory while building the scope tree", m->path);
    return rc;
}

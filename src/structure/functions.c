/* functions.c — finds the functions of an ELF image and decodes each by a
 * linear sweep.  Function boundaries come from symbols; a stripped file
 * adds its entry point and the targets of direct calls, found by a first
 * sweep over all executable code.  Code no symbol covers (PLT stubs,
 * stripped code) becomes functions too, so that every instruction a
 * profile can name is in the inventory. */
#include "structure/structure.h"
#include "util/array.h"

#include <Zydis/Mnemonic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing array of function starts with optional names and sizes. */
typedef struct start_list {
    size_t n, cap;
    st_symbol *v; /* names are borrowed, not owned */
} start_list;

static int add_start(start_list *l, const char *name, uint64_t addr, uint64_t size)
{
    st_symbol *grown = array_grow(l->v, l->n, &l->cap, sizeof *grown);
    if (!grown)
        return -1;
    l->v = grown;
    l->v[l->n++] = (st_symbol){.name = (char *)name, .addr = addr, .size = size};
    return 0;
}

static int by_addr(const void *a, const void *b)
{
    const st_symbol *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return (y->name != NULL) - (x->name != NULL); /* named first */
}

/* Sort and keep one start per address, preferring a named one. */
static void unique_starts(start_list *l)
{
    qsort(l->v, l->n, sizeof *l->v, by_addr);
    size_t kept = 0;
    for (size_t i = 0; i < l->n; i++)
        if (kept == 0 || l->v[kept - 1].addr != l->v[i].addr)
            l->v[kept++] = l->v[i];
    l->n = kept;
}

/* Stripped files: the targets of direct calls start functions. */
static int add_call_targets(const st_image *img, start_list *l)
{
    for (size_t s = 0; s < img->nexec; s++) {
        const st_section *sec = &img->exec[s];
        for (uint64_t off = 0; off < sec->size;) {
            st_insn in;
            size_t len = st_decode_one(sec->bytes + off, sec->size - off, sec->addr + off, &in);
            off += len ? len : 1;
            if (len && in.flow == ST_FLOW_CALL && in.target != sec->addr + off && add_start(l, NULL, in.target, 0))
                return -1;
        }
    }
    return 0;
}

static int is_padding(const st_insn *in)
{
    return in->mnemonic == ZYDIS_MNEMONIC_NOP || in->mnemonic == ZYDIS_MNEMONIC_INT3;
}

/* Decode [start, end) of section `sec` into f->insns.  Leading padding is
 * skipped when `skip_padding`; f->start moves to the first instruction. */
static int decode_range(const st_section *sec, uint64_t start, uint64_t end, int skip_padding, st_function *f,
                        uint64_t *invalid)
{
    size_t cap = 0;
    for (uint64_t a = start; a < end;) {
        const uint8_t *p = sec->bytes + (a - sec->addr);
        st_insn in;
        size_t len = st_decode_one(p, end - a, a, &in);
        if (len == 0) {
            ++*invalid;
            a++;
            continue;
        }
        a += len;
        if (skip_padding && f->ninsns == 0 && is_padding(&in))
            continue;
        st_insn *grown = array_grow(f->insns, f->ninsns, &cap, sizeof *grown);
        if (!grown)
            return -1;
        f->insns = grown;
        f->insns[f->ninsns++] = in;
    }
    if (f->ninsns > 0) {
        f->start = f->insns[0].addr;
        f->size = end - f->start;
    }
    return 0;
}

/* Grow *fs by one zeroed function. */
static st_function *new_function(st_function **fs, size_t *n, size_t *cap)
{
    st_function *grown = array_grow(*fs, *n, cap, sizeof *grown);
    if (!grown)
        return NULL;
    *fs = grown;
    memset(&(*fs)[*n], 0, sizeof **fs);
    return &(*fs)[(*n)++];
}

static char *synthetic_name(const st_section *sec, uint64_t addr)
{
    char buf[96];
    if (addr == sec->addr && strcmp(sec->name, ".text") != 0)
        snprintf(buf, sizeof buf, "[%s]", sec->name);
    else
        snprintf(buf, sizeof buf, "fn_%llx", (unsigned long long)addr);
    return strdup(buf);
}

/* Add the function [start, end) named `name` (NULL: synthetic).  Ranges
 * without code (all padding or invalid) add nothing. */
static int add_function(const st_section *sec, const char *name, uint64_t start, uint64_t end, st_function **fs,
                        size_t *n, size_t *cap, uint64_t *invalid)
{
    st_function *f = new_function(fs, n, cap);
    if (!f)
        return -1;
    if (decode_range(sec, start, end, name == NULL, f, invalid) != 0)
        return -1;
    if (f->ninsns == 0) {
        free(f->insns);
        --*n;
        return 0;
    }
    f->name = name ? strdup(name) : synthetic_name(sec, f->start);
    return f->name ? 0 : -1;
}

/* Functions of one section from the sorted starts: each ends at its size,
 * the next start or the section's end; gaps become synthetic functions. */
static int section_functions(const st_section *sec, const start_list *l, st_function **fs, size_t *n, size_t *cap,
                             uint64_t *invalid)
{
    uint64_t sec_end = sec->addr + sec->size, covered = sec->addr;
    for (size_t i = 0; i < l->n; i++) {
        const st_symbol *s = &l->v[i];
        if (s->addr < sec->addr || s->addr >= sec_end)
            continue;
        /* starts are unique and ascending: the next one ends this function */
        uint64_t next = i + 1 < l->n && l->v[i + 1].addr < sec_end ? l->v[i + 1].addr : sec_end;
        if (s->addr < covered) /* inside the previous function's size */
            continue;
        if (s->addr > covered && add_function(sec, NULL, covered, s->addr, fs, n, cap, invalid) != 0)
            return -1;
        uint64_t end = s->size && s->addr + s->size < next ? s->addr + s->size : next;
        if (add_function(sec, s->name, s->addr, end, fs, n, cap, invalid) != 0)
            return -1;
        covered = end;
    }
    if (covered < sec_end && add_function(sec, NULL, covered, sec_end, fs, n, cap, invalid) != 0)
        return -1;
    return 0;
}

int st_find_functions(const st_image *img, st_function **out, size_t *n, uint64_t *invalid, char *err, size_t errlen)
{
    start_list l = {0};
    st_function *fs = NULL;
    size_t nf = 0, cap = 0;
    int rc = 0;
    *invalid = 0;
    for (size_t i = 0; i < img->nsymbols && rc == 0; i++)
        rc = add_start(&l, img->symbols[i].name, img->symbols[i].addr, img->symbols[i].size);
    if (rc == 0 && !img->has_symtab) {
        if (img->entry)
            rc = add_start(&l, "_start", img->entry, 0);
        if (rc == 0)
            rc = add_call_targets(img, &l);
    }
    if (rc == 0)
        unique_starts(&l);
    for (size_t s = 0; s < img->nexec && rc == 0; s++)
        rc = section_functions(&img->exec[s], &l, &fs, &nf, &cap, invalid);
    free(l.v);
    if (rc != 0) {
        for (size_t i = 0; i < nf; i++)
            st_function_free(&fs[i]);
        free(fs);
        snprintf(err, errlen, "%s: out of memory while decoding", img->path);
        return -1;
    }
    *out = fs;
    *n = nf;
    return 0;
}

uint32_t st_insn_lower_bound(const st_function *f, uint64_t addr)
{
    uint32_t lo = 0, hi = f->ninsns;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (f->insns[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int st_module_function_at(const st_module *m, uint64_t addr, size_t *fi)
{
    size_t lo = 0, hi = m->nfunctions;
    while (lo < hi) { /* the first function starting after addr */
        size_t mid = lo + (hi - lo) / 2;
        if (m->functions[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || addr >= m->functions[lo - 1].start + m->functions[lo - 1].size)
        return -1;
    *fi = lo - 1;
    return 0;
}

int st_module_find_insn(const st_module *m, uint64_t addr, size_t *fi, uint32_t *ii)
{
    if (st_module_function_at(m, addr, fi) != 0)
        return -1;
    const st_function *f = &m->functions[*fi];
    uint32_t i = st_insn_lower_bound(f, addr);
    if (i == f->ninsns || f->insns[i].addr != addr)
        return -1;
    *ii = i;
    return 0;
}

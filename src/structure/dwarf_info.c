/* dwarf_info.c — reads what the scope tree needs from DWARF with elfutils:
 * the line table (address -> file, line) and the inlined subroutines
 * (name, address ranges, call site, nesting).
 *
 * libdwfl finds the DWARF in the file or in separate debug info installed
 * by a -dbgsym package (/usr/lib/debug/.build-id/xx/...debug) or named by
 * .gnu_debuglink.  libdwfl places an offline module at its own load
 * address plus a bias; addresses are returned as the file's link-time
 * addresses, the ones profiles store. */
#include "structure/structure.h"
#include "structure/dwfl_offline.h"
#include "util/array.h"
#include "util/srcpath.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reading state: the result being built plus a hash index of file names. */
typedef struct dwarf_reader {
    st_debug_info *di;
    size_t rows_cap, inlines_cap, files_cap, units_cap;
    uint32_t *file_slots; /* open addressing: file index + 1, 0 empty */
    size_t nslots;
    Dwarf_Addr bias;      /* link-time address = DWARF address + bias */
    const char *comp_dir; /* the current unit's DW_AT_comp_dir, or NULL */
    int oom;
} dwarf_reader;

static uint64_t hash_string(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int grow_slots(dwarf_reader *r)
{
    size_t n = r->nslots ? 2 * r->nslots : 256;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < r->di->nfiles; i++) {
        size_t k = hash_string(r->di->files[i]) & (n - 1);
        while (slots[k])
            k = (k + 1) & (n - 1);
        slots[k] = (uint32_t)i + 1;
    }
    free(r->file_slots);
    r->file_slots = slots;
    r->nslots = n;
    return 0;
}

/* The index of file `name`, added on first sight; UINT32_MAX on OOM. */
static uint32_t intern_file(dwarf_reader *r, const char *name)
{
    st_debug_info *di = r->di;
    if (2 * (di->nfiles + 1) > r->nslots && grow_slots(r) != 0)
        return r->oom = 1, UINT32_MAX;
    size_t k = hash_string(name) & (r->nslots - 1);
    for (; r->file_slots[k]; k = (k + 1) & (r->nslots - 1))
        if (!strcmp(di->files[r->file_slots[k] - 1], name))
            return r->file_slots[k] - 1;
    char **grown = array_grow(di->files, di->nfiles, &r->files_cap, sizeof *grown);
    if (!grown)
        return r->oom = 1, UINT32_MAX;
    di->files = grown;
    if (!(di->files[di->nfiles] = strdup(name)))
        return r->oom = 1, UINT32_MAX;
    r->file_slots[k] = (uint32_t)++di->nfiles;
    return (uint32_t)di->nfiles - 1;
}

/* The index of the file libdw names `src` (dwarf_linesrc, dwarf_filesrc)
 * in the current unit, spelled as the Valgrind tools spell it (srcpath.h);
 * a path longer than any path can be keeps libdw's spelling. */
static uint32_t intern_source(dwarf_reader *r, const char *src)
{
    char path[4096];
    if (srcpath_dw(path, sizeof path, r->comp_dir, src) == (size_t)-1)
        return intern_file(r, src);
    return intern_file(r, path);
}

static void add_row(dwarf_reader *r, uint64_t addr, uint32_t file, uint32_t line, bool stmt)
{
    st_debug_info *di = r->di;
    st_line_row *grown = array_grow(di->rows, di->nrows, &r->rows_cap, sizeof *grown);
    if (!grown) {
        r->oom = 1;
        return;
    }
    di->rows = grown;
    di->rows[di->nrows++] = (st_line_row){addr, file, line, stmt};
}

/* All rows of one compilation unit's line table. */
static void read_lines(dwarf_reader *r, Dwarf_Die *cu)
{
    Dwarf_Lines *lines;
    size_t n;
    if (dwarf_getsrclines(cu, &lines, &n) != 0)
        return;
    for (size_t i = 0; i < n && !r->oom; i++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        Dwarf_Addr a;
        int lineno = 0;
        bool end = false, stmt = false;
        if (!l || dwarf_lineaddr(l, &a) != 0)
            continue;
        dwarf_lineno(l, &lineno);
        dwarf_lineendsequence(l, &end);
        dwarf_linebeginstatement(l, &stmt);
        const char *src = dwarf_linesrc(l, NULL, NULL);
        uint32_t file = src && !end ? intern_source(r, src) : 0;
        add_row(r, a + r->bias, file, end || lineno < 0 ? 0 : (uint32_t)lineno, stmt && !end);
    }
}

static const char *inline_name(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
    if (!name)
        name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
    return name ? name : "?";
}

/* Record one DW_TAG_inlined_subroutine; returns its index or -1. */
static int32_t add_inline(dwarf_reader *r, Dwarf_Die *die, Dwarf_Files *files, int32_t parent)
{
    st_debug_info *di = r->di;
    st_inline *grown = array_grow(di->inlines, di->ninlines, &r->inlines_cap, sizeof *grown);
    if (!grown)
        return r->oom = 1, -1;
    di->inlines = grown;
    st_inline *in = &di->inlines[di->ninlines];
    memset(in, 0, sizeof *in);
    in->parent = parent;
    in->call_file = UINT32_MAX;
    Dwarf_Attribute attr;
    Dwarf_Word w;
    if (files && dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &w) == 0) {
        const char *f = dwarf_filesrc(files, w, NULL, NULL);
        if (f)
            in->call_file = intern_source(r, f);
    }
    if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &w) == 0)
        in->call_line = (uint32_t)w;
    Dwarf_Addr base, lo, hi;
    size_t cap = 0;
    for (ptrdiff_t off = 0; (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0;) {
        uint64_t(*ranges)[2] = array_grow(in->ranges, in->nranges, &cap, sizeof *ranges);
        if (!ranges) {
            free(in->ranges);
            return r->oom = 1, -1;
        }
        in->ranges = ranges;
        in->ranges[in->nranges][0] = lo + r->bias;
        in->ranges[in->nranges++][1] = hi + r->bias;
    }
    if (in->nranges == 0 || !(in->name = strdup(inline_name(die)))) {
        free(in->ranges);
        return -1;
    }
    return (int32_t)di->ninlines++;
}

/* Walk the children of `die`, recording inlined subroutines nested in
 * `parent` (an st_inline index or -1). */
static void walk_dies(dwarf_reader *r, Dwarf_Die *die, Dwarf_Files *files, int32_t parent)
{
    Dwarf_Die child;
    if (dwarf_child(die, &child) != 0)
        return;
    do {
        int tag = dwarf_tag(&child);
        int32_t inner = parent;
        if (tag == DW_TAG_inlined_subroutine) {
            int32_t k = add_inline(r, &child, files, parent);
            if (k >= 0)
                inner = k;
        }
        if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block ||
            tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type)
            walk_dies(r, &child, files, inner);
    } while (!r->oom && dwarf_siblingof(&child, &child) == 0);
}

/* One pass of a bottom-up merge sort by address: runs of `width` rows of
 * src merge into dst.  Equal addresses keep their order (stable). */
static void merge_pass(const st_line_row *src, st_line_row *dst, size_t n, size_t width)
{
    for (size_t lo = 0; lo < n; lo += 2 * width) {
        size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
        size_t a = lo, b = mid, k = lo;
        while (a < mid && b < hi)
            dst[k++] = src[b].addr < src[a].addr ? src[b++] : src[a++];
        while (a < mid)
            dst[k++] = src[a++];
        while (b < hi)
            dst[k++] = src[b++];
    }
}

/* Sort the rows by address, stably, and keep one row per address: the
 * first is_stmt row, else the last row (a sequence's end and the next
 * sequence's start share an address: the start wins).  Compilers add
 * non-statement rows at one address for code moved from elsewhere (GCC's
 * "view" rows); the statement row is the line the code belongs to. */
static int sort_rows(st_debug_info *di)
{
    st_line_row *tmp = malloc((di->nrows ? di->nrows : 1) * sizeof *tmp);
    if (!tmp)
        return -1;
    for (size_t width = 1; width < di->nrows; width *= 2) {
        merge_pass(di->rows, tmp, di->nrows, width);
        memcpy(di->rows, tmp, di->nrows * sizeof *tmp);
    }
    free(tmp);
    size_t kept = 0;
    for (size_t i = 0; i < di->nrows; i++) {
        if (kept > 0 && di->rows[kept - 1].addr == di->rows[i].addr) {
            if (di->rows[kept - 1].stmt)
                continue; /* the first statement row stays */
            kept--;
        }
        di->rows[kept++] = di->rows[i];
    }
    di->nrows = kept;
    return 0;
}

/* Record the unit `cu` (its file and producer) in r->di->units. */
static void add_unit(dwarf_reader *r, Dwarf_Die *cu)
{
    st_debug_info *di = r->di;
    st_unit *grown = array_grow(di->units, di->nunits, &r->units_cap, sizeof *grown);
    if (!grown) {
        r->oom = 1;
        return;
    }
    di->units = grown;
    Dwarf_Attribute attr;
    const char *name = dwarf_formstring(dwarf_attr(cu, DW_AT_name, &attr));
    const char *producer = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &attr));
    char path[4096];
    if (srcpath_join(path, sizeof path, r->comp_dir, name ? name : "?") == (size_t)-1)
        snprintf(path, sizeof path, "%s", name ? name : "?");
    st_unit *u = &di->units[di->nunits];
    u->file = strdup(path);
    u->producer = strdup(producer ? producer : "");
    if (!u->file || !u->producer) {
        free(u->file), free(u->producer);
        r->oom = 1;
        return;
    }
    di->nunits++;
}

/* Every compilation unit of dw: its lines and inlined subroutines too
 * unless units_only. */
static void read_units(dwarf_reader *r, Dwarf *dw, int units_only)
{
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (!r->oom && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        if (dwarf_offdie(dw, off + hsize, &cu)) {
            Dwarf_Files *files = NULL;
            size_t nfiles;
            if (units_only || dwarf_getsrcfiles(&cu, &files, &nfiles) != 0)
                files = NULL;
            Dwarf_Attribute attr;
            r->comp_dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &attr));
            add_unit(r, &cu);
            if (!units_only) {
                read_lines(r, &cu);
                walk_dies(r, &cu, files, -1);
            }
        }
        off = next;
    }
}

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

int st_dwfl_open(const char *path, st_dwfl *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->dwfl = dwfl_begin(&offline_callbacks);
    if (!s->dwfl) {
        snprintf(err, errlen, "%s: cannot start libdwfl: %s", path, dwfl_errmsg(-1));
        return -1;
    }
    s->mod = dwfl_report_offline(s->dwfl, "", path, -1);
    dwfl_report_end(s->dwfl, NULL, NULL);
    Dwarf_Addr start = 0;
    s->dw = s->mod ? dwfl_module_getdwarf(s->mod, &s->dw_bias) : NULL;
    if (!s->dw) {
        st_dwfl_close(s);
        return 1;
    }
    dwfl_module_info(s->mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
    s->link_bias = s->dw_bias - start;
    return 0;
}

void st_dwfl_close(st_dwfl *s)
{
    if (s->dwfl)
        dwfl_end(s->dwfl);
    memset(s, 0, sizeof *s);
}

int st_debug_open(const char *path, st_debug_info **out, char *err, size_t errlen)
{
    *out = NULL;
    st_dwfl s;
    int rc = st_dwfl_open(path, &s, err, errlen);
    if (rc != 0)
        return rc < 0 ? -1 : 0; /* no DWARF: degraded, not an error */
    dwarf_reader r = {.bias = s.link_bias};
    r.di = calloc(1, sizeof *r.di);
    if (r.di) {
        read_units(&r, s.dw, 0);
        if (!r.oom && sort_rows(r.di) != 0)
            r.oom = 1;
    }
    st_dwfl_close(&s);
    free(r.file_slots);
    if (!r.di || r.oom) {
        st_debug_free(r.di);
        snprintf(err, errlen, "%s: out of memory while reading its DWARF", path);
        return -1;
    }
    *out = r.di;
    return 0;
}

int st_read_units(const char *path, st_unit **out, size_t *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    st_dwfl s;
    int rc = st_dwfl_open(path, &s, err, errlen);
    if (rc != 0)
        return rc < 0 ? -1 : 0; /* no DWARF: no units */
    dwarf_reader r = {.bias = s.link_bias};
    r.di = calloc(1, sizeof *r.di);
    if (r.di)
        read_units(&r, s.dw, 1);
    st_dwfl_close(&s);
    if (!r.di || r.oom) {
        st_debug_free(r.di);
        snprintf(err, errlen, "%s: out of memory while reading its DWARF", path);
        return -1;
    }
    *out = r.di->units, *n = r.di->nunits;
    r.di->units = NULL, r.di->nunits = 0;
    st_debug_free(r.di);
    return 0;
}

void st_units_free(st_unit *u, size_t n)
{
    for (size_t i = 0; u && i < n; i++)
        free(u[i].file), free(u[i].producer);
    free(u);
}

void st_debug_free(st_debug_info *di)
{
    if (!di)
        return;
    st_units_free(di->units, di->nunits);
    for (size_t i = 0; i < di->nfiles; i++)
        free(di->files[i]);
    for (size_t i = 0; i < di->ninlines; i++) {
        free(di->inlines[i].name);
        free(di->inlines[i].ranges);
    }
    free(di->files);
    free(di->rows);
    free(di->inlines);
    free(di);
}

int st_debug_line(const st_debug_info *di, uint64_t addr, uint32_t *file, uint32_t *line)
{
    *file = 0;
    *line = 0;
    if (!di || di->nrows == 0 || addr < di->rows[0].addr)
        return 0;
    size_t lo = 0, hi = di->nrows; /* last row with row.addr <= addr */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (di->rows[mid].addr <= addr)
            lo = mid;
        else
            hi = mid;
    }
    *file = di->rows[lo].file;
    *line = di->rows[lo].line;
    return 0;
}

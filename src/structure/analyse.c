/* analyse.c — drives the stages of static analysis for one ELF file:
 * image -> functions -> per function CFG, loops and dataflow -> DWARF ->
 * scope tree, collecting what was degraded as warnings for the user. */
#include "structure/structure.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary/buildid.h"

/* Record a warning (printf-style); -1 when memory runs out. */
static int warn(st_module *m, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **grown = realloc(m->warnings, (m->nwarnings + 1) * sizeof *grown);
    if (!grown)
        return -1;
    m->warnings = grown;
    if (!(m->warnings[m->nwarnings] = strdup(buf)))
        return -1;
    m->nwarnings++;
    return 0;
}

/* CFG, loops and dataflow of every function. */
static int analyse_functions(st_module *m, const st_image *img, const st_options *opt, char *err, size_t errlen)
{
    m->dataflow = calloc(m->nfunctions ? m->nfunctions : 1, sizeof *m->dataflow);
    if (!m->dataflow) {
        snprintf(err, errlen, "%s: out of memory", m->path);
        return -1;
    }
    for (size_t i = 0; i < m->nfunctions; i++) {
        st_function *f = &m->functions[i];
        if (st_build_cfg(f, img, opt ? opt->extra : NULL, opt ? opt->nextra : 0, err, errlen) != 0 ||
            st_find_loops(f, err, errlen) != 0 || st_dataflow_compute(f, &m->dataflow[i], err, errlen) != 0)
            return -1;
        if (opt && opt->progress && (i % ST_PROGRESS_EVERY == ST_PROGRESS_EVERY - 1 || i + 1 == m->nfunctions))
            opt->progress(opt->progress_ctx, i + 1, m->nfunctions);
    }
    return 0;
}

/* Warnings for what the analysis could not do. */
static int summarise(st_module *m, uint64_t invalid)
{
    uint64_t unresolved = 0, irreducible = 0;
    for (size_t i = 0; i < m->nfunctions; i++) {
        unresolved += m->functions[i].nunresolved;
        irreducible += m->functions[i].nirreducible;
    }
    int rc = 0;
    if (m->flags & ST_NO_SYMBOLS)
        rc |= warn(m, "stripped (no .symtab): function names come from .dynsym; other functions are named "
                      "fn_<address> after the entry point and direct call targets");
    if (m->flags & ST_NO_DWARF)
        rc |= warn(m, "no DWARF line information: scopes have no files or lines, loops are named by address "
                      "(build with -g, or install the package's -dbgsym)");
    if (invalid)
        rc |= warn(m, "%llu bytes of executable sections did not decode and were skipped",
                   (unsigned long long)invalid);
    if (unresolved)
        rc |= warn(m, "%llu indirect jumps have no known targets (not jump tables; profiles add the targets "
                      "they saw)", (unsigned long long)unresolved);
    if (irreducible)
        rc |= warn(m, "%llu retreating edges enter cycles with several entries (irreducible); those cycles "
                      "are not reported as loops", (unsigned long long)irreducible);
    return rc;
}

int st_analyse(const char *path, const st_options *opt, st_module **out, char *err, size_t errlen)
{
    *out = NULL;
    st_module *m = calloc(1, sizeof *m);
    if (!m || !(m->path = strdup(path))) {
        free(m);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    st_image *img = NULL;
    st_debug_info *di = NULL;
    uint64_t invalid = 0;
    int rc = st_image_open(path, &img, err, errlen);
    if (rc == 0) {
        elf_build_id(path, m->build_id, sizeof m->build_id);
        m->flags |= img->has_symtab ? 0 : ST_NO_SYMBOLS;
        for (size_t i = 0; i < img->nexec; i++)
            m->text_bytes += img->exec[i].size;
        rc = st_find_functions(img, &m->functions, &m->nfunctions, &invalid, err, errlen);
    }
    if (rc == 0)
        rc = analyse_functions(m, img, opt, err, errlen);
    if (rc == 0)
        rc = st_debug_open(path, &di, err, errlen);
    if (rc == 0) {
        m->flags |= di && di->nrows ? 0 : ST_NO_DWARF;
        rc = st_build_scopes(m, di, err, errlen);
    }
    if (rc == 0 && di) { /* the units move to the module */
        m->units = di->units, m->nunits = di->nunits;
        di->units = NULL, di->nunits = 0;
    }
    if (rc == 0 && summarise(m, invalid) != 0) {
        snprintf(err, errlen, "%s: out of memory", path);
        rc = -1;
    }
    st_debug_free(di);
    st_image_close(img);
    if (rc != 0) {
        st_module_free(m);
        return -1;
    }
    *out = m;
    return 0;
}

void st_function_free(st_function *f)
{
    for (uint32_t l = 0; l < f->nloops; l++) {
        free(f->loops[l].blocks);
        free(f->loops[l].back);
    }
    free(f->name);
    free(f->insns);
    free(f->blocks);
    free(f->edges);
    free(f->loops);
}

void st_module_free(st_module *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nfunctions; i++) {
        st_function_free(&m->functions[i]);
        if (m->dataflow)
            st_dataflow_free(&m->dataflow[i]);
        if (m->places)
            free(m->places[i]);
        if (m->loop_scopes)
            free(m->loop_scopes[i]);
    }
    for (size_t i = 0; i < m->nscopes; i++) {
        free(m->scopes[i].name);
        free(m->scopes[i].file);
        free(m->scopes[i].call_file);
    }
    for (size_t i = 0; i < m->nfiles; i++)
        free(m->files[i]);
    for (size_t i = 0; i < m->nwarnings; i++)
        free(m->warnings[i]);
    st_units_free(m->units, m->nunits);
    free(m->functions), free(m->dataflow), free(m->places), free(m->loop_scopes);
    free(m->scopes), free(m->files), free(m->warnings), free(m->path);
    free(m);
}

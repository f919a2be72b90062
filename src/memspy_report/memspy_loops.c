/* memspy_loops.c — the loops that contain each code location of a memspy
 * raw file, from augur's structure analysis (src/structure: the same scope
 * tree `augur structure` and `augur report --scopes` show).  The program's
 * own modules (any not installed under /usr/lib or /lib) are analysed when
 * they made references at all; system libraries only when they carry at
 * least MIN_SHARE of them: the C library's analysis costs seconds and its
 * loops rarely matter, while a short run's program, below 1% next to the
 * dynamic loader, still wants its loops and its variables' names. */
#include <stdlib.h>
#include <string.h>

#include "memspy_report/memspy_loops.h"
#include "structure/structure.h"

#define MIN_SHARE 0.01

/* Is the module at `path` a system library (st_is_system_file's folders,
 * or /lib and /lib64 where /usr is not merged)? */
static int system_module(const char *path)
{
    return st_is_system_file(path) || !strncmp(path, "/lib/", 5) || !strncmp(path, "/lib64/", 7);
}

/* The references each module's code locations made. */
static uint64_t *module_refs(const memspy_raw *r)
{
    uint64_t *refs = calloc((size_t)r->nmodules + 1, sizeof *refs);
    for (size_t i = 0; refs && i < r->npairs; i++) {
        int32_t m = r->codes[r->pairs[i].code].module;
        if (m >= 0)
            refs[m] += r->pairs[i].refs;
    }
    return refs;
}

int mr_loops_load(mr_loops *l, const memspy_raw *r, FILE *warn)
{
    memset(l, 0, sizeof *l);
    l->raw = r;
    l->mods = calloc((size_t)r->nmodules + 1, sizeof *l->mods);
    uint64_t *refs = module_refs(r), all = 0;
    if (!l->mods || !refs) {
        free(refs);
        return -1;
    }
    for (int m = 0; m < r->nmodules; m++)
        all += refs[m];
    for (int m = 0; m < r->nmodules; m++) {
        if (refs[m] == 0 || ((double)refs[m] < MIN_SHARE * (double)all && system_module(r->module_paths[m])))
            continue;
        char err[1024];
        st_options opt = {0};
        if (st_analyse(r->module_paths[m], &opt, &l->mods[m], err, sizeof err) != 0) {
            l->mods[m] = NULL;
            if (warn)
                fprintf(warn, "augur memspy: no loops for %s: %s\n", r->module_paths[m], err);
        }
    }
    free(refs);
    return 0;
}

size_t mr_loops_names(void *ctx, size_t code, const char **names, size_t max)
{
    const mr_loops *l = ctx;
    const mr_loc *c = &l->raw->codes[code];
    const st_module *m = c->module >= 0 ? l->mods[c->module] : NULL;
    size_t fi, n = 0;
    uint32_t i;
    if (!m || st_module_find_insn(m, c->addr, &fi, &i) != 0)
        return 0;
    for (int64_t s = m->places[fi][i].scope; s >= 0 && n < max; s = m->scopes[s].parent)
        if (m->scopes[s].kind == ST_SCOPE_LOOP)
            names[n++] = m->scopes[s].name;
    return n;
}

void mr_loops_free(mr_loops *l)
{
    for (int m = 0; l->mods && l->raw && m < l->raw->nmodules; m++)
        if (l->mods[m])
            st_module_free(l->mods[m]);
    free(l->mods);
    memset(l, 0, sizeof *l);
}

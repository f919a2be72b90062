/* memspy_varnames.c — heap objects named by the variable that receives
 * their allocation, as MemSpy named its data bins (seed 001, section 10
 * item 10: "short name: the receiving variable from DWARF, else
 * func:line").  The tool names a heap object by its allocation site
 * (FN:LINE, the caller of malloc); here, for sites in the modules
 * memspy_loops.c analysed, st_call_receiver finds the variable the call's
 * result goes to, and that becomes the name; names still shared are then
 * made unique (memspy_names.c).  Before that, site names are put in the
 * user's terms: the user's line for an allocation inside inlined
 * system-header code, MODULE+0xOFF for one in code of no symbol. */
#include <stdlib.h>
#include <string.h>

#include "memspy_report/memspy_loops.h"
#include "structure/structure.h"

/* Each module's DWARF, opened on first use. */
typedef struct module_vars {
    st_vars *vars; /* NULL: not opened, or without DWARF */
    int tried;
} module_vars;

/* The DWARF of module m for st_call_receiver, opened on first use; NULL
 * when m was not analysed or has no readable DWARF (its objects then keep
 * their site names). */
static const st_vars *vars_of(const mr_loops *l, const memspy_raw *r, int32_t m, module_vars *mv)
{
    if (m < 0 || !l->mods[m])
        return NULL;
    module_vars *v = &mv[m];
    if (!v->tried) {
        char err[256];
        v->tried = 1;
        if (st_vars_open(r->module_paths[m], &v->vars, err, sizeof err) != 0)
            v->vars = NULL;
    }
    return v->vars;
}

/* Is frame s in a system header's code (st_is_system_file)? */
static int system_frame(const memspy_raw *r, const mr_loc *s)
{
    return s->file >= 0 && st_is_system_file(r->files[s->file]);
}

/* The frame of heap object o that the user's code made: the innermost
 * one, unless it is system-header code (a libstdc++ allocator not
 * inlined, at -O0), then the first caller in a file of known, non-system
 * source; the innermost when there is none. */
static uint32_t user_frame(const memspy_raw *r, const mr_obj *o)
{
    const mr_loc *s = &r->sites[o->first_site];
    if (!system_frame(r, &s[0]))
        return 0;
    for (uint32_t d = 1; d < o->nsites; d++)
        if (s[d].file >= 0 && !system_frame(r, &s[d]))
            return d;
    return 0;
}

/* The receiving variable of heap object o (malloc'd) at its user frame,
 * or NULL. */
static char *receiver_of(const mr_loops *l, const memspy_raw *r, const mr_obj *o, module_vars *mv)
{
    if (o->kind != MR_HEAP || o->nsites == 0)
        return NULL;
    const mr_loc *site = &r->sites[o->first_site + user_frame(r, o)];
    const st_vars *v = vars_of(l, r, site->module, mv);
    char name[256];
    if (!v || !st_call_receiver(v, l->mods[site->module], site->addr, name, sizeof name))
        return NULL;
    return strdup(name);
}

/* The index of `path` in r->files, added when absent; -1 when memory runs out. */
static int32_t file_index(memspy_raw *r, const char *path)
{
    for (int i = 0; i < r->nfiles; i++)
        if (strcmp(r->files[i], path) == 0)
            return i;
    char **files = realloc(r->files, (size_t)(r->nfiles + 1) * sizeof *files);
    if (!files)
        return -1;
    r->files = files;
    if (!(files[r->nfiles] = strdup(path)))
        return -1;
    return r->nfiles++;
}

/* Give heap object o its site name from the user's view: an allocation in
 * system-header code inlined into the user's (std::vector's allocator)
 * moves its innermost frame to the user's line that led there, and is
 * named FN:LINE by it; one in system-header code not inlined is named by
 * its user frame; one in code of no symbol (a stripped binary) is named
 * MODULE+0xOFF (mr_frame_name).  -1 when memory runs out. */
static int user_site(const mr_loops *l, memspy_raw *r, mr_obj *o, module_vars *mv)
{
    if (o->kind != MR_HEAP || o->nsites == 0)
        return 0;
    mr_loc *site = &r->sites[o->first_site];
    const st_vars *v = vars_of(l, r, site->module, mv);
    char file[1024], name[1280];
    uint32_t line;
    if (v && st_call_user_line(v, site->addr, file, sizeof file, &line)) {
        int32_t f = file_index(r, file);
        if (f < 0)
            return -1;
        site->file = f;
        site->line = line;
    } else if (site->fn >= 0 && user_frame(r, o) == 0) {
        return 0;
    }
    mr_frame_name(r, &r->sites[o->first_site + user_frame(r, o)], name, sizeof name);
    return mr_obj_rename(o, name);
}

/* Does any object other than `self` have the name `name`, or would it
 * have after renaming (names[j] when set)? */
static int name_taken(const memspy_raw *r, char **names, size_t self, const char *name)
{
    for (size_t j = 0; j < r->nobjs; j++)
        if (j != self && strcmp(names[j] ? names[j] : r->objs[j].name, name) == 0)
            return 1;
    return 0;
}

/* "VAR", or "VAR (SITE)" when another object has the same name. */
static int rename_object(memspy_raw *r, char **names, size_t i)
{
    char *site = r->objs[i].name, *name = names[i];
    if (name_taken(r, names, i, name)) {
        size_t n = strlen(name) + strlen(site) + 4;
        char *both = malloc(n);
        if (!both)
            return -1;
        snprintf(both, n, "%s (%s)", name, site);
        name = both;
    } else {
        names[i] = NULL; /* now owned by the object */
    }
    r->objs[i].name = name;
    free(site);
    return 0;
}

int mr_loops_name_heap(const mr_loops *l, memspy_raw *r)
{
    module_vars *vars = calloc((size_t)r->nmodules + 1, sizeof *vars);
    char **names = calloc(r->nobjs + 1, sizeof *names);
    int rc = vars && names ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < r->nobjs; i++)
        rc = user_site(l, r, &r->objs[i], vars);
    for (size_t i = 0; rc == 0 && i < r->nobjs; i++)
        names[i] = receiver_of(l, r, &r->objs[i], vars);
    for (size_t i = 0; rc == 0 && i < r->nobjs; i++)
        if (names[i] && rename_object(r, names, i) != 0)
            rc = -1;
    for (size_t i = 0; names && i < r->nobjs; i++)
        free(names[i]);
    for (int m = 0; vars && m < r->nmodules; m++)
        st_vars_free(vars[m].vars);
    free(names);
    free(vars);
    return rc == 0 ? mr_unique_names(r) : rc;
}

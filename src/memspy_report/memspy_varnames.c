/* memspy_varnames.c — heap objects named by the variable that receives
 * their allocation, as MemSpy named its data bins (seed 001, section 10
 * item 10: "short name: the receiving variable from DWARF, else
 * func:line").  The tool names a heap object by its allocation site
 * (FN:LINE, the caller of malloc); here, for sites in the modules
 * memspy_loops.c analysed, st_call_receiver finds the variable the call's
 * result goes to, and that becomes the name; names still shared are then
 * made unique (memspy_names.c). */
#include <stdlib.h>
#include <string.h>

#include "memspy_report/memspy_loops.h"
#include "structure/structure.h"

/* Each module's DWARF, opened on first use. */
typedef struct module_vars {
    st_vars *vars; /* NULL: not opened, or without DWARF */
    int tried;
} module_vars;

/* The receiving variable of heap object o (malloc'd), or NULL. */
static char *receiver_of(const mr_loops *l, const memspy_raw *r, const mr_obj *o, module_vars *mv)
{
    if (o->kind != MR_HEAP || o->nsites == 0)
        return NULL;
    const mr_loc *site = &r->sites[o->first_site];
    if (site->module < 0 || !l->mods[site->module])
        return NULL;
    module_vars *v = &mv[site->module];
    if (!v->tried) {
        char err[256]; /* a module whose DWARF cannot be read keeps site names */
        v->tried = 1;
        if (st_vars_open(r->module_paths[site->module], &v->vars, err, sizeof err) != 0)
            v->vars = NULL;
    }
    char name[256];
    if (!st_call_receiver(v->vars, l->mods[site->module], site->addr, name, sizeof name))
        return NULL;
    return strdup(name);
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

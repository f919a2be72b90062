/* memspy_globals.c — Fortran globals named as a Fortran programmer writes
 * them (docs/memspy.md, "Data objects and how they are named").  The tool
 * names a global by its data symbol: gfortran's module variable w of
 * module state is "__state_MOD_w", named "state::w" here as gdb does and
 * as augur names module procedures (util/fortran_name.h); COMMON /fields/
 * is "fields_", named "/fields/" when the DWARF of an analysed module
 * describes that symbol as a COMMON block (st_fortran_commons), since a C
 * global may end in '_' too. */
#include <string.h>

#include "memspy_report/memspy_loops.h"
#include "structure/structure.h"
#include "util/fortran_name.h"

/* Could `sym` be gfortran's symbol of a COMMON block ("fields_", "__BLNK__")? */
static int common_candidate(const char *sym)
{
    size_t n = strlen(sym);
    return strcmp(sym, "__BLNK__") == 0 || (n > 1 && sym[n - 1] == '_');
}

/* An st_common_fn: rename the globals of raw file ctx whose symbol is
 * `symbol` (once renamed, a later declaration of the block matches none). */
static int rename_common(void *ctx, const char *symbol, const char *name)
{
    memspy_raw *r = ctx;
    for (size_t i = 0; i < r->nobjs; i++)
        if (r->objs[i].kind == MR_GLOBAL && strcmp(r->objs[i].name, symbol) == 0 &&
            mr_obj_rename(&r->objs[i], name) != 0)
            return -1;
    return 0;
}

int mr_loops_name_globals(const mr_loops *l, memspy_raw *r)
{
    int commons = 0; /* any global left that may be a COMMON block */
    for (size_t i = 0; i < r->nobjs; i++) {
        mr_obj *o = &r->objs[i];
        char name[512];
        if (o->kind != MR_GLOBAL)
            continue;
        if (fortran_name(name, sizeof name, o->name)) {
            if (mr_obj_rename(o, name) != 0)
                return -1;
        } else {
            commons |= common_candidate(o->name);
        }
    }
    /* The DWARF of each analysed module is read once, only when needed. */
    for (int m = 0; commons && m < r->nmodules; m++)
        if (l->mods[m] && st_fortran_commons(r->module_paths[m], rename_common, r) != 0)
            return -1;
    return 0;
}

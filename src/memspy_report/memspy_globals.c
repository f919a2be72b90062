/* memspy_globals.c — Fortran globals named as a Fortran programmer writes
 * them (docs/memspy.md, "Data objects and how they are named").  The tool
 * names a global by its data symbol: gfortran's module variable w of
 * module state is "__state_MOD_w", named "state::w" here as gdb does and
 * as augur names module procedures (util/fortran_name.h); COMMON /fields/
 * is "fields_", named "/fields/" when the DWARF of an analysed module
 * describes that symbol as a COMMON block (st_fortran_common), since a C
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

/* The Fortran name of global symbol `sym` into name[0..len): 1 when it has
 * one, else 0. */
static int fortran_global(const mr_loops *l, const memspy_raw *r, const char *sym, char *name, size_t len)
{
    if (fortran_name(name, len, sym))
        return 1;
    if (!common_candidate(sym))
        return 0;
    for (int m = 0; m < r->nmodules; m++)
        if (l->mods[m] && st_fortran_common(r->module_paths[m], sym, name, len))
            return 1;
    return 0;
}

int mr_loops_name_globals(const mr_loops *l, memspy_raw *r)
{
    for (size_t i = 0; i < r->nobjs; i++) {
        mr_obj *o = &r->objs[i];
        char name[512];
        if (o->kind == MR_GLOBAL && fortran_global(l, r, o->name, name, sizeof name) &&
            mr_obj_rename(o, name) != 0)
            return -1;
    }
    return 0;
}

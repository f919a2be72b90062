/* fortran_dwarf.c — what gfortran's DWARF says that C's does not, for
 * naming memory as a Fortran programmer does (docs/memspy.md, "Data
 * objects and how they are named").
 *
 * COMMON blocks: gfortran writes COMMON /fields/ as the data symbol
 * "fields_" (blank COMMON as "__BLNK__"), the name a Valgrind tool sees;
 * DWARF describes it as a DW_TAG_common_block, with that symbol as its
 * DW_AT_linkage_name, inside each procedure that declares it.  Only
 * compilation units in Fortran are searched, so a C library's DWARF costs
 * a header read per unit.
 *
 * Derived-type components: ALLOCATE (g%t(n)) stores the block at the
 * start of component t's array descriptor, inside variable g; the
 * component is the DW_TAG_member at that offset of g's structure type,
 * nested types followed down. */
#include "structure/fortran_dwarf.h"
#include "structure/dwfl_offline.h"
#include "structure/structure.h"

#include <dwarf.h>
#include <stdio.h>
#include <string.h>

/* Is compilation unit cu written in Fortran? */
static int fortran_unit(Dwarf_Die *cu)
{
    int lang = dwarf_srclang(cu);
    return lang == DW_LANG_Fortran77 || lang == DW_LANG_Fortran90 || lang == DW_LANG_Fortran95 ||
           lang == DW_LANG_Fortran03 || lang == DW_LANG_Fortran08;
}

/* The linkage name of die if it is a DW_TAG_common_block ("fields_"), else NULL. */
static const char *common_symbol(Dwarf_Die *die)
{
    Dwarf_Attribute a;
    return dwarf_tag(die) == DW_TAG_common_block ? dwarf_formstring(dwarf_attr(die, DW_AT_linkage_name, &a))
                                                 : NULL;
}

/* Write "/NAME/" for common block die, "//" for blank COMMON. */
static int common_name(Dwarf_Die *die, char *name, size_t len)
{
    const char *n = dwarf_diename(die);
    if (!n || strcmp(n, "__BLNK__") == 0)
        n = "";
    return (size_t)snprintf(name, len, "/%s/", n) < len;
}

/* Call fn for each COMMON block in the subtree under `scope` (a block is
 * described again in each procedure that declares it); fn's first nonzero
 * value, else 0. */
static int each_common(Dwarf_Die *scope, st_common_fn fn, void *ctx)
{
    Dwarf_Die child;
    if (dwarf_child(scope, &child) != 0)
        return 0;
    do {
        const char *symbol = common_symbol(&child);
        char name[512];
        int rc = 0;
        if (symbol && common_name(&child, name, sizeof name))
            rc = fn(ctx, symbol, name);
        else if (dwarf_haschildren(&child))
            rc = each_common(&child, fn, ctx);
        if (rc != 0)
            return rc;
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

int st_fortran_commons(const char *path, st_common_fn fn, void *ctx)
{
    st_dwfl s;
    char err[256];
    if (st_dwfl_open(path, &s, err, sizeof err) != 0)
        return 0;
    int rc = 0;
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (rc == 0 && dwarf_nextcu(s.dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        if (dwarf_offdie(s.dw, off + hsize, &cu) && fortran_unit(&cu))
            rc = each_common(&cu, fn, ctx);
        off = next;
    }
    st_dwfl_close(&s);
    return rc;
}

/* The type of die with typedefs and qualifiers peeled into *type; 0 on success. */
static int peeled_type(Dwarf_Die *die, Dwarf_Die *type)
{
    Dwarf_Attribute a;
    return dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_type, &a), type) && dwarf_peel_type(type, type) == 0
               ? 0
               : -1;
}

uint64_t st_fortran_span(Dwarf_Die *var)
{
    Dwarf_Die cu, type;
    Dwarf_Word size;
    if (!dwarf_diecu(var, &cu, NULL, NULL) || !fortran_unit(&cu) || peeled_type(var, &type) != 0 ||
        dwarf_tag(&type) != DW_TAG_structure_type || dwarf_aggregate_size(&type, &size) != 0 || size == 0)
        return 1;
    return size;
}

/* The member of structure type `type` that holds offset `at`: the one of
 * the largest offset not past it (an allocatable component's type, an
 * array of dynamic bounds, has no static size to check against), into
 * *member with its offset in *off; 0 on success. */
static int member_at(Dwarf_Die *type, uint64_t at, Dwarf_Die *member, uint64_t *off)
{
    Dwarf_Die m;
    int found = 0;
    if (dwarf_child(type, &m) != 0)
        return -1;
    do {
        Dwarf_Attribute a;
        Dwarf_Word mo;
        if (dwarf_tag(&m) == DW_TAG_member &&
            dwarf_formudata(dwarf_attr(&m, DW_AT_data_member_location, &a), &mo) == 0 && mo <= at &&
            (!found || mo >= *off)) {
            *member = m;
            *off = mo;
            found = 1;
        }
    } while (dwarf_siblingof(&m, &m) == 0);
    return found ? 0 : -1;
}

int st_fortran_component(Dwarf_Die *var, uint64_t at, char *name, size_t len)
{
    const char *n = dwarf_diename(var);
    size_t used = n ? (size_t)snprintf(name, len, "%s", n) : len;
    Dwarf_Die type, member;
    if (used >= len || peeled_type(var, &type) != 0)
        return 0;
    while (dwarf_tag(&type) == DW_TAG_structure_type) {
        uint64_t off = 0;
        const char *mn;
        if (member_at(&type, at, &member, &off) != 0 || !(mn = dwarf_diename(&member)))
            return 0;
        used += (size_t)snprintf(name + used, len - used, "%%%s", mn);
        if (used >= len || peeled_type(&member, &type) != 0)
            return 0;
        at -= off;
    }
    return at == 0; /* the descriptor's first word: the data pointer */
}

/* common_block.c — Fortran COMMON blocks by their symbols: gfortran writes
 * COMMON /fields/ as the data symbol "fields_" (blank COMMON as
 * "__BLNK__"), the name a Valgrind tool sees; DWARF describes it as a
 * DW_TAG_common_block, with that symbol as its DW_AT_linkage_name, inside
 * each procedure that declares it.  Only compilation units in Fortran are
 * searched, so a C library's DWARF costs a header read per unit. */
#include "structure/dwfl_offline.h"
#include "structure/structure.h"

#include <dwarf.h>
#include <string.h>

/* Is compilation unit cu written in Fortran? */
static int fortran_unit(Dwarf_Die *cu)
{
    int lang = dwarf_srclang(cu);
    return lang == DW_LANG_Fortran77 || lang == DW_LANG_Fortran90 || lang == DW_LANG_Fortran95 ||
           lang == DW_LANG_Fortran03 || lang == DW_LANG_Fortran08;
}

/* Is die a DW_TAG_common_block whose linkage name is `symbol`? */
static int common_of(Dwarf_Die *die, const char *symbol)
{
    Dwarf_Attribute a;
    const char *link = dwarf_tag(die) == DW_TAG_common_block
                           ? dwarf_formstring(dwarf_attr(die, DW_AT_linkage_name, &a))
                           : NULL;
    return link && strcmp(link, symbol) == 0;
}

/* Search the subtree under `scope` for the block of `symbol`: 1 with it in
 * *found, else 0. */
static int find_common(Dwarf_Die *scope, const char *symbol, Dwarf_Die *found)
{
    Dwarf_Die child;
    if (dwarf_child(scope, &child) != 0)
        return 0;
    do {
        if (common_of(&child, symbol)) {
            *found = child;
            return 1;
        }
        if (dwarf_haschildren(&child) && find_common(&child, symbol, found))
            return 1;
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

/* Write "/NAME/" for common block die, "//" for blank COMMON. */
static int common_name(Dwarf_Die *die, char *name, size_t len)
{
    const char *n = dwarf_diename(die);
    if (!n || strcmp(n, "__BLNK__") == 0)
        n = "";
    return (size_t)snprintf(name, len, "/%s/", n) < len;
}

int st_fortran_common(const char *path, const char *symbol, char *name, size_t len)
{
    st_dwfl s;
    char err[256];
    if (st_dwfl_open(path, &s, err, sizeof err) != 0)
        return 0;
    int ok = 0;
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (!ok && dwarf_nextcu(s.dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu, block;
        if (dwarf_offdie(s.dw, off + hsize, &cu) && fortran_unit(&cu) && find_common(&cu, symbol, &block))
            ok = common_name(&block, name, len);
        off = next;
    }
    st_dwfl_close(&s);
    return ok;
}

/* user_scope.h — which of the DWARF scopes around a pc belong to the
 * user's own code rather than to system-header code inlined into it
 * (libstdc++'s allocators, <string.h>'s fortified wrappers).  Internal to
 * src/structure: receiver.c names heap objects from the user's scopes. */
#ifndef AUGUR_USER_SCOPE_H
#define AUGUR_USER_SCOPE_H

#include <elfutils/libdw.h>
#include <stdint.h>

/* The concrete scopes around DWARF pc in unit cu, innermost first and cu
 * last, into *out (free it): the lexical blocks, inlined instances and
 * the function that hold pc, as the code nests them.  Unlike
 * dwarf_getscopes, which continues from an inlined instance into the
 * scopes of its abstract definition, these reach the function the code
 * was inlined into, whose variables the user named.  Returns their
 * number (0 with *out NULL when memory runs out). */
int st_scopes_at(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die **out);

/* Is scopes[i] (of dwarf_getscopes' n, innermost first) owned by system
 * code: the first function or inlined function at or above it is declared
 * in a system header (st_is_system_file)?  The compile unit is not. */
int st_scope_is_system(Dwarf_Die *scopes, int n, int i);

/* The index of the innermost scope owned by user code, or 0 when every
 * function scope is system code (nothing to prefer then). */
int st_user_scope(Dwarf_Die *scopes, int n);

/* Where the user's code entered system code at this pc: the call file
 * and line of the outermost inlined system function below the user scope
 * (file points into libdw's data).  1 with them set, 0 when the pc is not
 * in inlined system code. */
int st_user_call_site(Dwarf_Die *scopes, int n, const char **file, uint32_t *line);

#endif

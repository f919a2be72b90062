/* fortran_name.h — gfortran's symbol of a module procedure as Fortran
 * programmers (and gdb) write it: "__grid_MOD_relax" is "grid::relax".
 * Shared by the Valgrind tools (src/vgcommon/vg_names.c, the names of
 * profiles and memspy's raw files) and the structure analysis
 * (src/structure/demangle.c), so that every view names a procedure alike.
 *
 * Freestanding C: only <stddef.h>, no libc call (compiled into the tools). */
#ifndef AUGUR_FORTRAN_NAME_H
#define AUGUR_FORTRAN_NAME_H

#include <stddef.h>

/* If `sym` is gfortran's "__MODULE_MOD_PROC" (MODULE and PROC non-empty,
 * of lower-case letters, digits and '_', as gfortran writes them), write
 * "MODULE::PROC" to out (cap bytes, NUL-terminated) and return its length;
 * otherwise (another symbol, or no room) return 0 and leave out alone. */
size_t fortran_name(char *out, size_t cap, const char *sym);

#endif

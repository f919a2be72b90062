/* fortran_dwarf.h — Fortran derived-type components in DWARF, for the
 * receiver of an allocation (receiver.c).  Internal to src/structure;
 * fortran_dwarf.c also holds st_fortran_commons (structure.h). */
#ifndef AUGUR_FORTRAN_DWARF_H
#define AUGUR_FORTRAN_DWARF_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

/* The bytes of variable `var` an allocation may be stored anywhere within:
 * the size of its type when it is a Fortran derived type (ALLOCATE of a
 * component stores inside it), else 1 (only its first byte). */
uint64_t st_fortran_span(Dwarf_Die *var);

/* "VAR%COMP[%SUB...]" into name[0..len) for the component of Fortran
 * variable `var` whose array descriptor starts at byte `at` of it (where
 * ALLOCATE stores the data pointer): 1, or 0 when no component starts there
 * or name is too short. */
int st_fortran_component(Dwarf_Die *var, uint64_t at, char *name, size_t len);

#endif

/* demangle.c — C++ symbol names in the form Valgrind prints them, so that
 * `augur structure` (ELF symbols) and `augur report` (Valgrind's names)
 * name a function by the same string.
 *
 * Valgrind 3.19 (coregrind/m_demangle/demangle.c) runs libiberty's
 * demangler with DMGL_ANSI | DMGL_PARAMS on names starting "_Z" only.
 * libstdc++'s __cxa_demangle is the same demangler (cp-demangle.c) with
 * DMGL_PARAMS | DMGL_TYPES; DMGL_ANSI changes nothing in the V3 demangler,
 * and DMGL_TYPES only matters for names that are not "_Z" ones (it reads
 * "f" as the type "float"), which are therefore never passed to it.
 * gfortran's module procedures are named "module::proc" here and by the
 * tools alike (util/fortran_name.h): Valgrind leaves them as symbols. */
#include "structure/structure.h"
#include "util/fortran_name.h"

#include <stdlib.h>
#include <string.h>

/* The C++ ABI's demangler in libstdc++ (abi::__cxa_demangle, <cxxabi.h>),
 * declared here because that header is C++ only. */
char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

char *st_demangle(const char *name)
{
    char fortran[512]; /* gfortran's "__grid_MOD_relax": "grid::relax" (util/fortran_name.h) */
    if (fortran_name(fortran, sizeof fortran, name))
        return strdup(fortran);
    if (name[0] == '_' && name[1] == 'Z') {
        int status = 0;
        char *plain = __cxa_demangle(name, NULL, NULL, &status);
        if (status == 0 && plain)
            return plain;
        free(plain); /* not a valid mangled name: kept as it is */
    }
    return strdup(name);
}

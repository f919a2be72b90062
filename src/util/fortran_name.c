/* fortran_name.c — gfortran module procedure symbols as "module::proc"
 * (fortran_name.h).  gfortran 12 (gcc/fortran/trans-decl.cc,
 * gfc_sym_mangled_function_id) names procedure PROC of module MODULE
 * "__" MODULE "_MOD_" PROC, both lower-case; a name cannot hold "_MOD_"
 * itself only if it is not a gfortran module symbol at all, so the first
 * "_MOD_" after the leading "__" splits it.  Freestanding. */
#include "util/fortran_name.h"

/* 1 if c may appear in a gfortran name. */
static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* The offset of the first "_MOD_" in s after position 2, or 0. */
static size_t mod_marker(const char *s)
{
    for (size_t i = 3; s[i]; i++)
        if (s[i] == '_' && s[i + 1] == 'M' && s[i + 2] == 'O' && s[i + 3] == 'D' && s[i + 4] == '_')
            return i;
    return 0;
}

size_t fortran_name(char *out, size_t cap, const char *sym)
{
    if (sym[0] != '_' || sym[1] != '_' || !name_char(sym[2]))
        return 0;
    size_t m = mod_marker(sym), len = 0;
    if (m == 0 || !sym[m + 5])
        return 0;
    for (size_t i = 2; sym[i]; i++)
        if (i < m || i >= m + 5) {
            if (!name_char(sym[i]))
                return 0;
            len++;
        }
    if (len + 2 >= cap)
        return 0;
    size_t o = 0;
    for (size_t i = 2; i < m; i++)
        out[o++] = sym[i];
    out[o++] = ':';
    out[o++] = ':';
    for (size_t i = m + 5; sym[i]; i++)
        out[o++] = sym[i];
    out[o] = 0;
    return o;
}

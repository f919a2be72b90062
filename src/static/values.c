/* values.c — the values of --param on the program's symbols, and the
 * formulas' values from them. */
#include "static/static.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sa_values_bind(const sa_program *p, const char *const *names, const char *const *values, size_t n,
                   sa_values *out, char *err, size_t errlen)
{
    out->vals = sa_alloc(p->arena, (p->syms.n + 1) * sizeof(double));
    out->known = sa_alloc(p->arena, p->syms.n + 1);
    out->given = n;
    for (size_t i = 0; i < n; i++) {
        char *end;
        double v = strtod(values[i], &end);
        if (*end || v != floor(v) || fabs(v) > 9.0e15) {
            snprintf(err, errlen, "--param %s=%s: the value must be an integer (the unknowns are C integers)", names[i],
                     values[i]);
            return -1;
        }
        for (size_t s = 0; s < p->syms.n; s++)
            if (!strcmp(p->syms.v[s].name, names[i]) && !sa_sym_is_dim(p->syms.v[s].kind)) {
                out->vals[s] = v;
                out->known[s] = 1;
            }
    }
    return 0;
}

int sa_total_function(const sa_program *p)
{
    for (size_t i = 0; i < p->nfuncs; i++)
        if (!strcmp(p->funcs[i].name, "main"))
            return (int)i;
    return -1;
}

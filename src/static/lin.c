/* lin.c — affine forms c + sum k_i * s_i over symbols, with integer
 * coefficients: the bounds, guards and call arguments the counting
 * accepts.  Forms are immutable and live in the arena. */
#include "static/sa.h"

#include <inttypes.h>
#include <string.h>

sa_lin sa_lin_const(int64_t c)
{
    return (sa_lin){.c = c};
}

sa_lin sa_lin_sym(sa_arena *a, int sym)
{
    sa_lin x = {.n = 1, .sym = sa_alloc(a, sizeof(int)), .k = sa_alloc(a, sizeof(int64_t))};
    x.sym[0] = sym;
    x.k[0] = 1;
    return x;
}

sa_lin sa_lin_comb(sa_arena *a, int64_t ka, sa_lin x, int64_t kb, sa_lin y)
{
    sa_lin r = {.sym = sa_alloc(a, (size_t)(x.n + y.n + 1) * sizeof(int)),
                .k = sa_alloc(a, (size_t)(x.n + y.n + 1) * sizeof(int64_t)),
                .c = ka * x.c + kb * y.c};
    int i = 0, j = 0;
    while (i < x.n || j < y.n) { /* merge of two sorted term lists */
        int s;
        int64_t k;
        if (j >= y.n || (i < x.n && x.sym[i] < y.sym[j])) {
            s = x.sym[i];
            k = ka * x.k[i++];
        } else if (i >= x.n || y.sym[j] < x.sym[i]) {
            s = y.sym[j];
            k = kb * y.k[j++];
        } else {
            s = x.sym[i];
            k = ka * x.k[i++] + kb * y.k[j++];
        }
        if (k != 0) {
            r.sym[r.n] = s;
            r.k[r.n++] = k;
        }
    }
    return r;
}

sa_lin sa_lin_subst(sa_arena *a, sa_lin x, const sa_subst *s, size_t ns)
{
    sa_lin r = sa_lin_const(x.c);
    for (int i = 0; i < x.n; i++) {
        size_t j = 0;
        while (j < ns && s[j].from != x.sym[i])
            j++;
        r = sa_lin_comb(a, 1, r, x.k[i], j < ns ? s[j].to : sa_lin_sym(a, x.sym[i]));
    }
    return r;
}

int sa_lin_is_const(sa_lin x)
{
    return x.n == 0;
}

char *sa_lin_str(sa_arena *a, const sa_symtab *t, sa_lin x)
{
    char *s = sa_strdup(a, "");
    for (int i = 0; i < x.n; i++) {
        int64_t k = x.k[i];
        const char *sign = k < 0 ? (i ? " - " : "-") : (i ? " + " : "");
        int64_t m = k < 0 ? -k : k;
        s = m == 1 ? sa_printf(a, "%s%s%s", s, sign, t->v[x.sym[i]].name)
                   : sa_printf(a, "%s%s%" PRId64 "*%s", s, sign, m, t->v[x.sym[i]].name);
    }
    if (x.n == 0)
        return sa_printf(a, "%" PRId64, x.c);
    if (x.c != 0)
        s = sa_printf(a, "%s %c %" PRId64, s, x.c < 0 ? '-' : '+', x.c < 0 ? -x.c : x.c);
    return s;
}

/* symbols.c — the symbols formulas are written in: the program's unknowns
 * (parameters, globals, locals, named unknowns) and the dimensions of
 * iteration domains (loop iterators, existential variables), and the
 * shares of parallel loops' iterations one thread runs. */
#include "static/sa.h"

#include <string.h>

static int same(const char *x, const char *y)
{
    return x == y || (x && y && strcmp(x, y) == 0);
}

int sa_sym_new(sa_symtab *t, const char *name, sa_sym_kind kind, const char *owner)
{
    /* existential variables are numbered, so that a message can tell them apart */
    sa_sym s = {kind == SYM_EXIST ? sa_printf(t->arena, "%s%zu", name, t->n) : sa_strdup(t->arena, name), kind,
                owner ? sa_strdup(t->arena, owner) : NULL, NULL, NULL, -1, 0};
    t->v = sa_push(t->arena, t->v, &t->n, sizeof s, &s);
    return (int)t->n - 1;
}

int sa_sym_get(sa_symtab *t, const char *name, sa_sym_kind kind, const char *owner)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].kind == kind && strcmp(t->v[i].name, name) == 0 && same(t->v[i].owner, owner))
            return (int)i;
    return sa_sym_new(t, name, kind, owner);
}

int sa_sym_is_dim(sa_sym_kind kind)
{
    return kind == SYM_ITER || kind == SYM_EXIST;
}

int sa_sym_share(sa_symtab *t, const sa_dom *d, int threads, int floor_div)
{
    sa_dom *copy = sa_alloc(t->arena, sizeof *copy);
    *copy = *d;
    int s = sa_sym_new(t, "share", SYM_SHARE, NULL);
    t->v[s].share_dom = copy;
    t->v[s].threads = threads;
    t->v[s].floor = floor_div;
    return s;
}

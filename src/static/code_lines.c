/* code_lines.c — do the sources match the binary?  The lines of the
 * binary's DWARF line table that hold instructions, and a warning for each
 * function and loop of the model whose first line holds none: the source
 * was edited after the build (or the function was dropped as unused). */
#include "static/sources.h"
#include "structure/dwfl_offline.h"

#include <string.h>

int sa_read_code_lines(sa_program *p, const char *program, sa_code_lines *out)
{
    st_dwfl s;
    char err[256];
    *out = (sa_code_lines){0};
    if (st_dwfl_open(program, &s, err, sizeof err) != 0)
        return -1;
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (dwarf_nextcu(s.dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        Dwarf_Lines *lines;
        size_t n;
        int got = dwarf_offdie(s.dw, off + hsize, &cu) != NULL;
        off = next;
        if (!got || dwarf_getsrclines(&cu, &lines, &n) != 0)
            continue;
        for (size_t i = 0; i < n; i++) {
            Dwarf_Line *l = dwarf_onesrcline(lines, i);
            int line;
            const char *file = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
            if (!file || dwarf_lineno(l, &line) != 0 || line <= 0)
                continue;
            sa_code_line c = {sa_strdup(p->arena, file), line};
            out->v = sa_push(p->arena, out->v, &out->n, sizeof c, &c);
        }
    }
    st_dwfl_close(&s);
    return 0;
}

/* Does line `line` of `file` hold instructions? */
static int has_code(const sa_code_lines *c, const char *file, int line)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].line == line && !strcmp(c->v[i].file, file))
            return 1;
    return 0;
}

void sa_check_code_lines(sa_program *p, const sa_code_lines *c, const char *program)
{
    for (size_t i = 0; i < p->nfuncs; i++) {
        const sa_func *f = &p->funcs[i];
        int any = 0;
        for (int line = f->line; line <= f->end_line && !any; line++)
            any = has_code(c, f->file, line);
        if (!any) {
            sa_warn(p, f->file, f->line, "function %s has no instructions in %s: it was left out of the build, "
                                         "or the source changed since (rebuild it)", f->name, program);
            continue;
        }
        for (size_t l = 0; l < f->nloops; l++)
            if (!has_code(c, f->file, f->loops[l].line))
                sa_warn(p, f->file, f->loops[l].line, "the loop's line has no instructions in %s: the source does "
                                                      "not match the binary (rebuild it)", program);
    }
}

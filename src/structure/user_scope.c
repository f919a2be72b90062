/* user_scope.c — the user's scopes among the DWARF scopes around a pc
 * (docs/memspy.md, "Data objects and how they are named").  A scope is
 * system code when the function it lies in, inlined or not, is declared
 * in a system header; the user scope is the innermost one that is not.
 * A C++ allocation reaches operator new through several inlined
 * libstdc++ functions, whose parameters (__first, __p) and lines
 * (new_allocator.h:137) say nothing to the user; the variable and line
 * that do are those of the user's function the calls were inlined into. */
#include "structure/user_scope.h"
#include "structure/structure.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* Scopes found so far, outermost first. */
typedef struct scope_list {
    Dwarf_Die *die;
    int n, cap, failed;
} scope_list;

/* Append die to the list; sets failed when memory runs out. */
static void push(scope_list *s, Dwarf_Die *die)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        Dwarf_Die *d = realloc(s->die, (size_t)cap * sizeof *d);
        if (!d) {
            s->failed = 1;
            return;
        }
        s->die = d, s->cap = cap;
    }
    s->die[s->n++] = *die;
}

/* Descend from parent to the children that hold pc (through C++
 * namespaces and Fortran modules, which hold functions but no code); 1
 * when one did. */
static int descend(Dwarf_Die *parent, Dwarf_Addr pc, scope_list *s)
{
    Dwarf_Die child;
    if (dwarf_child(parent, &child) != 0)
        return 0;
    do {
        int tag = dwarf_tag(&child);
        if ((tag == DW_TAG_namespace || tag == DW_TAG_module) && descend(&child, pc, s))
            return 1;
        if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) &&
            dwarf_haspc(&child, pc) == 1) {
            push(s, &child);
            descend(&child, pc, s);
            return 1;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

int st_scopes_at(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die **out)
{
    scope_list s = {0};
    push(&s, cu);
    descend(cu, pc, &s);
    if (s.failed) {
        free(s.die);
        *out = NULL;
        return 0;
    }
    for (int i = 0; i < s.n / 2; i++) { /* innermost first */
        Dwarf_Die t = s.die[i];
        s.die[i] = s.die[s.n - 1 - i];
        s.die[s.n - 1 - i] = t;
    }
    *out = s.die;
    return s.n;
}

/* path with "." and ".." components and repeated slashes resolved as
 * text into buf (clang names libstdc++'s headers
 * /usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/...);
 * a path too long for buf is cut short. */
static void lexical_path(const char *path, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (const char *p = path; *p;) {
        const char *end = strchr(p, '/');
        size_t k = end ? (size_t)(end - p) : strlen(p);
        if (k == 2 && p[0] == '.' && p[1] == '.') {
            while (n > 0 && buf[--n] != '/') /* drop the last component */
                ;
        } else if (k > 0 && !(k == 1 && p[0] == '.') && n + k + 2 < len) {
            buf[n++] = '/';
            memcpy(buf + n, p, k);
            n += k;
        }
        buf[n] = '\0';
        p += k + (end != NULL);
    }
}

int st_is_system_file(const char *path)
{
    static const char *const dirs[] = {"/usr/include/", "/usr/lib/", "/usr/local/include/", "/usr/lib64/"};
    char norm[4096];
    if (!path || path[0] != '/')
        return 0;
    lexical_path(path, norm, sizeof norm);
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (strncmp(norm, dirs[i], strlen(dirs[i])) == 0)
            return 1;
    return 0;
}

/* Is die a function scope: a subprogram or an inlined instance of one? */
static int is_function(Dwarf_Die *die)
{
    int tag = dwarf_tag(die);
    return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

int st_scope_is_system(Dwarf_Die *scopes, int n, int i)
{
    for (int j = i; j < n; j++)
        if (is_function(&scopes[j]))
            return st_is_system_file(dwarf_decl_file(&scopes[j]));
    return 0;
}

int st_user_scope(Dwarf_Die *scopes, int n)
{
    for (int i = 0; i < n; i++)
        if (dwarf_tag(&scopes[i]) != DW_TAG_compile_unit && !st_scope_is_system(scopes, n, i))
            return i;
    return 0;
}

/* The name of file number `index` of the line table of die's unit, or NULL. */
static const char *unit_file(Dwarf_Die *die, Dwarf_Word index)
{
    Dwarf_Die cu;
    Dwarf_Files *files;
    size_t nfiles;
    if (!dwarf_diecu(die, &cu, NULL, NULL) || dwarf_getsrcfiles(&cu, &files, &nfiles) != 0 || index >= nfiles)
        return NULL;
    return dwarf_filesrc(files, index, NULL, NULL);
}

int st_user_call_site(Dwarf_Die *scopes, int n, const char **file, uint32_t *line)
{
    int u = st_user_scope(scopes, n);
    for (int j = u - 1; j >= 0; j--) {
        Dwarf_Attribute attr;
        Dwarf_Word f, l;
        if (dwarf_tag(&scopes[j]) != DW_TAG_inlined_subroutine)
            continue;
        if (dwarf_formudata(dwarf_attr(&scopes[j], DW_AT_call_file, &attr), &f) != 0 ||
            dwarf_formudata(dwarf_attr(&scopes[j], DW_AT_call_line, &attr), &l) != 0 ||
            !(*file = unit_file(&scopes[j], f)))
            return 0;
        *line = (uint32_t)l;
        return 1;
    }
    return 0;
}

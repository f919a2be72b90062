/* srcpath.c — joining and normalizing source file paths from DWARF, the same
 * way in the Valgrind tools and the host (see srcpath.h).  Freestanding: no
 * libc, so it compiles into the tools unchanged. */
#include "util/srcpath.h"

static size_t str_len(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

/* Append s[0..n) at out + *len; -1 when it and a final NUL do not fit. */
static int append(char *out, size_t cap, size_t *len, const char *s, size_t n)
{
    if (*len + n + 1 > cap)
        return -1;
    for (size_t i = 0; i < n; i++)
        out[*len + i] = s[i];
    *len += n;
    return 0;
}

/* Whether the last component written (after the root, out[root..len)) is a
 * plain name that a following ".." cancels; *start is where it begins. */
static int foldable(const char *out, size_t root, size_t len, size_t *start)
{
    if (len == root)
        return 0; /* nothing to cancel: a leading ".." stays */
    size_t s = len;
    while (s > root && out[s - 1] != '/')
        s--;
    *start = s;
    return !(len - s == 2 && out[s] == '.' && out[s + 1] == '.');
}

/* Add the component c[0..n) to the normalized path out[0..*len). */
static int add_component(char *out, size_t cap, size_t *len, size_t root, const char *c, size_t n)
{
    size_t start;
    if (n == 0 || (n == 1 && c[0] == '.'))
        return 0;
    if (n == 2 && c[0] == '.' && c[1] == '.' && root && *len == root)
        return 0; /* "/.." is "/" (POSIX) */
    if (n == 2 && c[0] == '.' && c[1] == '.' && foldable(out, root, *len, &start)) {
        *len = start > root ? start - 1 : root; /* drop the name and its '/' */
        return 0;
    }
    if (*len > root && append(out, cap, len, "/", 1) != 0)
        return -1;
    return append(out, cap, len, c, n);
}

/* Add every '/'-separated component of p[0..n). */
static int add_path(char *out, size_t cap, size_t *len, size_t root, const char *p, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && p[j] != '/')
            j++;
        if (add_component(out, cap, len, root, p + i, j - i) != 0)
            return -1;
        i = j + 1;
    }
    return 0;
}

/* srcpath_join with the directory given as dir[0..dir_len). */
static size_t join_n(char *out, size_t cap, const char *dir, size_t dir_len, const char *file)
{
    if (cap == 0)
        return (size_t)-1;
    int use_dir = dir && dir_len > 0 && file[0] != '/';
    const char *first = use_dir ? dir : file;
    size_t len = 0, root = 0;
    if (first[0] == '/') {
        if (append(out, cap, &len, "/", 1) != 0)
            goto fail;
        root = 1;
    }
    if (use_dir && add_path(out, cap, &len, root, dir, dir_len) != 0)
        goto fail;
    if (add_path(out, cap, &len, root, file, str_len(file)) != 0)
        goto fail;
    if (len == 0 && append(out, cap, &len, ".", 1) != 0)
        goto fail;
    out[len] = '\0';
    return len;
fail:
    out[0] = '\0';
    return (size_t)-1;
}

size_t srcpath_join(char *out, size_t cap, const char *dir, const char *file)
{
    return join_n(out, cap, dir, dir ? str_len(dir) : 0, file);
}

/* The length of the part of Valgrind's dir to use: C for "C/C" with C
 * relative (Valgrind's doubled DWARF 5 entry 0), else all of dir. */
static size_t vg_dir_len(const char *dir)
{
    size_t n = str_len(dir), half = n / 2;
    if (n < 3 || n % 2 == 0 || dir[0] == '/' || dir[half] != '/')
        return n;
    for (size_t i = 0; i < half; i++)
        if (dir[i] != dir[half + 1 + i])
            return n;
    return half;
}

size_t srcpath_vg(char *out, size_t cap, const char *dir, const char *file)
{
    return join_n(out, cap, dir, dir ? vg_dir_len(dir) : 0, file);
}

/* Whether path starts with comp_dir followed by '/'. */
static int under(const char *path, const char *comp_dir)
{
    size_t i = 0;
    for (; comp_dir[i]; i++)
        if (path[i] != comp_dir[i])
            return 0;
    return i > 0 && path[i] == '/';
}

size_t srcpath_dw(char *out, size_t cap, const char *comp_dir, const char *path)
{
    if (path[0] != '/' && comp_dir && comp_dir[0] && !under(path, comp_dir))
        return srcpath_join(out, cap, comp_dir, path);
    return srcpath_join(out, cap, NULL, path);
}

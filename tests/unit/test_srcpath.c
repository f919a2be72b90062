/* test_srcpath.c — unit tests of src/util/srcpath.c, the one spelling of a
 * source path for the Valgrind tools and the structure analysis.  The
 * inputs are the real strings of Debian 12's ld.so (libc6-dbg, DWARF 5,
 * DW_AT_comp_dir "./elf"): Valgrind 3.19's (dir, file) pairs as
 * VG_(get_filename_linenum) returns them, and libdw's dwarf_filesrc; each
 * expected path is the file's path from the compilation's root, worked out
 * by hand from `readelf --debug-dump=rawline` (directory entry 0 "./elf",
 * entry 1 "../sysdeps/generic", entry 4 "."). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/srcpath.h"

static char out[256];

static const char *join(const char *dir, const char *file)
{
    assert_int_not_equal(srcpath_join(out, sizeof out, dir, file), (size_t)-1);
    return out;
}

static const char *vg(const char *dir, const char *file)
{
    assert_int_not_equal(srcpath_vg(out, sizeof out, dir, file), (size_t)-1);
    return out;
}

static const char *dw(const char *comp_dir, const char *path)
{
    assert_int_not_equal(srcpath_dw(out, sizeof out, comp_dir, path), (size_t)-1);
    return out;
}

/* rtld.c, do-rel.h: directory entry 0, which Valgrind doubles. */
static void ldso_entry0(void **state)
{
    (void)state;
    assert_string_equal(vg("./elf/./elf", "rtld.c"), "elf/rtld.c");
    assert_string_equal(dw("./elf", "./elf/rtld.c"), "elf/rtld.c");
    assert_string_equal(vg("./elf/./elf", "do-rel.h"), "elf/do-rel.h");
    assert_string_equal(dw("./elf", "./elf/do-rel.h"), "elf/do-rel.h");
}

/* ldsodefs.h (entry "../sysdeps/generic"), get-dynamic-info.h (entry "."):
 * relative entries, relative to comp_dir. */
static void ldso_relative_entries(void **state)
{
    (void)state;
    assert_string_equal(vg("./elf/../sysdeps/generic", "ldsodefs.h"), "sysdeps/generic/ldsodefs.h");
    assert_string_equal(dw("./elf", "../sysdeps/generic/ldsodefs.h"), "sysdeps/generic/ldsodefs.h");
    assert_string_equal(vg("./elf/.", "get-dynamic-info.h"), "elf/get-dynamic-info.h");
    assert_string_equal(dw("./elf", "./get-dynamic-info.h"), "elf/get-dynamic-info.h");
    /* strlen-sse2.S of unit comp_dir "./string", named through "multiarch/../multiarch" */
    assert_string_equal(vg("./string/../sysdeps/x86_64/multiarch/../multiarch", "strlen-sse2.S"),
                        "sysdeps/x86_64/multiarch/strlen-sse2.S");
    assert_string_equal(dw("./string", "../sysdeps/x86_64/multiarch/../multiarch/strlen-sse2.S"),
                        "sysdeps/x86_64/multiarch/strlen-sse2.S");
}

/* Absolute entries (GCC's include dir) and an absolute comp_dir (a
 * program's own files, the usual case) are left as they are. */
static void absolute_unchanged(void **state)
{
    (void)state;
    const char *gcc = "/usr/lib/gcc/x86_64-linux-gnu/12/include";
    assert_string_equal(vg(gcc, "stddef.h"), "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h");
    assert_string_equal(dw("./elf", "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h"),
                        "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h");
    assert_string_equal(vg("/home/u/p", "main.c"), "/home/u/p/main.c");
    assert_string_equal(dw("/home/u/p", "/home/u/p/main.c"), "/home/u/p/main.c");
    /* a relative include dir under an absolute comp_dir: both sides join */
    assert_string_equal(vg("/home/u/p/../include", "x.h"), "/home/u/include/x.h");
    assert_string_equal(dw("/home/u/p", "../include/x.h"), "/home/u/include/x.h");
    /* an absolute directory "doubled" is not Valgrind's doubling */
    assert_string_equal(vg("/a/b//a/b", "f.c"), "/a/b/a/b/f.c");
    assert_string_equal(vg(NULL, "/abs/f.c"), "/abs/f.c");
    assert_string_equal(vg("", "f.c"), "f.c");
    assert_string_equal(dw(NULL, "rel/f.c"), "rel/f.c");
}

/* comp_dir "." and a bare relative comp_dir: entry 0 doubled as "./."
 * and "a/a". */
static void short_comp_dirs(void **state)
{
    (void)state;
    assert_string_equal(vg("./.", "f.c"), "f.c");
    assert_string_equal(dw(".", "./f.c"), "f.c");
    assert_string_equal(vg("src/src", "f.c"), "src/f.c");
    assert_string_equal(dw("src", "src/f.c"), "src/f.c");
    assert_string_equal(vg("src/../inc", "f.h"), "inc/f.h");
    assert_string_equal(dw("src", "../inc/f.h"), "inc/f.h");
    /* "srcx/f.c" is not under "src": joined */
    assert_string_equal(dw("src", "srcx/f.c"), "src/srcx/f.c");
}

/* Normalization: '.', empty and "name/.." components; ".." that cannot
 * fold is kept. */
static void normalization(void **state)
{
    (void)state;
    assert_string_equal(join("a//./b/", "c"), "a/b/c");
    assert_string_equal(join("a/b/../../..", "c"), "../c");
    assert_string_equal(join("../..", "x.c"), "../../x.c");
    assert_string_equal(join("a/../..", "x.c"), "../x.c");
    assert_string_equal(join("/..", "x.c"), "/x.c"); /* POSIX: the root's parent is the root */
    assert_string_equal(join("/a/..", "x.c"), "/x.c");
    assert_string_equal(join(".", "."), ".");
    assert_string_equal(join("a", ".."), ".");
    assert_string_equal(join("/", "."), "/");
    assert_string_equal(join("a", "/b/./c"), "/b/c");
    assert_string_equal(join("..a/..", "b..c"), "b..c");
}

/* A result that does not fit is refused whole, never cut. */
static void too_long_refused(void **state)
{
    (void)state;
    char small[8];
    assert_int_equal(srcpath_join(small, sizeof small, "abc", "def"), 7); /* 7 + NUL fit */
    assert_string_equal(small, "abc/def");
    assert_int_equal(srcpath_join(small, sizeof small, "abc", "defg"), (size_t)-1);
    assert_string_equal(small, "");
    assert_int_equal(srcpath_join(small, 0, "a", "b"), (size_t)-1);
    /* "x/./././y" needs 3 bytes normalized, though longer as given */
    char three[4];
    assert_int_equal(srcpath_join(three, sizeof three, "x/././.", "y"), 3);
    assert_string_equal(three, "x/y");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ldso_entry0),        cmocka_unit_test(ldso_relative_entries),
        cmocka_unit_test(absolute_unchanged), cmocka_unit_test(short_comp_dirs),
        cmocka_unit_test(normalization),      cmocka_unit_test(too_long_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

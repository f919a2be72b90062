/* test_memspy_names.c — the pure parts of memspy's heap-object names in
 * the user's terms (docs/memspy.md, "Data objects and how they are
 * named"): which source paths are system headers, whose inlined code
 * gives way to the user's scope (st_is_system_file), and the name of an
 * allocation frame, MODULE+0xOFF for code of no symbol (mr_frame_name). */
#include <setjmp.h> /* setjmp.h, stdarg.h, stddef.h, stdint.h: before cmocka.h */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "memspy_report/memspy_report.h"
#include "structure/structure.h"

/* gcc's and clang's spellings of system headers are system; the user's
 * files, relative paths and look-alikes are not. */
static void test_system_files(void **state)
{
    (void)state;
    assert_true(st_is_system_file("/usr/include/c++/12/bits/new_allocator.h"));
    assert_true(st_is_system_file("/usr/include/stdlib.h"));
    assert_true(st_is_system_file("/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h"));
    assert_true(st_is_system_file("/usr/local/include/boost/vector.hpp"));
    /* clang: through /usr/bin/.. to /usr/include/c++ */
    assert_true(st_is_system_file(
        "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/bits/new_allocator.h"));
    assert_true(st_is_system_file("/usr//include/./stdio.h"));
    assert_false(st_is_system_file("/home/u/src/main.cc"));
    assert_false(st_is_system_file("/usr/includes/x.h"));       /* not the directory */
    assert_false(st_is_system_file("/usr/include/../src/app.c")); /* /usr/src/app.c */
    assert_false(st_is_system_file("include/vector"));           /* relative: the build's own */
    assert_false(st_is_system_file(NULL));
}

/* Frames: FN:LINE, FN without a line, MODULE+0xOFF (the module's base name
 * and the link-time address) without a function, 0xADDR without a module. */
static void test_frame_names(void **state)
{
    (void)state;
    char *fns[] = {"main"}, *modules[] = {"/tmp/build/prog", "/lib/x86_64-linux-gnu/libstdc++.so.6"};
    memspy_raw r = {.nfns = 1, .fns = fns, .nmodules = 2, .module_paths = modules};
    char buf[64];
    mr_frame_name(&r, &(mr_loc){.module = 0, .fn = 0, .file = -1, .addr = 0x1181, .line = 9}, buf, sizeof buf);
    assert_string_equal(buf, "main:9");
    mr_frame_name(&r, &(mr_loc){.module = 0, .fn = 0, .file = -1, .addr = 0x1181}, buf, sizeof buf);
    assert_string_equal(buf, "main");
    mr_frame_name(&r, &(mr_loc){.module = 0, .fn = -1, .file = -1, .addr = 0x1181}, buf, sizeof buf);
    assert_string_equal(buf, "prog+0x1181");
    mr_frame_name(&r, &(mr_loc){.module = 1, .fn = -1, .file = -1, .addr = 0xa57b9}, buf, sizeof buf);
    assert_string_equal(buf, "libstdc++.so.6+0xa57b9");
    mr_frame_name(&r, &(mr_loc){.module = -1, .fn = -1, .file = -1, .addr = 0x48fa7b9}, buf, sizeof buf);
    assert_string_equal(buf, "0x48fa7b9");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_system_files),
        cmocka_unit_test(test_frame_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

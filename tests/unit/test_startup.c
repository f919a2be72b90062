/* test_startup.c — the start-up and loader rule (src/binary/startup.h):
 * which functions report, predict and memspy leave out of their rankings.
 * Each case is a rule of the header: the loader's module by file name,
 * Valgrind's core preload and not a tool's, IFUNC resolvers read from a
 * real ELF file (tests/programs/ifunc_sum.c: `sum` is the IFUNC symbol,
 * choose_sum its resolver, sum_doubles what calls reach, as readelf -s
 * shows), and glibc's start-up and exit names with their symbol versions,
 * __GI_ prefixes and GCC clone suffixes. */
#include <setjmp.h> /* setjmp.h, stdarg.h, stddef.h, stdint.h: before cmocka.h */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "binary/startup.h"

static int is(const char *function, const char *module)
{
    startup_rules *r = startup_rules_new();
    assert_non_null(r);
    int v = startup_is(r, function, module);
    startup_rules_free(r);
    return v;
}

/* Everything the loader runs is start-up, whatever its name; a module
 * merely containing "ld-" is not the loader (musl's libc is ld-musl-*,
 * its own C library). */
static void test_loader_module(void **state)
{
    (void)state;
    assert_int_equal(is("_dl_relocate_object", "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"), 1);
    assert_int_equal(is("strcmp", "/lib64/ld-linux-x86-64.so.2"), 1);
    assert_int_equal(is(NULL, "/lib64/ld-linux-x86-64.so.2"), 1);
    assert_int_equal(is("do_lookup_x", "/lib/x86_64-linux-gnu/ld-2.31.so"), 1);
    assert_int_equal(is("strcmp", "/lib/ld-musl-x86_64.so.1"), 0);
    assert_int_equal(is("main", "/home/u/build-ld-linux/prog"), 0);
    assert_true(startup_is_loader("ld-linux-x86-64.so.2"));
    assert_false(startup_is_loader(NULL));
}

/* Valgrind's core preload runs glibc's freeres at exit; memspy's preload
 * is the program's malloc. */
static void test_valgrind_preloads(void **state)
{
    (void)state;
    assert_int_equal(is(NULL, "/usr/libexec/valgrind/vgpreload_core-amd64-linux.so"), 1);
    assert_int_equal(is("malloc", "/opt/augur/vglib/vgpreload_memspy-amd64-linux.so"), 0);
}

/* The resolver under both its names is start-up; the implementation it
 * chooses, and main, are the program's. */
static void test_ifunc_resolvers(void **state)
{
    (void)state;
    const char *dir = getenv("AUGUR_TEST_PROGRAMS");
    char path[1024];
    assert_non_null(dir);
    snprintf(path, sizeof path, "%s/ifunc_sum", dir);
    startup_rules *r = startup_rules_new();
    assert_int_equal(startup_is(r, "sum", path), 1);
    assert_int_equal(startup_is(r, "choose_sum", path), 1);
    assert_int_equal(startup_is(r, "sum_doubles", path), 0);
    assert_int_equal(startup_is(r, "main", path), 0);
    assert_int_equal(startup_is(r, "sum", path), 1); /* read once, asked twice */
    /* no file, no IFUNC symbols: nothing hidden by this rule */
    assert_int_equal(startup_is(r, "sum", "/nonexistent/ifunc_sum"), 0);
    assert_int_equal(startup_is(r, "sum", NULL), 0);
    startup_rules_free(r);
}

/* glibc's start-up and exit code in any module (a static program holds
 * it), under Valgrind's spellings; look-alikes are the program's. */
static void test_names(void **state)
{
    (void)state;
    const char *libc = "/nonexistent/libc.so.6";
    assert_int_equal(is("__libc_start_main@@GLIBC_2.34", libc), 1);
    assert_int_equal(is("__libc_start_call_main", libc), 1);
    assert_int_equal(is("(below main)", "/tmp/prog"), 1);
    assert_int_equal(is("_start", "/tmp/prog"), 1);
    assert_int_equal(is("__libc_setup_tls", "/tmp/static_prog"), 1);
    assert_int_equal(is("_dl_relocate_static_pie", "/tmp/static_prog"), 1);
    assert_int_equal(is("__GI___tunables_init", libc), 1);
    assert_int_equal(is("ptmalloc_init.part.0", libc), 1);
    assert_int_equal(is("tcache_init.part.0", libc), 1);
    assert_int_equal(is("__run_exit_handlers", libc), 1);
    assert_int_equal(is("_IO_cleanup", libc), 1);
    assert_int_equal(is("frame_dummy", "/tmp/prog"), 1);
    assert_int_equal(is("main", "/tmp/prog"), 0);
    assert_int_equal(is("malloc", libc), 0);
    assert_int_equal(is("_int_malloc", libc), 0);
    assert_int_equal(is("__printf_fp_l", libc), 0);
    assert_int_equal(is("_IO_file_overflow@@GLIBC_2.2.5", libc), 0);
    assert_int_equal(is("exit_code_of", "/tmp/prog"), 0); /* a pattern is a whole name */
    assert_int_equal(is("my_start", "/tmp/prog"), 0);
    assert_int_equal(is(".hidden", "/tmp/prog"), 0); /* a leading dot is no clone suffix */
    assert_int_equal(is(NULL, libc), 0);
    assert_int_equal(is(NULL, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loader_module),
        cmocka_unit_test(test_valgrind_preloads),
        cmocka_unit_test(test_ifunc_resolvers),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

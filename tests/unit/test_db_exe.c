/* test_db_exe.c — which loaded module is a process's executable
 * (src/db/db_exe.c): the path as typed (`./prog`, `../bin/prog`, `a//b`)
 * joined to the directory it was started in, matched exactly to a module's
 * absolute path, through symbolic links by realpath(); relative paths
 * without a directory, and names matching no module, are unknown (-1),
 * never guessed from a file name. */
#include "host_fixtures.h"

#include <limits.h>

#include "db/db.h"

/* db_exe_join's result for (exe, cwd), or "(fails)". */
static const char *joined(const char *exe, const char *cwd)
{
    static char out[PATH_MAX];
    return db_exe_join(exe, cwd, out, sizeof out) == 0 ? out : "(fails)";
}

static void test_join(void **state)
{
    (void)state;
    assert_string_equal(joined("./stencil", "/home/u/src"), "/home/u/src/stencil");
    assert_string_equal(joined("build/examples/matmul", "/work/a"), "/work/a/build/examples/matmul");
    assert_string_equal(joined("../bin/./prog", "/home/u/src/"), "/home/u/bin/prog");
    assert_string_equal(joined("..//../../x", "/a/b"), "/x"); /* ".." stops at the root */
    assert_string_equal(joined("/usr//bin/../bin/ls", "/ignored"), "/usr/bin/ls");
    assert_string_equal(joined("/", ""), "/");
    assert_string_equal(joined("./prog", ""), "(fails)");       /* relative, directory unknown */
    assert_string_equal(joined("./prog", "relative"), "(fails)"); /* a directory must be absolute */
    assert_string_equal(joined("", "/a"), "(fails)");
    char small[8];
    assert_int_equal(db_exe_join("./stencil", "/home/u", small, sizeof small), -1); /* does not fit */
}

static void test_match(void **state)
{
    (void)state;
    const char *const mods[] = {"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "/home/u/src/stencil",
                                "/usr/lib/x86_64-linux-gnu/libc.so.6"};
    assert_int_equal(db_exe_module("./stencil", "/home/u/src", mods, 3), 1);
    assert_int_equal(db_exe_module("src/stencil", "/home/u", mods, 3), 1);
    assert_int_equal(db_exe_module("/home/u/src/stencil", "/elsewhere", mods, 3), 1);
    /* the same file name in another directory is not the program */
    assert_int_equal(db_exe_module("./stencil", "/home/v", mods, 3), -1);
    assert_int_equal(db_exe_module("./stencil", "", mods, 3), -1);
    assert_int_equal(db_exe_module("./run.sh", "/home/u/src", mods, 3), -1);
    assert_int_equal(db_exe_module("./stencil", "/home/u/src", mods, 0), -1);
}

/* A symbolic link to the program: the module path is the link's target
 * (the kernel's name of the mapped file), found by realpath(). */
static void test_symlink(void **state)
{
    (void)state;
    char *dir = fixture_tmpdir(), real[PATH_MAX], *file, *link;
    assert_non_null(realpath(dir, real)); /* $AUGUR_TEST_TMP may itself be a link */
    assert_true(asprintf(&file, "%s/prog", real) > 0);
    assert_true(asprintf(&link, "%s/alias", real) > 0);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(symlink("prog", link), 0);
    const char *const mods[] = {"/lib/ld.so", file};
    assert_int_equal(db_exe_module("./alias", real, mods, 2), 1);
    unlink(link);
    assert_int_equal(db_exe_module("./alias", real, mods, 2), -1); /* gone: unknown, not guessed */
    unlink(file);
    rmdir(dir);
    free(file), free(link), free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join),
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_symlink),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

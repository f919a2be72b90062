/* test_fortran_name.c — gfortran module procedure symbols as
 * "module::proc" (src/util/fortran_name.h), and every other symbol left
 * alone: C, C++ and gfortran's own non-module names, malformed ones, and
 * an output buffer too small. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "util/fortran_name.h"

/* fortran_name of sym into a 64-byte buffer: the name, or "-" when none. */
static const char *named(const char *sym)
{
    static char out[64];
    strcpy(out, "-");
    return fortran_name(out, sizeof out, sym) ? out : "-";
}

static void test_module_procedures(void **state)
{
    (void)state;
    assert_string_equal(named("__grid_MOD_relax"), "grid::relax");
    assert_string_equal(named("__a_MOD_b"), "a::b");
    assert_string_equal(named("__heat_2d_MOD_step_once"), "heat_2d::step_once");
    assert_string_equal(named("__m1_MOD_f_mod_x"), "m1::f_mod_x"); /* lower-case "_mod_" is the name's */
}

static void test_other_symbols(void **state)
{
    (void)state;
    const char *keep[] = {"MAIN__",          "main",          "relax_",          "_gfortran_st_write",
                          "__grid_MOD_",     "___MOD_relax",  "__MOD_relax",     "_ZN4grid5relaxEv",
                          "__libc_start_main", "__grid_MOD_Relax", "__gr-id_MOD_relax", "_grid_MOD_relax",
                          ""};
    for (size_t i = 0; i < sizeof keep / sizeof *keep; i++)
        assert_string_equal(named(keep[i]), "-");
}

static void test_room(void **state)
{
    (void)state;
    char out[12] = "unchanged";
    assert_int_equal(fortran_name(out, 11, "__grid_MOD_relax"), 0); /* "grid::relax" needs 12 */
    assert_string_equal(out, "unchanged");
    assert_int_equal(fortran_name(out, 12, "__grid_MOD_relax"), 11);
    assert_string_equal(out, "grid::relax");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_module_procedures),
        cmocka_unit_test(test_other_symbols),
        cmocka_unit_test(test_room),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

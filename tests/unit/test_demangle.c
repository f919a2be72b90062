/* test_demangle.c — unit tests of st_demangle (demangle.c), the C++ names
 * of `augur structure`: each expected string is what `c++filt` (binutils'
 * libiberty, the demangler Valgrind carries) prints for the symbol, taken
 * from tests/programs/cxxnames_cc.cc built with g++ 12 -O1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "structure/structure.h"

/* Assert that st_demangle(mangled) is want. */
static void expect(const char *mangled, const char *want)
{
    char *got = st_demangle(mangled);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void templates_with_parameters(void **state)
{
    (void)state;
    expect("_Z3sumIiET_PKS0_m", "int sum<int>(int const*, unsigned long)");
    expect("_Z5totalIlET_RKSt6vectorIiSaIiEE", "long total<long>(std::vector<int, std::allocator<int> > const&)");
}

static void lambdas(void **state)
{
    (void)state;
    expect("_ZZ4mainENKUlRSt6vectorIiSaIiEEE_clES2_",
           "main::{lambda(std::vector<int, std::allocator<int> >&)#1}::operator()(std::vector<int, "
           "std::allocator<int> >&) const");
    expect("_ZSt16__introsort_loopIN9__gnu_cxx17__normal_iteratorIPiSt6vectorIiSaIiEEEElNS0_5__ops15_Iter_comp_"
           "iterIZ4mainEUliiE0_EEEvT_SB_T0_T1_",
           "void std::__introsort_loop<__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > "
           ">, long, __gnu_cxx::__ops::_Iter_comp_iter<main::{lambda(int, int)#2}> >(__gnu_cxx::__normal_"
           "iterator<int*, std::vector<int, std::allocator<int> > >, __gnu_cxx::__normal_iterator<int*, "
           "std::vector<int, std::allocator<int> > >, long, __gnu_cxx::__ops::_Iter_comp_iter<main::{lambda(int, "
           "int)#2}>)");
}

static void clones_keep_their_suffix(void **state)
{
    (void)state;
    expect("_Z1fi.constprop.0", "f(int) [clone .constprop.0]");
}

/* C names are never read as types: "f" is not "float", "i" not "int". */
static void other_names_unchanged(void **state)
{
    (void)state;
    expect("f", "f");
    expect("i", "i");
    expect("main", "main");
    expect("_dl_relocate_object", "_dl_relocate_object");
    expect("_Zxyz", "_Zxyz"); /* not a valid mangling */
    expect("", "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(templates_with_parameters),
        cmocka_unit_test(lambdas),
        cmocka_unit_test(clones_keep_their_suffix),
        cmocka_unit_test(other_names_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

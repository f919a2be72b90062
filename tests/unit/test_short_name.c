/* test_short_name.c — unit tests of st_short_name (format.c), the function
 * names of `augur structure`'s text output: each expected string is the
 * input with the parameter list, then the template arguments, removed by
 * hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "structure/structure.h"

static const char *shorten(const char *name, size_t width)
{
    static char buf[512];
    return st_short_name(name, width, buf, sizeof buf);
}

static void short_names_unchanged(void **state)
{
    (void)state;
    assert_string_equal(shorten("matmul", 60), "matmul");
    assert_string_equal(shorten("f(int, long)", 60), "f(int, long)");
}

static void parameters_dropped_first(void **state)
{
    (void)state;
    assert_string_equal(shorten("std::vector<int>::push_back(int const&)", 30), "std::vector<int>::push_back()");
    assert_string_equal(shorten("(anonymous namespace)::helper(std::pair<int, int>, long)", 40),
                        "(anonymous namespace)::helper()");
    assert_string_equal(shorten("Functor<double>::operator()(double const&, double const&) const", 40),
                        "Functor<double>::operator()() const");
}

static void templates_dropped_next(void **state)
{
    (void)state;
    const char *sort = "void std::__introsort_loop<__gnu_cxx::__normal_iterator<int*, std::vector<int, "
                       "std::allocator<int> > >, long, __gnu_cxx::__ops::_Iter_less_iter>(__gnu_cxx::"
                       "__normal_iterator<int*, std::vector<int, std::allocator<int> > >, __gnu_cxx::"
                       "__normal_iterator<int*, std::vector<int, std::allocator<int> > >, long, "
                       "__gnu_cxx::__ops::_Iter_less_iter)";
    assert_string_equal(shorten(sort, 60), "void std::__introsort_loop<...>()");
    assert_string_equal(shorten("a<b<c>, d>::e<f>::g(h<i>)", 20), "a<...>::e<...>::g()");
}

static void cut_last(void **state)
{
    (void)state;
    assert_string_equal(shorten("a_very_long_function_name_without_any_structure", 20), "a_very_long_funct...");
    assert_int_equal(strlen(shorten("a_very_long_function_name_without_any_structure", 20)), 20);
}

/* A buffer of width + 1 bytes, as text tables pass: the name is shortened,
 * not cut by the copy into the buffer. */
static void buffer_of_width(void **state)
{
    (void)state;
    char buf[41];
    const char *lambda = "main::{lambda(std::vector<int, std::allocator<int> >&)#1}::operator()(std::vector<int, "
                         "std::allocator<int> >&) const";
    assert_string_equal(st_short_name(lambda, 40, buf, sizeof buf), "main::{lambda()#1}::operator()() const");
    assert_string_equal(st_short_name("std::vector<int, std::allocator<int> >::push_back(int const&)", 40, buf, sizeof buf),
                        "std::vector<...>::push_back()");
    assert_string_equal(st_short_name("a_very_long_function_name_without_any_structure_at_all!", 40, buf, sizeof buf),
                        "a_very_long_function_name_without_any...");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(short_names_unchanged),
        cmocka_unit_test(parameters_dropped_first),
        cmocka_unit_test(templates_dropped_next),
        cmocka_unit_test(cut_last),
        cmocka_unit_test(buffer_of_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

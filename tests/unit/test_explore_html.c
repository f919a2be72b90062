/* test_explore_html.c — unit tests of src/explore/explore_html.c, the
 * writer of `augur explore`'s page: every marker of the template replaced,
 * the data embedded so that no string in it can end its script element
 * (each '<' written \u003c) yet parses back to the same document, and
 * reals written with every digit (the page evaluates the models' stored
 * doubles). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "explore/explore.h"

/* The page written for data, as a new string.  Not inlined: gcc 12 at -O3
 * then takes pointers into the page for pointers to the local `buf`
 * (-Wdangling-pointer, a false positive). */
__attribute__((noinline)) static char *page_of(json_t *data)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(explore_write_html(data, f), 0);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* The text of the data element, parsed back. */
static json_t *data_of(const char *page)
{
    static const char open[] = "<script type=\"application/json\" id=\"augur-data\">";
    const char *start = strstr(page, open);
    assert_non_null(start);
    start += sizeof open - 1;
    const char *end = strstr(start, "</script>");
    assert_non_null(end);
    json_error_t je;
    json_t *j = json_loadb(start, (size_t)(end - start), 0, &je);
    assert_non_null(j);
    return j;
}

static void names_cannot_end_the_script(void **state)
{
    (void)state;
    const char *name = "</script><script>alert(1)</script><!-- & \"quoted\" 'x' <b>";
    json_t *data = json_pack("{s:s, s:[s]}", "format", EXPLORE_FORMAT, "functions", name);
    char *page = page_of(data);
    /* the template's three script elements end, nothing else does */
    assert_int_equal(count(page, "</script"), 3);
    assert_int_equal(count(page, "<!--"), 1); /* the template's own comment */
    assert_null(strstr(page, "<!--augur:"));  /* every marker replaced */
    json_t *back = data_of(page);
    assert_string_equal(json_string_value(json_array_get(json_object_get(back, "functions"), 0)), name);
    json_decref(back);
    json_decref(data);
    free(page);
}

static void reals_keep_every_digit(void **state)
{
    (void)state;
    double coef = 6.997981234567891e-3, tiny = 1.0 / 3.0 * 1e-300;
    json_t *data = json_pack("{s:f, s:f}", "coef", coef, "tiny", tiny);
    char *page = page_of(data);
    json_t *back = data_of(page);
    assert_true(json_real_value(json_object_get(back, "coef")) == coef);
    assert_true(json_real_value(json_object_get(back, "tiny")) == tiny);
    json_decref(back);
    json_decref(data);
    free(page);
}

static void assets_inlined(void **state)
{
    (void)state;
    json_t *data = json_object();
    char *page = page_of(data);
    assert_non_null(strstr(page, "uPlot"));                       /* the library */
    assert_non_null(strstr(page, "function rdMisses("));          /* the page's script */
    assert_non_null(strstr(page, "Content-Security-Policy"));     /* no network */
    assert_null(strstr(page, "src=\"http"));
    json_decref(data);
    free(page);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_cannot_end_the_script),
        cmocka_unit_test(reals_keep_every_digit),
        cmocka_unit_test(assets_inlined),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* explore_html.c — the page itself: the template of src/explore/page with
 * each marker <!--augur:NAME--> replaced by what it names (the styles,
 * uPlot, the page's script, the data as JSON), so that one file holds
 * everything and opens without network (docs/explore.md). */
#include <stdlib.h>
#include <string.h>

#include "explore/explore.h"
#include "explore/explore_assets.h"

/* Write the data as JSON inside its <script type="application/json">:
 * every '<' as \u003c (only strings hold one, where JSON reads the escape
 * as the same character), so no name can close the element or open a
 * comment.  Reals with 17 digits: the models' coefficients are evaluated
 * in the page and must be the stored doubles. */
static int write_data(const json_t *data, FILE *out)
{
    char *text = json_dumps(data, JSON_COMPACT | JSON_REAL_PRECISION(17));
    if (!text)
        return -1;
    int rc = 0;
    for (const char *p = text; rc == 0 && *p;) {
        size_t run = strcspn(p, "<");
        if (fwrite(p, 1, run, out) != run)
            rc = -1;
        p += run;
        if (rc == 0 && *p == '<') {
            rc = fputs("\\u003c", out) == EOF ? -1 : 0;
            p++;
        }
    }
    free(text);
    return rc;
}

static int write_asset(const unsigned char *bytes, size_t len, FILE *out)
{
    return fwrite(bytes, 1, len, out) == len ? 0 : -1;
}

/* What marker `name` (its length n) stands for, written to out; -1 for an
 * unknown marker (a template the build and this file disagree on) or a
 * write error. */
static int write_marker(const char *name, size_t n, const json_t *data, FILE *out)
{
    static const struct {
        const char *name;
        const unsigned char *bytes;
        const size_t *len;
    } assets[] = {
        {"style", explore_page_css, &explore_page_css_len},
        {"script", explore_page_js, &explore_page_js_len},
        {"uplot-js", explore_uplot_js, &explore_uplot_js_len},
        {"uplot-css", explore_uplot_css, &explore_uplot_css_len},
    };
    if (n == 4 && !memcmp(name, "data", 4))
        return write_data(data, out);
    for (size_t i = 0; i < sizeof assets / sizeof *assets; i++)
        if (strlen(assets[i].name) == n && !memcmp(name, assets[i].name, n))
            return write_asset(assets[i].bytes, *assets[i].len, out);
    return -1;
}

int explore_write_html(const json_t *data, FILE *out)
{
    static const char open[] = "<!--augur:", close[] = "-->";
    const char *p = (const char *)explore_page_html;
    for (const char *m; (m = strstr(p, open));) {
        const char *name = m + sizeof open - 1, *end = strstr(name, close);
        if (!end || write_asset((const unsigned char *)p, (size_t)(m - p), out) != 0 ||
            write_marker(name, (size_t)(end - name), data, out) != 0)
            return -1;
        p = end + sizeof close - 1;
    }
    return fputs(p, out) == EOF ? -1 : 0;
}

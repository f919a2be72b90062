/* explore_assets.h — the files of the explore page, embedded in augur as
 * byte arrays by cmake/embed_files.cmake (src/explore/CMakeLists.txt):
 * the template, styles and script of src/explore/page/ and the vendored
 * uPlot of third_party/uplot/.  Each is NUL-terminated; _len excludes the
 * NUL. */
#ifndef AUGUR_EXPLORE_ASSETS_H
#define AUGUR_EXPLORE_ASSETS_H

#include <stddef.h>

extern const unsigned char explore_page_html[], explore_page_css[], explore_page_js[];
extern const unsigned char explore_uplot_js[], explore_uplot_css[];
extern const size_t explore_page_html_len, explore_page_css_len, explore_page_js_len;
extern const size_t explore_uplot_js_len, explore_uplot_css_len;

#endif

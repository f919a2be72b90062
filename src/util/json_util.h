/* json_util.h — building jansson values from C strings that may not be
 * valid UTF-8 (program arguments, paths and symbol names are bytes), and
 * numbers that are whole more often than not. */
#ifndef AUGUR_JSON_UTIL_H
#define AUGUR_JSON_UTIL_H

#include <jansson.h>
#include <stddef.h>

/* A JSON string of s, with every byte that is not part of a valid UTF-8
 * sequence replaced by U+FFFD; json null when s is NULL.  NULL only when
 * memory runs out. */
json_t *json_string_lossy(const char *s);

/* A JSON array of the n strings v[0..n), as json_string_lossy makes them. */
json_t *json_string_array(char *const *v, size_t n);

/* A JSON number of v: an integer when v is whole (a count, a parameter
 * such as 200), else a real. */
json_t *json_whole_or_real(double v);

#endif

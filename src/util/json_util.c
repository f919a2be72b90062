/* json_util.c — JSON strings from arbitrary bytes, numbers as integers
 * when whole (see json_util.h). */
#include "util/json_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0 when s does not
 * start one (stray continuation byte, overlong form, surrogate, > U+10FFFF). */
static size_t utf8_sequence(const unsigned char *s)
{
    unsigned char c = s[0];
    size_t n;
    unsigned char min2 = 0x80, max2 = 0xbf; /* allowed range of the second byte */
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4;
    else
        return 0;
    if (c == 0xe0)
        min2 = 0xa0;
    else if (c == 0xed)
        max2 = 0x9f;
    else if (c == 0xf0)
        min2 = 0x90;
    else if (c == 0xf4)
        max2 = 0x8f;
    if (s[1] < min2 || s[1] > max2)
        return 0;
    for (size_t i = 2; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

json_t *json_string_lossy(const char *s)
{
    if (!s)
        return json_null();
    json_t *j = json_string(s);
    if (j)
        return j;
    /* Not valid UTF-8: copy valid sequences, replace each other byte. */
    static const char replacement[] = "\xef\xbf\xbd";
    size_t len = strlen(s), o = 0;
    char *buf = malloc(3 * len + 1);
    if (!buf)
        return NULL;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_sequence(p);
        if (n) {
            memcpy(buf + o, p, n);
            o += n;
            p += n;
        } else {
            memcpy(buf + o, replacement, 3);
            o += 3;
            p++;
        }
    }
    buf[o] = '\0';
    j = json_string(buf);
    free(buf);
    return j;
}

json_t *json_string_array(char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_string_lossy(v[i])) != 0) {
            json_decref(a);
            a = NULL;
        }
    return a;
}

json_t *json_whole_or_real(double v)
{
    if (v == floor(v) && fabs(v) < 9.2e18) /* within json_int_t (long long) */
        return json_integer((json_int_t)v);
    return json_real(v);
}

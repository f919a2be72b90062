/* parse.c — strict parsers of decimal, hexadecimal, suffixed sizes and
 * decimal reals (see parse.h). */
#include "util/parse.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <strings.h>

/* Parse the digits in [s, end) in `base` (10 or 16, hex lower-case only).
 * Returns 0 and the value, or -1 when the range is empty, holds another
 * character or the value overflows 64 bits. */
static int parse_digits(const char *s, const char *end, unsigned base, uint64_t *out)
{
    if (s == end)
        return -1;
    uint64_t v = 0;
    for (; s < end; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            d = (unsigned)(*s - 'a' + 10);
        else
            return -1;
        if (v > (UINT64_MAX - d) / base)
            return -1;
        v = v * base + d;
    }
    *out = v;
    return 0;
}

static const char *end_of(const char *s)
{
    while (*s)
        s++;
    return s;
}

int parse_u64(const char *s, uint64_t *out)
{
    return parse_digits(s, end_of(s), 10, out);
}

int parse_i64(const char *s, int64_t *out)
{
    int negative = *s == '-';
    uint64_t v;
    if (parse_digits(s + negative, end_of(s), 10, &v) != 0 || v > (uint64_t)INT64_MAX + negative)
        return -1;
    *out = negative ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

int parse_hex_u64(const char *s, uint64_t *out)
{
    return parse_digits(s, end_of(s), 16, out);
}

int parse_size(const char *s, uint64_t *out)
{
    static const struct {
        const char *suffix;
        unsigned shift;
    } suffixes[] = {
        {"", 0},   {"B", 0},    {"K", 10},   {"KiB", 10},
        {"M", 20}, {"MiB", 20}, {"G", 30},   {"GiB", 30},
    };
    const char *digits_end = s;
    while (*digits_end >= '0' && *digits_end <= '9')
        digits_end++;
    uint64_t v;
    if (parse_digits(s, digits_end, 10, &v) != 0)
        return -1;
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        if (strcasecmp(digits_end, suffixes[i].suffix) != 0)
            continue;
        if (v > (UINT64_MAX >> suffixes[i].shift))
            return -1;
        *out = v << suffixes[i].shift;
        return 0;
    }
    return -1;
}

/* The end of the run of decimal digits starting at s. */
static const char *skip_digits(const char *s)
{
    while (*s >= '0' && *s <= '9')
        s++;
    return s;
}

int parse_double(const char *s, double *out)
{
    /* Check the form first: strtod alone also takes hex, inf, nan and blanks. */
    const char *p = s + (*s == '-');
    const char *int_end = skip_digits(p), *frac_end = int_end;
    if (*int_end == '.')
        frac_end = skip_digits(int_end + 1);
    if (int_end == p && frac_end <= int_end + 1)
        return -1; /* no digit before or after the point */
    p = frac_end;
    if (*p == 'e' || *p == 'E') {
        p += p[1] == '+' || p[1] == '-' ? 2 : 1;
        const char *exp_end = skip_digits(p);
        if (exp_end == p)
            return -1;
        p = exp_end;
    }
    if (*p)
        return -1;
    errno = 0;
    double v = strtod(s, NULL);
    if (!isfinite(v) || (errno == ERANGE && fabs(v) > 1))
        return -1; /* overflow; an underflow to 0 or a denormal is kept */
    *out = v;
    return 0;
}

/* numfmt.c — numbers for people: thousands grouped with ',' or plain, fixed
 * decimals per column, significant digits (numfmt.h). */
#include "util/numfmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Beyond this magnitude fixed notation would not fit NUMFMT_LEN; no count
 * augur prints comes near it (counts stop at 2^63, 9.2e18). */
#define FIXED_LIMIT 1e21

/* Copy the digits of `digits` (no sign) into out with a ',' before every
 * group of three counted from the end, then the rest (decimal point and
 * decimals) as it is.  out has room for NUMFMT_LEN bytes. */
static void group(const char *digits, num_style style, char *out)
{
    size_t n = strspn(digits, "0123456789"), o = 0;
    for (size_t i = 0; i < n; i++) {
        if (style == NUM_GROUPED && i > 0 && (n - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    snprintf(out + o, NUMFMT_LEN - o, "%s", digits + n);
}

const char *numfmt_count(uint64_t v, num_style style, char *buf)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
    group(digits, style, buf);
    return buf;
}

const char *numfmt_signed(int64_t v, num_style style, char *buf)
{
    buf[0] = v < 0 ? '-' : '+';
    numfmt_count(v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, style, buf + 1);
    return buf;
}

const char *numfmt_fixed(double v, int decimals, num_style style, char *buf)
{
    if (decimals < 0)
        decimals = 0;
    if (decimals > 9)
        decimals = 9;
    if (!isfinite(v) || fabs(v) >= FIXED_LIMIT) {
        snprintf(buf, NUMFMT_LEN, isnan(v) ? "nan" : isinf(v) ? (v < 0 ? "-inf" : "inf") : "%.3e", v);
        return buf;
    }
    char digits[NUMFMT_LEN];
    snprintf(digits, sizeof digits, "%.*f", decimals, fabs(v));
    int zero = strspn(digits, "0.") == strlen(digits); /* -0.0001 at 2 decimals is 0.00, not -0.00 */
    buf[0] = '-';
    group(digits, style, buf + (v < 0 && !zero));
    return buf;
}

int numfmt_decimals(double largest, int digits)
{
    largest = fabs(largest);
    if (!(largest > 0) || !isfinite(largest))
        return digits > 1 ? (digits - 1 > 9 ? 9 : digits - 1) : 0;
    /* Rounded first, so that 9.9996 at 4 digits (10.00) gets the decimals of 10. */
    double magnitude = floor(log10(numfmt_round_sig(largest, digits)));
    int d = digits - 1 - (int)magnitude;
    return d < 0 ? 0 : d > 9 ? 9 : d;
}

double numfmt_round_sig(double v, int digits)
{
    if (v == 0 || !isfinite(v))
        return v;
    if (digits < 1)
        digits = 1;
    if (digits > 15)
        digits = 15;
    char text[64];
    snprintf(text, sizeof text, "%.*e", digits - 1, v);
    double r;
    return sscanf(text, "%lf", &r) == 1 ? r : v;
}

int numfmt_range_digits(double v, double lo, double hi)
{
    double half = (hi - lo) / 2;
    if (!(half >= 0.5) || !isfinite(half) || v == 0 || !isfinite(v))
        return 0;
    int d = (int)floor(log10(fabs(v))) - (int)floor(log10(half)) + 1;
    return d < 2 ? 2 : d > 15 ? 15 : d;
}

double numfmt_shown(double v, double lo, double hi)
{
    int digits = numfmt_range_digits(v, lo, hi);
    return digits ? numfmt_round_sig(v, digits) : v;
}

double numfmt_range_end(double x, double lo, double hi, int high_end)
{
    if (!numfmt_range_digits(x, lo, hi) || x == 0 || !isfinite(x))
        return x;
    double unit = pow(10, floor(log10(fabs(x))) - 2);
    return (high_end ? ceil(x / unit) : floor(x / unit)) * unit;
}

const char *numfmt_range(double lo, double hi, num_style style, char *buf)
{
    char a[NUMFMT_LEN], b[NUMFMT_LEN];
    snprintf(buf, NUMFMT_RANGE_LEN, "%s to %s", numfmt_fixed(numfmt_range_end(lo, lo, hi, 0), 0, style, a),
             numfmt_fixed(numfmt_range_end(hi, lo, hi, 1), 0, style, b));
    return buf;
}

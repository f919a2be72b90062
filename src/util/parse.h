/* parse.h — small strict parsers of numbers given as text, shared by the
 * command line (option values) and the raw-profile reader (fields).
 *
 * Every parser takes the whole string: leading or trailing blanks, signs
 * (but the '-' of the signed ones), prefixes such as 0x and empty strings
 * are refused.  They return 0 on success and -1 otherwise, leaving *out
 * unchanged on failure.
 */
#ifndef AUGUR_PARSE_H
#define AUGUR_PARSE_H

#include <stdint.h>

/* Unsigned decimal ("0", "4096"); -1 on any other character or on overflow. */
int parse_u64(const char *s, uint64_t *out);

/* Signed decimal: an optional '-', then digits ("-1792", "64"), from
 * -2^63 to 2^63 - 1; a leading '+' is refused as the other signs are. */
int parse_i64(const char *s, int64_t *out);

/* Lower-case hexadecimal without prefix ("1139", "ffff"), at most 16 digits. */
int parse_hex_u64(const char *s, uint64_t *out);

/* A size in bytes: an unsigned decimal number with an optional binary
 * suffix, case-insensitive: B (bytes), K or KiB (x1024), M or MiB (x1024^2),
 * G or GiB (x1024^3).  "32K" = "32KiB" = 32768, "8M" = 8388608, "64" = 64.
 * Decimal suffixes such as KB are refused, since they are ambiguous. */
int parse_size(const char *s, uint64_t *out);

/* A finite decimal number: an optional '-', digits with an optional
 * fraction (at least one digit in all), an optional exponent e/E with an
 * optional sign ("4", "0.5", "-1.25e3", ".5").  Hexadecimal ("0x10"), "inf",
 * "nan", a leading '+' and blanks are refused, as is a value that
 * overflows a double. */
int parse_double(const char *s, double *out);

#endif

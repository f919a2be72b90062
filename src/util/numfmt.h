/* numfmt.h — numbers for people in the text output of report, predict,
 * model --show and memspy: integer parts grouped by thousands with a fixed
 * ',' (48,196,150,973), or plain (--plain-numbers) for scripts; the
 * decimal point is always '.'.  The locale is not consulted: a report reads
 * the same on every host, and a ',' cannot be taken for a decimal point
 * next to '.' decimals.
 *
 * One column, one format: a printer picks a column's decimals once
 * (numfmt_decimals from its largest value) and formats every cell with
 * them, instead of "%g" per cell (9.014 beside 1.127e-06).  JSON output
 * does not come here: its numbers stay numbers. */
#ifndef AUGUR_NUMFMT_H
#define AUGUR_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

/* How the integer part of a number is written. */
typedef enum num_style {
    NUM_GROUPED, /* 1,234,567 (the default) */
    NUM_PLAIN,   /* 1234567 */
} num_style;

/* Room for any number numfmt writes, sign, separators and 9 decimals
 * included. */
#define NUMFMT_LEN 64

/* v in buf (at least NUMFMT_LEN bytes), grouped or plain; returns buf. */
const char *numfmt_count(uint64_t v, num_style style, char *buf);

/* v with its sign always written ("+56", "-303", "+0"), grouped or plain;
 * returns buf (at least NUMFMT_LEN bytes). */
const char *numfmt_signed(int64_t v, num_style style, char *buf);

/* v rounded to `decimals` places (0 to 9), in fixed notation with its
 * integer part grouped or plain; a value that rounds to zero is written
 * without a sign.  Infinite and NaN values as "inf" and "nan".  Returns
 * buf (at least NUMFMT_LEN bytes). */
const char *numfmt_fixed(double v, int decimals, num_style style, char *buf);

/* The decimals (0 to 9) that show `digits` significant digits of
 * `largest`, the largest magnitude of a column: 0 at or above
 * 10^(digits-1).  A column of times whose largest is 9.014 s gets 3 at 4
 * digits, and its 1.127e-06 s shows as 0.000: no more precise than the
 * column's largest figure. */
int numfmt_decimals(double largest, int digits);

/* v rounded to `digits` significant digits (1 to 15), for a figure whose
 * model is good to that many: 31549013 at 4 is 31550000.  0, infinite and
 * NaN values are returned as they are. */
double numfmt_round_sig(double v, int digits);

/* The significant digits a predicted figure v with the range [lo, hi]
 * supports: those down to the decimal place of the range's half-width,
 * at least 2 (a range as wide as the value leaves one digit of meaning;
 * the second says which way it leans), at most 15.  0 when the range is
 * under one unit wide (an exact model, or no range): every digit holds.
 * 4,960,252,692 in 2,455,208,282 to 7,838,477,577 gets 2 (5,000,000,000). */
int numfmt_range_digits(double v, double lo, double hi);

/* v as a prediction with the range [lo, hi] is shown: rounded to
 * numfmt_range_digits (4,960,252,692 in 2.5e9 to 7.8e9 is 5,000,000,000);
 * every digit of a measured figure (lo = hi = 0) or an exact one. */
double numfmt_shown(double v, double lo, double hi);

/* An end x of the range [lo, hi] as shown: 3 significant digits rounded
 * outward (the low end down, the high end up when `high_end`), so that
 * rounding never narrows the range; every digit of a range under a unit
 * wide. */
double numfmt_range_end(double x, double lo, double hi, int high_end);

/* "LO to HI": the range [lo, hi] of a count as shown, each end as
 * numfmt_range_end gives it, whole numbers; returns buf (at least
 * NUMFMT_RANGE_LEN bytes). */
#define NUMFMT_RANGE_LEN (2 * NUMFMT_LEN + 4)
const char *numfmt_range(double lo, double hi, num_style style, char *buf);

#endif

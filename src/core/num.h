/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_CORE_NUM_H
#define VPK_CORE_NUM_H

/*
 * The one number parser of the library and the tools (internal, hidden
 * symbols). Every command-line option, configuration word, file field and
 * JSON number goes through it, so every value obeys the same rules:
 *
 *  - the whole text is the number: no leading blanks, no trailing text
 *    ("12x", "1 0", "5%" are refused, "" too);
 *  - unsigned integers: decimal digits, or 0x/0X and hex digits; a leading
 *    zero is still decimal ("010" is ten; no octal); no sign, so "-1" is
 *    refused instead of wrapping to 2^64-1;
 *  - signed integers: an optional '-' and decimal digits;
 *  - reals: [-]digits[.digits][(e|E)[+|-]digits] (or .digits); "nan",
 *    "inf", hex floats and values that overflow or underflow a double are
 *    refused;
 *  - every value is checked against the caller's [lo, hi] and overflow is
 *    never saturated ("99999999999999999999999" is out of range, not
 *    UINT64_MAX).
 *
 * On failure the functions return -EINVAL (not a number) or -ERANGE (out of
 * range) and write a reason that quotes the text, e.g.
 * "'nan' is not a finite number" or "'0' is out of range 1..64"; the caller
 * puts the option's or the file line's name in front. Control characters
 * in the quoted text are shown as '?', so the reason stays one line.
 */
#include <stddef.h>
#include <stdint.h>

/* The text [s, s + n) (need not be NUL-terminated) as an unsigned integer in [lo, hi]. */
int vpk_num_u64n(const char *s, size_t n, uint64_t lo, uint64_t hi, uint64_t *out, char *why, size_t len);
/* The same for a NUL-terminated string (NULL is "empty value"). */
int vpk_num_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out, char *why, size_t len);
/* Convenience forms for the common destination types. */
int vpk_num_uint(const char *s, unsigned lo, unsigned hi, unsigned *out, char *why, size_t len);
int vpk_num_size(const char *s, size_t lo, size_t hi, size_t *out, char *why, size_t len);

/* A signed decimal integer in [lo, hi]. */
int vpk_num_i64(const char *s, int64_t lo, int64_t hi, int64_t *out, char *why, size_t len);

/* A finite real in [lo, hi]. */
int vpk_num_f64n(const char *s, size_t n, double lo, double hi, double *out, char *why, size_t len);
int vpk_num_f64(const char *s, double lo, double hi, double *out, char *why, size_t len);

/*
 * A comma-separated list of unsigned integers, each in [lo, hi], at most
 * max of them ("1,8,32"); empty items and a trailing comma are refused.
 * Returns the count (>= 1) or a negative errno with the reason.
 */
int vpk_num_list(const char *s, unsigned lo, unsigned hi, unsigned *out, size_t max, char *why, size_t len);

/*
 * A list of values and ranges, "0,2-5,8" (CPU lists), each value <= hi,
 * ranges low-high with low <= high, expanded in order into out (at most max).
 * Returns the count (>= 1) or a negative errno with the reason.
 */
int vpk_num_ranges(const char *s, unsigned hi, unsigned *out, size_t max, char *why, size_t len);

/* a * b + c into *out; -EOVERFLOW (and *out untouched) when it does not fit
 * a size_t. For allocation sizes computed from input. */
int vpk_num_size_mul(size_t a, size_t b, size_t c, size_t *out);

/* Quote [s, s + n) into dst for a message: at most 40 characters, control
 * characters as '?', "..." when cut. Returns dst. */
const char *vpk_num_quote(char *dst, size_t dlen, const char *s, size_t n);

#endif /* VPK_CORE_NUM_H */

/* Helpers of xlang_c: "--name value" options and JSON output. */
#ifndef QUEUEY_XLANG_UTIL_H
#define QUEUEY_XLANG_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define XLANG_MAX_OPTIONS 8

/* Parsed "--name value" pairs; names and values point into argv. */
struct xlang_args {
    const char *names[XLANG_MAX_OPTIONS];
    const char *values[XLANG_MAX_OPTIONS];
    int count;
};

/* Parses argv (after the subcommand) accepting only the NULL-terminated names in known.
   Returns 0, or 1 after printing the problem to stderr. */
int xlang_parse_args(int argc, char **argv, const char *const *known, struct xlang_args *out);

/* The value of --name, or NULL. */
const char *xlang_arg(const struct xlang_args *args, const char *name);

/* The value of --name, or NULL after printing "--name is required". */
const char *xlang_required(const struct xlang_args *args, const char *name);

/* Stores the number given as --name (fallback when absent) in *out. Returns 0, or 1
   after printing why the value is not a non-negative integer. */
int xlang_number(const struct xlang_args *args, const char *name, uint64_t fallback, uint64_t *out);

/* Writes data as a JSON string literal (quotes included); bytes of 0x80 and above are
   copied as they are, so UTF-8 stays UTF-8. */
void xlang_json_string(FILE *out, const char *data, size_t len);

#endif

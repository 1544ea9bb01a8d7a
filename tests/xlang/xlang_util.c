#include "xlang_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int xlang_parse_args(int argc, char **argv, const char *const *known, struct xlang_args *out) {
    out->count = 0;
    for (int i = 0; i < argc; i += 2) {
        const char *flag = argv[i];
        const char *const *k = known;
        if (strncmp(flag, "--", 2) == 0)
            while (*k != NULL && strcmp(*k, flag + 2) != 0) ++k;
        if (strncmp(flag, "--", 2) != 0 || *k == NULL) {
            fprintf(stderr, "xlang_c: unknown argument %s\n", flag);
            return 1;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "xlang_c: %s needs a value\n", flag);
            return 1;
        }
        if (xlang_arg(out, *k) != NULL || out->count == XLANG_MAX_OPTIONS) {
            fprintf(stderr, "xlang_c: %s given twice\n", flag);
            return 1;
        }
        out->names[out->count] = *k;
        out->values[out->count++] = argv[i + 1];
    }
    return 0;
}

const char *xlang_arg(const struct xlang_args *args, const char *name) {
    for (int i = 0; i < args->count; ++i)
        if (strcmp(args->names[i], name) == 0) return args->values[i];
    return NULL;
}

const char *xlang_required(const struct xlang_args *args, const char *name) {
    const char *value = xlang_arg(args, name);
    if (value == NULL) fprintf(stderr, "xlang_c: --%s is required\n", name);
    return value;
}

int xlang_number(const struct xlang_args *args, const char *name, uint64_t fallback,
                 uint64_t *out) {
    const char *text = xlang_arg(args, name);
    char *end = NULL;
    if (text == NULL) {
        *out = fallback;
        return 0;
    }
    errno = 0;
    *out = strtoull(text, &end, 10);
    if (*text < '0' || *text > '9' || *end != '\0' || errno != 0) {
        fprintf(stderr, "xlang_c: --%s: not a non-negative integer: %s\n", name, text);
        return 1;
    }
    return 0;
}

void xlang_json_string(FILE *out, const char *data, size_t len) {
    fputc('"', out);
    for (size_t i = 0; i < len; ++i) {
        const unsigned char c = (unsigned char)data[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

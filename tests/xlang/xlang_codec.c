/* xlang_c codec FILE [TRANSITION]: decode a body with qy_envelope_from_bytes, apply
   next_attempt or deferred:P, print qy_envelope_to_bytes without a newline. */
#include "xlang_commands.h"

#include <queuey/queuey.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads the whole file into a malloc'ed buffer; NULL on error. */
static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    size_t cap = 0, n;
    *len = 0;
    if (f == NULL) return NULL;
    do {
        if (*len == cap) {
            char *grown = realloc(data, cap = cap * 2 + 4096);
            if (grown == NULL) break;
            data = grown;
        }
        n = fread(data + *len, 1, cap - *len, f);
        *len += n;
    } while (n > 0);
    if (ferror(f) || *len == cap) {
        free(data);
        data = NULL;
    }
    fclose(f);
    return data;
}

static qy_status transition(const qy_envelope *env, const char *name, qy_envelope **out,
                            qy_error **err) {
    char *end = NULL;
    unsigned long priority;
    if (strcmp(name, "next_attempt") == 0) return qy_envelope_next_attempt(env, out, err);
    if (strncmp(name, "deferred:", 9) == 0) {
        priority = strtoul(name + 9, &end, 10);
        if (end != name + 9 && *end == '\0' && priority <= 255)
            return qy_envelope_deferred(env, (uint8_t)priority, out, err);
    }
    fprintf(stderr, "xlang_c: unknown transition %s\n", name);
    return QY_ERR_INVALID_ARGUMENT;
}

int xlang_codec(int argc, char **argv) {
    qy_envelope *env = NULL, *next = NULL;
    qy_error *err = NULL;
    char *body = NULL, *data = NULL;
    size_t len = 0;
    qy_status status = QY_ERR_INVALID_ARGUMENT;
    if (argc < 1 || argc > 2) {
        fprintf(stderr, "usage: xlang_c codec FILE [next_attempt | deferred:P]\n");
        return 1;
    }
    data = read_file(argv[0], &len);
    if (data == NULL) {
        fprintf(stderr, "xlang_c: cannot read %s\n", argv[0]);
        return 1;
    }
    status = qy_envelope_from_bytes(data, len, &env, &err);
    if (status == QY_OK && argc == 2) status = transition(env, argv[1], &next, &err);
    if (status == QY_OK)
        status = qy_envelope_to_bytes(next != NULL ? next : env, &body, &len, &err);
    if (status == QY_OK)
        fwrite(body, 1, len, stdout);
    else if (err != NULL)
        fprintf(stderr, "xlang_c: %s: %s\n", qy_status_name(status), qy_error_message(err));
    qy_string_free(body);
    qy_error_free(err);
    qy_envelope_free(next);
    qy_envelope_free(env);
    free(data);
    return status == QY_OK ? 0 : 1;
}

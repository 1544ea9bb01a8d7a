/* vectors.c: see vectors.h. */
#include "vectors.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *why, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(why, QYT_WHY_SIZE, format, args);
    va_end(args);
    return 0;
}

/* The bytes of dir/sub/name, NUL-terminated; NULL with why on failure. */
static char *read_file(const char *dir, const char *sub, const char *name, size_t *len, char *why) {
    char path[1024];
    FILE *file;
    char *data = NULL;
    size_t size = 0, capacity = 0, got;

    if (snprintf(path, sizeof path, "%s/%s%s", dir, sub, name) >= (int)sizeof path) {
        fail(why, "path too long: %s/%s%s", dir, sub, name);
        return NULL;
    }
    file = fopen(path, "rb");
    if (file == NULL) {
        fail(why, "cannot open %s", path);
        return NULL;
    }
    do {
        if (capacity - size < 4096) {
            char *bigger = (char *)realloc(data, capacity + 65536);
            if (bigger == NULL) break;
            data = bigger;
            capacity += 65536;
        }
        got = fread(data + size, 1, capacity - size - 1, file);
        size += got;
    } while (got > 0);
    if (ferror(file) || !feof(file)) {
        fclose(file);
        free(data);
        fail(why, "cannot read %s", path);
        return NULL;
    }
    fclose(file);
    data[size] = '\0';
    *len = size;
    return data;
}

/* Splits line at tabs into exactly `columns` cells. */
static int split_row(char *line, size_t columns, char **cells) {
    size_t n = 0;
    cells[n++] = line;
    for (; *line != '\0'; ++line) {
        if (*line != '\t') continue;
        if (n == columns) return 0;
        *line = '\0';
        cells[n++] = line + 1;
    }
    return n == columns;
}

int qyt_table_load(const char *dir, const char *name, size_t columns, qyt_table *table, char *why) {
    size_t len, lines = 0, i;
    char *line, *header[QYT_MAX_COLUMNS];

    memset(table, 0, sizeof *table);
    table->columns = columns;
    if (columns == 0 || columns > QYT_MAX_COLUMNS) return fail(why, "bad column count");
    table->text = read_file(dir, "", name, &len, why);
    if (table->text == NULL) return 0;
    for (i = 0; i < len; ++i) lines += table->text[i] == '\n';
    table->cells = (char *(*)[QYT_MAX_COLUMNS])calloc(lines + 1, sizeof *table->cells);
    if (table->cells == NULL) return fail(why, "out of memory");

    for (line = table->text, i = 0; *line != '\0'; ++i) {
        char *end = strchr(line, '\n');
        char **cells = i == 0 ? header : table->cells[table->rows++];
        if (end != NULL) *end = '\0';
        if (!split_row(line, columns, cells))
            return fail(why, "%s line %lu: expected %lu tab-separated columns", name,
                        (unsigned long)(i + 1), (unsigned long)columns);
        line = end != NULL ? end + 1 : line + strlen(line);
    }
    if (i == 0) return fail(why, "%s is empty", name);
    return 1;
}

void qyt_table_free(qyt_table *table) {
    free(table->text);
    free(table->cells);
    memset(table, 0, sizeof *table);
}

char *qyt_read_body(const char *dir, const char *name, size_t *len, char *why) {
    return read_file(dir, "bodies/", name, len, why);
}

/* Fills why from err, then frees err. */
static int fail_with_error(char *why, const char *what, qy_status status, qy_error *err) {
    fail(why, "%s: %s (%s)", what, qy_status_name(status), qy_error_message(err));
    qy_error_free(err);
    return 0;
}

int qyt_decode_body(const char *dir, const char *name, qy_envelope **out, char *why) {
    qy_error *err = NULL;
    qy_status status;
    size_t len;
    char *body = qyt_read_body(dir, name, &len, why);

    *out = NULL;
    if (body == NULL) return 0;
    status = qy_envelope_from_bytes(body, len, out, &err);
    free(body);
    if (status != QY_OK) return fail_with_error(why, name, status, err);
    return 1;
}

int qyt_expect_encoding(const qy_envelope *env, const char *dir, const char *expected, char *why) {
    qy_error *err = NULL;
    char *got = NULL;
    size_t got_len = 0, want_len = 0, at = 0;
    int same;
    char *want;
    qy_status status = qy_envelope_to_bytes(env, &got, &got_len, &err);

    if (status != QY_OK) return fail_with_error(why, "qy_envelope_to_bytes", status, err);
    want = qyt_read_body(dir, expected, &want_len, why);
    if (want == NULL) {
        qy_string_free(got);
        return 0;
    }
    while (at < got_len && at < want_len && got[at] == want[at]) ++at;
    same = got_len == want_len && at == got_len && got[got_len] == '\0';
    if (!same)
        fail(why,
             "encoding differs from %s at byte %lu (lengths %lu, %lu):\n  got:  %s\n  want: %s",
             expected, (unsigned long)at, (unsigned long)got_len, (unsigned long)want_len, got,
             want);
    qy_string_free(got);
    free(want);
    return same;
}

int qyt_apply_transition(const qy_envelope *env, const char *transition, qy_envelope **out,
                         char *why) {
    static const char deferred[] = "deferred:";
    qy_error *err = NULL;
    qy_status status;

    *out = NULL;
    if (strcmp(transition, "next_attempt") == 0) {
        status = qy_envelope_next_attempt(env, out, &err);
    } else if (strncmp(transition, deferred, sizeof deferred - 1) == 0) {
        const char *digits = transition + sizeof deferred - 1;
        char *end;
        unsigned long priority = strtoul(digits, &end, 10);
        if (*digits < '0' || *digits > '9' || *end != '\0' || priority > 255)
            return fail(why, "bad priority in transition %s", transition);
        status = qy_envelope_deferred(env, (uint8_t)priority, out, &err);
    } else {
        return fail(why, "unknown transition %s", transition);
    }
    if (status != QY_OK) return fail_with_error(why, transition, status, err);
    return 1;
}

int qyt_check_valid(const char *dir, char *const *row, char *why) {
    qy_envelope *env;
    int ok = qyt_decode_body(dir, row[1], &env, why) && qyt_expect_encoding(env, dir, row[2], why);
    qy_envelope_free(env);
    return ok;
}

int qyt_check_transition(const char *dir, char *const *row, char *why) {
    qy_envelope *env, *next = NULL;
    int ok = qyt_decode_body(dir, row[1], &env, why) &&
             qyt_apply_transition(env, row[2], &next, why) &&
             qyt_expect_encoding(next, dir, row[3], why);
    qy_envelope_free(next);
    qy_envelope_free(env);
    return ok;
}

int qyt_check_malformed(const char *dir, char *const *row, char *why) {
    qy_envelope *env = NULL;
    qy_error *err = NULL;
    qy_status status;
    const char *field;
    size_t len;
    int ok = 0;
    char *body = qyt_read_body(dir, row[1], &len, why);

    if (body == NULL) return 0;
    status = qy_envelope_from_bytes(body, len, &env, &err);
    free(body);
    field = qy_error_field(err);
    if (status == QY_OK || strcmp(qy_status_name(status), row[2]) != 0)
        fail(why, "status %s, expected %s", qy_status_name(status), row[2]);
    else if (env != NULL)
        fail(why, "*out is not NULL after a failure");
    else if (err == NULL || qy_error_status(err) != status)
        fail(why, "no error object, or one with another status");
    else if (field == NULL || strcmp(field, row[3]) != 0)
        fail(why, "qy_error_field is %s, expected %s", field ? field : "NULL", row[3]);
    else if (strstr(qy_error_message(err), row[3]) == NULL)
        fail(why, "message \"%s\" does not name %s", qy_error_message(err), row[3]);
    else
        ok = 1;
    qy_envelope_free(env);
    qy_error_free(err);
    return ok;
}

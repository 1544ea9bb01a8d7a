/*
 * vectors.h: the golden envelope vectors (tests/vectors/) run through the C API.
 *
 * Shared by the GoogleTest C API test, the pure C99 runner and the installed-package
 * consumer, so that all three check the same thing in the same way. C99, standard C
 * headers and <queuey/queuey.h> only.
 *
 * `dir` is always the tests/vectors directory; bodies are read from dir/bodies/.
 * Every check returns 1 when it holds; otherwise 0 with the reason written to `why`
 * (QYT_WHY_SIZE bytes).
 */
#ifndef QUEUEY_TESTS_VECTORS_H
#define QUEUEY_TESTS_VECTORS_H

#include <queuey/queuey.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QYT_WHY_SIZE 512
#define QYT_MAX_COLUMNS 4

/* A TSV file without its header line: rows x columns cells, each NUL-terminated. */
typedef struct qyt_table {
    char *text;
    size_t rows;
    size_t columns;
    char *(*cells)[QYT_MAX_COLUMNS];
} qyt_table;

/* Loads dir/name, whose header must have `columns` columns; every row must too. */
int qyt_table_load(const char *dir, const char *name, size_t columns, qyt_table *table, char *why);
void qyt_table_free(qyt_table *table);

/* The exact bytes of dir/bodies/name, NUL-terminated for convenience (the NUL is not
   counted in *len). Free with free(). */
char *qyt_read_body(const char *dir, const char *name, size_t *len, char *why);

/* Decodes dir/bodies/name into *out. */
int qyt_decode_body(const char *dir, const char *name, qy_envelope **out, char *why);

/* Encodes env and compares the result with dir/bodies/expected byte for byte. */
int qyt_expect_encoding(const qy_envelope *env, const char *dir, const char *expected, char *why);

/* Applies a transitions.tsv transition ("next_attempt" or "deferred:N") to env. */
int qyt_apply_transition(const qy_envelope *env, const char *transition, qy_envelope **out,
                         char *why);

/* One row of valid.tsv (name, input, canonical): decode, encode, compare. */
int qyt_check_valid(const char *dir, char *const *row, char *why);

/* One row of transitions.tsv (name, input, transition, expected). */
int qyt_check_transition(const char *dir, char *const *row, char *why);

/* One row of malformed.tsv (name, input, status, field): decoding fails with that status,
 *out stays NULL, qy_error_field() is the field and the message names it. */
int qyt_check_malformed(const char *dir, char *const *row, char *why);

#ifdef __cplusplus
}
#endif

#endif /* QUEUEY_TESTS_VECTORS_H */

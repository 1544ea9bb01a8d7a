/*
 * c99_vectors: every golden vector through the C API, from strict C99.
 *
 * Usage: c99_vectors VECTORS_DIR. Prints one line per failing vector and a summary;
 * exits 1 if any vector fails. Built with -std=c99 -pedantic -Werror, so it also proves
 * that <queuey/queuey.h> is a clean C99 header.
 */
#include <queuey/queuey.h>

#include <stdio.h>

#include "vectors.h"

typedef int (*row_check)(const char *dir, char *const *row, char *why);

struct suite {
    const char *file;
    size_t columns;
    row_check check;
};

static const struct suite suites[] = {
    {"valid.tsv", 3, qyt_check_valid},
    {"transitions.tsv", 4, qyt_check_transition},
    {"malformed.tsv", 4, qyt_check_malformed},
};

int main(int argc, char **argv) {
    unsigned long passed = 0, failed = 0;
    size_t s, r;
    char why[QYT_WHY_SIZE];

    if (argc != 2) {
        fprintf(stderr, "usage: %s VECTORS_DIR\n", argv[0]);
        return 2;
    }
    for (s = 0; s < sizeof suites / sizeof suites[0]; ++s) {
        qyt_table table;
        int loaded = qyt_table_load(argv[1], suites[s].file, suites[s].columns, &table, why);
        if (!loaded || table.rows == 0) {
            printf("FAIL %s: %s\n", suites[s].file, loaded ? "no rows" : why);
            ++failed;
            qyt_table_free(&table);
            continue;
        }
        for (r = 0; r < table.rows; ++r) {
            if (suites[s].check(argv[1], table.cells[r], why)) {
                ++passed;
            } else {
                printf("FAIL %s %s: %s\n", suites[s].file, table.cells[r][0], why);
                ++failed;
            }
        }
        qyt_table_free(&table);
    }
    printf("c99_vectors: %lu passed, %lu failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}

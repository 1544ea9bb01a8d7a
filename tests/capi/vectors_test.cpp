// Every golden vector through the C API (the checks themselves are in vectors.c, shared
// with the C99 runner).
#include "capi_test.hpp"

namespace {

using RowCheck = int (*)(const char *, char *const *, char *);

void check_every_row(const char *file, size_t columns, RowCheck check) {
    char why[QYT_WHY_SIZE];
    qyt_table table;
    const bool loaded = qyt_table_load(qyt::vectors_dir, file, columns, &table, why);
    EXPECT_TRUE(loaded) << why;
    EXPECT_GT(table.rows, 0u) << file << " has no rows";
    for (size_t r = 0; loaded && r < table.rows; ++r)
        EXPECT_TRUE(check(qyt::vectors_dir, table.cells[r], why))
            << file << " " << table.cells[r][0] << ": " << why;
    qyt_table_free(&table);
}

TEST(Vectors, ValidBodiesReencodeCanonically) { check_every_row("valid.tsv", 3, qyt_check_valid); }

TEST(Vectors, Transitions) { check_every_row("transitions.tsv", 4, qyt_check_transition); }

TEST(Vectors, MalformedBodiesFailWithTheirStatusAndField) {
    check_every_row("malformed.tsv", 4, qyt_check_malformed);
}

}  // namespace

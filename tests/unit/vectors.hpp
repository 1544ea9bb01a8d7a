// Loads the golden vectors of tests/vectors/ (see its README) for the C++ tests.
#pragma once

#include <string>
#include <vector>

namespace queuey::test {

// One row of a TSV file, columns in file order, the header line skipped.
using Row = std::vector<std::string>;

std::vector<Row> read_tsv(const std::string &name);
// The exact bytes of tests/vectors/bodies/NAME.
std::string read_body(const std::string &name);

}  // namespace queuey::test

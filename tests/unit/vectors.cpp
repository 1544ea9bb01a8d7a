#include "vectors.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace queuey::test {

namespace {

std::string read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

}  // namespace

std::vector<Row> read_tsv(const std::string &name) {
    std::istringstream lines(read_file(std::string(QUEUEY_VECTORS_DIR) + "/" + name));
    std::vector<Row> rows;
    std::string line;
    std::getline(lines, line);  // header
    while (std::getline(lines, line)) {
        if (line.empty()) continue;
        Row row;
        std::istringstream cells(line);
        for (std::string cell; std::getline(cells, cell, '\t');) row.push_back(cell);
        rows.push_back(row);
    }
    if (rows.empty()) throw std::runtime_error(name + " has no vectors");
    return rows;
}

std::string read_body(const std::string &name) {
    return read_file(std::string(QUEUEY_VECTORS_DIR) + "/bodies/" + name);
}

}  // namespace queuey::test

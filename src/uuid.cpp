#include "uuid.hpp"

#include <uuid/uuid.h>

#include <array>
#include <stdexcept>

namespace queuey {

std::string new_uuid_v4() {
    uuid_t id;
    uuid_generate_random(id);
    char text[37];
    uuid_unparse_lower(id, text);
    return std::string(text, 36);
}

std::string name_based_uuid_v5(std::string_view namespace_id, std::string_view name) {
    uuid_t space, id;
    const std::string space_text(namespace_id);
    if (uuid_parse(space_text.c_str(), space) != 0)
        throw std::invalid_argument("not a UUID: " + space_text);
    uuid_generate_sha1(id, space, name.data(), name.size());
    char text[37];
    uuid_unparse_lower(id, text);
    return std::string(text, 36);
}

namespace {

// Each hex digit in lowercase; 0 for every other byte. Every decode normalizes an id.
constexpr std::array<char, 256> lowercase_hex_digits = [] {
    std::array<char, 256> lower{};
    for (char c = '0'; c <= '9'; ++c) lower[static_cast<unsigned char>(c)] = c;
    for (char c = 'a'; c <= 'f'; ++c) {
        lower[static_cast<unsigned char>(c)] = c;
        lower[static_cast<unsigned char>(c - 'a' + 'A')] = c;
    }
    return lower;
}();

}  // namespace

std::optional<std::string> normalize_hyphenated_uuid(std::string_view text) {
    if (text.size() != 36) return std::nullopt;
    std::string lower(text);
    // Five groups of hex digits, each but the first after a hyphen.
    std::size_t i = 0;
    for (const std::size_t group_end : {8, 13, 18, 23, 36}) {
        if (i != 0 && lower[i++] != '-') return std::nullopt;
        for (; i < group_end; ++i)
            if ((lower[i] = lowercase_hex_digits[static_cast<unsigned char>(lower[i])]) == 0)
                return std::nullopt;
    }
    return lower;
}

}  // namespace queuey

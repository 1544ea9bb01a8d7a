#include "uuid.hpp"

#include <uuid/uuid.h>

namespace queuey {

std::string new_uuid_v4() {
    uuid_t id;
    uuid_generate_random(id);
    char text[37];
    uuid_unparse_lower(id, text);
    return std::string(text, 36);
}

std::optional<std::string> normalize_hyphenated_uuid(std::string_view text) {
    if (text.size() != 36) return std::nullopt;
    std::string lower(text);
    for (std::size_t i = 0; i < lower.size(); ++i) {
        char &c = lower[i];
        const bool hyphen_position = i == 8 || i == 13 || i == 18 || i == 23;
        if (hyphen_position) {
            if (c != '-') return std::nullopt;
        } else if (c >= 'A' && c <= 'F') {
            c = static_cast<char>(c - 'A' + 'a');
        } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            return std::nullopt;
        }
    }
    return lower;
}

}  // namespace queuey

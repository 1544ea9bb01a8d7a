#include "utf8.hpp"

#include <rapidjson/encodings.h>
#include <rapidjson/memorystream.h>

namespace queuey {

bool is_valid_utf8(std::string_view text) {
    rapidjson::MemoryStream stream(text.data(), text.size());
    while (stream.Tell() < text.size()) {
        // Validate() rejects overlong forms, surrogates and code points past U+10FFFF.
        struct Discard {
            void Put(char) {}
        } sink;
        if (!rapidjson::UTF8<>::Validate(stream, sink)) return false;
    }
    return true;
}

std::string_view truncate_utf8(std::string_view text, std::size_t max_bytes) {
    if (text.size() <= max_bytes) return text;
    std::size_t cut = max_bytes;
    // Step back over continuation bytes (10xxxxxx) to the start of the cut character.
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return text.substr(0, cut);
}

}  // namespace queuey

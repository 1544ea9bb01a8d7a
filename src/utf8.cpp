#include "utf8.hpp"

#include <rapidjson/encodings.h>
#include <rapidjson/memorystream.h>

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace queuey {

bool is_valid_utf8(std::string_view text) {
    const char *at = text.data();
    const char *const end = at + text.size();
    for (;;) {
        // Most text is ASCII: skip it 64 bytes at a time where SSE2 is, then eight, then
        // byte by byte, and again after every other character.
#if defined(__SSE2__)
        for (; end - at >= 64; at += 64) {
            const auto *block = reinterpret_cast<const __m128i *>(at);
            const __m128i any = _mm_or_si128(
                _mm_or_si128(_mm_loadu_si128(block), _mm_loadu_si128(block + 1)),
                _mm_or_si128(_mm_loadu_si128(block + 2), _mm_loadu_si128(block + 3)));
            if (_mm_movemask_epi8(any) != 0) break;
        }
#endif
        for (std::uint64_t word; end - at >= 8; at += 8) {
            std::memcpy(&word, at, 8);
            if (word & 0x8080808080808080u) break;
        }
        while (at != end && static_cast<unsigned char>(*at) < 0x80) ++at;
        if (at == end) return true;
        // Validate() rejects overlong forms, surrogates and code points past U+10FFFF.
        rapidjson::MemoryStream stream(at, static_cast<std::size_t>(end - at));
        struct Discard {
            void Put(char) {}
        } sink;
        if (!rapidjson::UTF8<>::Validate(stream, sink)) return false;
        at += stream.Tell();
    }
}

namespace {

// The length of the character that lead starts, by its bit pattern; 0 for a byte that
// starts none (a continuation byte, or 0xF8 and above).
std::size_t sequence_length(unsigned char lead) {
    if (lead < 0x80) return 1;
    if ((lead & 0xE0) == 0xC0) return 2;
    if ((lead & 0xF0) == 0xE0) return 3;
    if ((lead & 0xF8) == 0xF0) return 4;
    return 0;
}

}  // namespace

std::string valid_utf8(std::string_view text) {
    if (is_valid_utf8(text)) return std::string(text);
    std::string out;
    out.reserve(text.size());
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t length = sequence_length(static_cast<unsigned char>(text[at]));
        const std::string_view character = text.substr(at, length);
        if (length > 0 && character.size() == length && is_valid_utf8(character)) {
            out += character;
            at += length;
        } else {
            out += "\xEF\xBF\xBD";  // U+FFFD, for one byte
            ++at;
        }
    }
    return out;
}

std::string_view truncate_utf8(std::string_view text, std::size_t max_bytes) {
    if (text.size() <= max_bytes) return text;
    std::size_t cut = max_bytes;
    // Step back over continuation bytes (10xxxxxx) to the start of the cut character.
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return text.substr(0, cut);
}

}  // namespace queuey

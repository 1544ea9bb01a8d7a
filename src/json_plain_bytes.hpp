// The bytes that stand for themselves inside a JSON string: all but '"', '\\' and those
// below 0x20. The encoder escapes the others, and the compact reader stops at them; both
// look at every byte of every string, so this is done 16 bytes at a time where SSE2 is
// (every x86-64), else a word at a time.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace queuey {

// Skips the 32-byte blocks of plain bytes from `at` where the CPU has AVX2 (checked once,
// at run time; a megabyte payload's scan is most of what decoding it costs), noting bytes
// from 0x80 up. The block with a special byte, the last fewer than 32 bytes, and all of
// them on another CPU are left to the caller.
const char *skip_plain_blocks_avx2(const char *at, const char *end, bool &non_ascii);

inline constexpr std::array<bool, 256> json_plain_bytes = [] {
    std::array<bool, 256> plain{};
    for (int byte = 0x20; byte < 256; ++byte) plain[byte] = byte != '"' && byte != '\\';
    return plain;
}();

// The first byte in [at, end) that is not plain, or end. It also sets non_ascii when a
// byte it skipped is 0x80 or above (or maybe a byte after those: it never misses one), so
// that a caller checks UTF-8 only where there is more than ASCII.
inline const char *skip_json_plain_bytes(const char *at, const char *end, bool &non_ascii) {
    // Not for a short string, which would pay the call for nothing.
    constexpr std::ptrdiff_t long_string = 256;
    if (end - at >= long_string) at = skip_plain_blocks_avx2(at, end, non_ascii);
#if defined(__SSE2__)
    const __m128i max_control = _mm_set1_epi8(0x1f), quote = _mm_set1_epi8('"'),
                  backslash = _mm_set1_epi8('\\');
    __m128i seen = _mm_setzero_si128();  // the bytes looked at, or-ed: their top bits
    for (; end - at >= 16; at += 16) {
        const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(at));
        seen = _mm_or_si128(seen, bytes);
        // A byte is at most 0x1f (unsigned) when the smaller of it and 0x1f is itself.
        const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(bytes, max_control), bytes);
        const __m128i special = _mm_or_si128(
            control, _mm_or_si128(_mm_cmpeq_epi8(bytes, quote), _mm_cmpeq_epi8(bytes, backslash)));
        if (const int mask = _mm_movemask_epi8(special)) {
            non_ascii |= _mm_movemask_epi8(seen) != 0;
            return at + std::countr_zero(static_cast<unsigned>(mask));
        }
    }
    non_ascii |= _mm_movemask_epi8(seen) != 0;
#endif
    constexpr std::uint64_t ones = 0x0101010101010101u, high_bits = 0x8080808080808080u;
    // The high bit of each byte below `limit` (at most 0x80). Bytes above the lowest such
    // byte may be flagged wrongly (by its borrow), never those below it: the lowest flag
    // is exact.
    const auto bytes_below = [](std::uint64_t word, std::uint64_t limit) {
        return (word - ones * limit) & ~word & high_bits;
    };
    for (std::uint64_t word; end - at >= 8; at += 8) {
        std::memcpy(&word, at, 8);
        non_ascii |= (word & high_bits) != 0;
        const std::uint64_t special = bytes_below(word, 0x20) |
                                      bytes_below(word ^ (ones * '"'), 1) |
                                      bytes_below(word ^ (ones * '\\'), 1);
        if (special == 0) continue;
        if constexpr (std::endian::native == std::endian::little)
            return at + std::countr_zero(special) / 8;
        break;
    }
    for (; at != end && json_plain_bytes[static_cast<unsigned char>(*at)]; ++at)
        non_ascii |= static_cast<unsigned char>(*at) >= 0x80;
    return at;
}

// For a caller that checks no UTF-8 (the encoder).
inline const char *skip_json_plain_bytes(const char *at, const char *end) {
    bool unused = false;
    return skip_json_plain_bytes(at, end, unused);
}

}  // namespace queuey

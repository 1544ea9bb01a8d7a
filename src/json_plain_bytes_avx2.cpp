#include "json_plain_bytes.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace queuey {

#if defined(__x86_64__) && defined(__GNUC__)

namespace {

__attribute__((target("avx2"))) const char *skip_blocks(const char *at, const char *end,
                                                       bool &non_ascii) {
    // '"' and the bytes below 0x20 in one test: with bit 1 flipped, '"' (0x22) becomes
    // 0x20, the others stay below it, and no other byte reaches 0x20 or below.
    const __m256i flip = _mm256_set1_epi8(0x02), max_control_or_quote = _mm256_set1_epi8(0x20),
                  backslash = _mm256_set1_epi8('\\');
    __m256i seen = _mm256_setzero_si256();  // the bytes looked at, or-ed: their top bits
    for (; end - at >= 32; at += 32) {
        const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(at));
        const __m256i flipped = _mm256_xor_si256(bytes, flip);
        const __m256i special = _mm256_or_si256(
            _mm256_cmpeq_epi8(_mm256_min_epu8(flipped, max_control_or_quote), flipped),
            _mm256_cmpeq_epi8(bytes, backslash));
        if (_mm256_movemask_epi8(special) != 0) break;
        seen = _mm256_or_si256(seen, bytes);
    }
    non_ascii |= _mm256_movemask_epi8(seen) != 0;
    return at;
}

}  // namespace

const char *skip_plain_blocks_avx2(const char *at, const char *end, bool &non_ascii) {
    static const bool has_avx2 = __builtin_cpu_supports("avx2");
    return has_avx2 ? skip_blocks(at, end, non_ascii) : at;
}

#else

const char *skip_plain_blocks_avx2(const char *at, const char *, bool &) { return at; }

#endif

}  // namespace queuey

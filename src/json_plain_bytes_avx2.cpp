#include "json_plain_bytes_avx2.hpp"
#include "json_plain_bytes.hpp"

namespace queuey {

#ifdef QUEUEY_HAS_AVX2_PATH

namespace {

__attribute__((target("avx2"))) const char *skip_blocks(const char *at, const char *end,
                                                        bool &non_ascii) {
    __m256i seen = _mm256_setzero_si256();  // the bytes looked at, or-ed: their top bits
    for (; end - at >= 32; at += 32) {
        const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(at));
        if (_mm256_movemask_epi8(json_special_bytes_avx2(bytes)) != 0) break;
        seen = _mm256_or_si256(seen, bytes);
    }
    non_ascii |= _mm256_movemask_epi8(seen) != 0;
    return at;
}

}  // namespace

const char *skip_plain_blocks_avx2(const char *at, const char *end, bool &non_ascii) {
    return cpu_has_avx2() ? skip_blocks(at, end, non_ascii) : at;
}

#else

const char *skip_plain_blocks_avx2(const char *at, const char *, bool &) { return at; }

#endif

}  // namespace queuey

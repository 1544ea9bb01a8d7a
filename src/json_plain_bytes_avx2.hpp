// The test of 32 bytes at once for bytes that are not plain inside a JSON string, for the
// code that skips (json_plain_bytes_avx2.cpp) or copies (plain_runs.cpp) plain bytes where
// the CPU has AVX2 (cpu_has_avx2() below, checked once at run time).
#pragma once

#if defined(__x86_64__) && defined(__GNUC__)
#define QUEUEY_HAS_AVX2_PATH 1
#include <immintrin.h>

namespace queuey {

// Whether this CPU runs the AVX2 paths, checked once.
inline bool cpu_has_avx2() {
    static const bool has = __builtin_cpu_supports("avx2");
    return has;
}

// 0xff in each byte of `bytes` that is '"', '\\' or below 0x20, 0 in the others.
__attribute__((target("avx2"))) inline __m256i json_special_bytes_avx2(__m256i bytes) {
    // '"' and the bytes below 0x20 in one test: with bit 1 flipped, '"' (0x22) becomes
    // 0x20, the others stay below it, and no other byte reaches 0x20 or below.
    const __m256i flipped = _mm256_xor_si256(bytes, _mm256_set1_epi8(0x02));
    return _mm256_or_si256(
        _mm256_cmpeq_epi8(_mm256_min_epu8(flipped, _mm256_set1_epi8(0x20)), flipped),
        _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8('\\')));
}

}  // namespace queuey
#endif

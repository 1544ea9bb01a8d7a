#include "plain_runs.hpp"

#include "json_plain_bytes_avx2.hpp"

#include <cstring>

namespace queuey {

namespace {

constexpr std::size_t block = 32;

#ifdef QUEUEY_HAS_AVX2_PATH

// Copies the whole blocks of [from, from + size) to `to` and appends the runs of plain
// blocks among them, offsets counted from `offset`; the bytes past the last whole block
// are left to the caller.
__attribute__((target("avx2"))) void copy_blocks(char *to, const char *from, std::size_t size,
                                                 std::size_t offset, std::vector<PlainRun> &runs) {
    constexpr std::size_t none = ~std::size_t{0};
    std::size_t run_from = none;
    const auto end_run = [&](std::size_t at) {
        if (run_from != none && at - run_from >= PlainRuns::shortest)
            runs.push_back({offset + run_from, offset + at});
        run_from = none;
    };
    std::size_t at = 0;
    for (; size - at >= block; at += block) {
        const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(from + at));
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(to + at), bytes);
        // A byte from 0x80 up ends a run too: a run's bytes need no UTF-8 check.
        const __m256i other = _mm256_or_si256(json_special_bytes_avx2(bytes), bytes);
        if (_mm256_movemask_epi8(other) == 0) {
            if (run_from == none) run_from = at;
        } else {
            end_run(at);
        }
    }
    end_run(at);
}

#endif

}  // namespace

void PlainRuns::copy(char *body, std::size_t offset, const char *from, std::size_t size) {
    std::size_t copied = 0;
#ifdef QUEUEY_HAS_AVX2_PATH
    if (cpu_has_avx2()) {
        copied = size / block * block;
        copy_blocks(body + offset, from, copied, offset, runs_);
    }
#endif
    if (size > copied) std::memcpy(body + offset + copied, from + copied, size - copied);
}

}  // namespace queuey

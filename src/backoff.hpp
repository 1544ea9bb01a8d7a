// Exponential backoff with full jitter, shared by the retry policy (behaviour.md
// section 5) and the reconnect policy (section 8). Never throws, never overflows.
#pragma once

#include <chrono>
#include <cstdint>
#include <random>

namespace queuey {

struct ExponentialBackoff {
    std::chrono::nanoseconds base = std::chrono::seconds(1);
    double factor = 2.0;
    std::chrono::nanoseconds max = std::chrono::seconds(300);
    bool jitter = true;

    // The delay before retry number n (n >= 1; 0 counts as 1): min(max, base * factor^(n-1)),
    // 0 when base or max is zero or negative; a non-finite or non-positive factor counts as
    // 1.0; an overflow gives max. With jitter, uniform on [0, that delay].
    std::chrono::nanoseconds delay(std::uint32_t n, std::mt19937_64 &random) const;
    // The same without jitter.
    std::chrono::nanoseconds ceiling(std::uint32_t n) const;
};

}  // namespace queuey

#include "backoff.hpp"

#include <algorithm>
#include <cmath>

namespace queuey {

std::chrono::nanoseconds ExponentialBackoff::ceiling(std::uint32_t n) const {
    using std::chrono::nanoseconds;
    if (base.count() <= 0 || max.count() <= 0) return nanoseconds(0);
    const std::uint32_t attempt = std::max<std::uint32_t>(n, 1);
    const double growth = std::isfinite(factor) && factor > 0.0 ? factor : 1.0;
    // In double: base * growth^(n-1) is positive, zero (underflow) or +inf (overflow),
    // never NaN, since base > 0 and growth is finite and positive. The comparison is
    // written so that a NaN would give max too.
    const double scaled =
        static_cast<double>(base.count()) * std::pow(growth, static_cast<double>(attempt - 1));
    const double limit = static_cast<double>(max.count());
    if (!(scaled < limit)) return max;
    // 0 <= scaled < limit <= 2^63, so the conversion is in range (truncation toward zero).
    return nanoseconds(static_cast<nanoseconds::rep>(scaled));
}

std::chrono::nanoseconds ExponentialBackoff::delay(std::uint32_t n, std::mt19937_64 &random) const {
    const std::chrono::nanoseconds top = ceiling(n);
    if (!jitter || top.count() <= 0) return top;
    std::uniform_int_distribution<std::chrono::nanoseconds::rep> uniform(0, top.count());
    return std::chrono::nanoseconds(uniform(random));
}

}  // namespace queuey

// When to try connecting again after a lost connection (behaviour.md section 8).
#pragma once

#include "../backoff.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>

namespace queuey {

struct ReconnectPolicy {
    // nullopt: try forever; 0: never reconnect (fail fast).
    std::optional<std::uint32_t> max_attempts;
    // At most 5 s between tries: back within seconds of the broker (issue 41).
    ExponentialBackoff backoff{std::chrono::milliseconds(500), 2.0, std::chrono::seconds(5), true};

    // The wait before reconnect attempt n (1-based; the first is immediate), or nothing
    // when the policy gives up.
    std::optional<std::chrono::nanoseconds> wait_before(std::uint32_t attempt,
                                                        std::mt19937_64 &random) const {
        if (max_attempts && attempt > *max_attempts) return std::nullopt;
        if (attempt <= 1) return std::chrono::nanoseconds::zero();
        return backoff.delay(attempt - 1, random);
    }
};

}  // namespace queuey

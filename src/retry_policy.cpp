#include "retry_policy.hpp"

#include <algorithm>

namespace queuey {

std::optional<std::chrono::nanoseconds> RetryPolicy::retry_after(std::uint32_t attempt,
                                                                 std::mt19937_64 &random) const {
    // Attempt 0 (never written by queuey) counts as the first, like max_attempts 0.
    if (std::max<std::uint32_t>(attempt, 1) >= std::max<std::uint32_t>(max_attempts, 1))
        return std::nullopt;
    switch (backoff) {
        case Backoff::none: return std::chrono::nanoseconds::zero();
        case Backoff::fixed: return std::max(fixed_delay, std::chrono::nanoseconds::zero());
        case Backoff::exponential: return exponential.delay(attempt, random);
    }
    return std::chrono::nanoseconds::zero();
}

const RetryPolicy &effective_retry_policy(const RetryPolicyChoices &choices,
                                          const RetryPolicy &default_policy) {
    for (const RetryPolicy *candidate :
         {choices.chosen_by_handler, choices.job_type_override, choices.queue_override,
          choices.job_type_policy, choices.queue_policy})
        if (candidate != nullptr) return *candidate;
    return default_policy;
}

}  // namespace queuey

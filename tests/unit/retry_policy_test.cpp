#include "retry_policy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace queuey {
namespace {

using namespace std::chrono_literals;

RetryPolicy exponential(std::uint32_t max_attempts, bool jitter) {
    RetryPolicy policy;
    policy.max_attempts = max_attempts;
    policy.backoff = RetryPolicy::Backoff::exponential;
    policy.exponential = {1s, 2.0, 300s, jitter};
    return policy;
}

TEST(RetryPolicy, DefaultGivesUpAfterTheFirstAttempt) {
    std::mt19937_64 random(1);
    EXPECT_FALSE(RetryPolicy{}.retry_after(1, random));
}

TEST(RetryPolicy, GivesUpWhenTheAttemptReachesMaxAttempts) {
    std::mt19937_64 random(1);
    RetryPolicy policy;
    policy.max_attempts = 3;
    EXPECT_EQ(policy.retry_after(1, random), 0ns);
    EXPECT_EQ(policy.retry_after(2, random), 0ns);
    EXPECT_FALSE(policy.retry_after(3, random));
    EXPECT_FALSE(policy.retry_after(4, random));
    policy.max_attempts = 0;  // counts as 1
    EXPECT_FALSE(policy.retry_after(0, random));
}

TEST(RetryPolicy, ExponentialWithoutJitterDoubles) {
    std::mt19937_64 random(1);
    const RetryPolicy policy = exponential(10, false);
    EXPECT_EQ(policy.retry_after(1, random), 1s);
    EXPECT_EQ(policy.retry_after(2, random), 2s);
    EXPECT_EQ(policy.retry_after(3, random), 4s);
    EXPECT_EQ(policy.retry_after(4, random), 8s);
}

TEST(RetryPolicy, FullJitterStaysWithinTheCeiling) {
    std::mt19937_64 random(7);
    const RetryPolicy policy = exponential(100, true);
    bool below_ceiling = false;
    for (int i = 0; i < 200; ++i) {
        const auto delay = *policy.retry_after(5, random);
        EXPECT_GE(delay, 0ns);
        EXPECT_LE(delay, 16s);
        below_ceiling = below_ceiling || delay < 8s;
    }
    EXPECT_TRUE(below_ceiling) << "jitter never went below half the ceiling in 200 draws";
}

TEST(RetryPolicy, FixedUsesItsDelayAndNeverANegativeOne) {
    std::mt19937_64 random(1);
    RetryPolicy policy;
    policy.max_attempts = 5;
    policy.backoff = RetryPolicy::Backoff::fixed;
    policy.fixed_delay = 1500ms;
    EXPECT_EQ(policy.retry_after(4, random), 1500ms);
    policy.fixed_delay = -5s;
    EXPECT_EQ(policy.retry_after(1, random), 0ns);
}

TEST(RetryPolicy, NeverMisbehavesOnExtremeInputs) {
    std::mt19937_64 random(3);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    for (std::uint32_t attempt : {0u, 1u, 2u, 64u, 4294967294u, 4294967295u})
        for (double factor : {0.0, -1.0, 0.5, 1.0, 2.0, 1e308, nan, inf, -inf})
            for (auto duration : {0ns, 1ns, std::chrono::nanoseconds(1s), std::chrono::nanoseconds::max(),
                                  std::chrono::nanoseconds(-5)}) {
                RetryPolicy policy;
                policy.max_attempts = 4294967295u;
                policy.backoff = RetryPolicy::Backoff::exponential;
                policy.exponential = {duration, factor, duration, true};
                const auto delay = policy.retry_after(attempt, random);
                if (attempt == 4294967295u) {
                    EXPECT_FALSE(delay);
                    continue;
                }
                ASSERT_TRUE(delay);
                EXPECT_GE(*delay, 0ns);
                EXPECT_LE(*delay, std::max(duration, 0ns));
            }
}

TEST(RetryPolicy, PrecedenceTakesTheFirstPresentChoice) {
    RetryPolicy by_handler, type_override, queue_override, type_policy, queue_policy, fallback;
    by_handler.max_attempts = 1;
    type_override.max_attempts = 2;
    queue_override.max_attempts = 3;
    type_policy.max_attempts = 4;
    queue_policy.max_attempts = 5;
    fallback.max_attempts = 6;
    RetryPolicyChoices choices{&by_handler, &type_override, &queue_override, &type_policy, &queue_policy};
    EXPECT_EQ(&effective_retry_policy(choices, fallback), &by_handler);
    choices.chosen_by_handler = nullptr;
    EXPECT_EQ(&effective_retry_policy(choices, fallback), &type_override);
    choices.job_type_override = nullptr;
    EXPECT_EQ(&effective_retry_policy(choices, fallback), &queue_override);
    choices.queue_override = nullptr;
    EXPECT_EQ(&effective_retry_policy(choices, fallback), &type_policy);
    choices.job_type_policy = nullptr;
    EXPECT_EQ(&effective_retry_policy(choices, fallback), &queue_policy);
    choices.queue_policy = nullptr;
    EXPECT_EQ(&effective_retry_policy(choices, fallback), &fallback);
}

}  // namespace
}  // namespace queuey

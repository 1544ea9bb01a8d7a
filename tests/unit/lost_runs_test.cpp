// The lost-run rule (src/worker/lost_runs.hpp): what each redelivery costs, on every
// backend and queue type.
#include "worker/lost_runs.hpp"
#include "topology.hpp"

#include <gtest/gtest.h>

namespace {

using queuey::judge_lost_run;
using queuey::LostRunFacts;
using Kind = queuey::LostRunVerdict::Kind;

TEST(LostRuns, AFirstDeliveryRunsAtNoCost) {
    const auto verdict = judge_lost_run({.budget = 3});
    EXPECT_EQ(verdict.kind, Kind::run);
    EXPECT_FALSE(verdict.charged);
}

TEST(LostRuns, ARedeliveryThatMayHaveStartedCostsOneWhateverTheBrokerCounted) {
    // A quorum queue's three returns (three peeks, say) cost one, as a classic queue's flag.
    for (const std::uint32_t returns : {0u, 1u, 3u, 9u}) {
        const auto verdict = judge_lost_run(
            {.possibly_started = true, .lost_before = 0, .broker_returns = returns, .budget = 3});
        EXPECT_EQ(verdict.kind, Kind::requeue) << returns;
        EXPECT_EQ(verdict.lost_runs, 1u) << returns;
        EXPECT_TRUE(verdict.charged);
    }
}

TEST(LostRuns, TheLossThatReachesTheBudgetDeadLetters) {
    auto verdict = judge_lost_run({.possibly_started = true, .lost_before = 2, .budget = 3});
    EXPECT_EQ(verdict.kind, Kind::dead_letter);
    EXPECT_EQ(verdict.lost_runs, 3u);
    verdict = judge_lost_run({.possibly_started = true, .lost_before = 1, .budget = 3});
    EXPECT_EQ(verdict.kind, Kind::requeue);
    EXPECT_EQ(verdict.lost_runs, 2u);
    // A budget of 0 counts as 1: the first loss dead-letters.
    verdict = judge_lost_run({.possibly_started = true, .budget = 0});
    EXPECT_EQ(verdict.kind, Kind::dead_letter);
    EXPECT_EQ(verdict.lost_runs, 1u);
}

TEST(LostRuns, TheCountSaturates) {
    const auto verdict =
        judge_lost_run({.possibly_started = true, .lost_before = UINT32_MAX, .budget = UINT32_MAX});
    EXPECT_EQ(verdict.kind, Kind::dead_letter);
    EXPECT_EQ(verdict.lost_runs, UINT32_MAX);
}

TEST(LostRuns, ReturnsAtNoCostAreRepublishedAtHalfTheDeliveryLimitKeepingTheCount) {
    EXPECT_EQ(queuey::returns_before_republish() * 2, queuey::quorum_delivery_limit);
    const std::uint32_t half = queuey::returns_before_republish();
    auto verdict = judge_lost_run({.lost_before = 2, .broker_returns = half - 1, .budget = 3});
    EXPECT_EQ(verdict.kind, Kind::run);
    verdict = judge_lost_run({.lost_before = 2, .broker_returns = half, .budget = 3});
    EXPECT_EQ(verdict.kind, Kind::requeue);
    EXPECT_EQ(verdict.lost_runs, 2u) << "a republish at no cost keeps the count it had";
    EXPECT_FALSE(verdict.charged);
}

}  // namespace

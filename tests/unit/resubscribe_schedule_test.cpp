// When a consumer the broker cancelled consumes again (src/broker/resubscribe_schedule.hpp).
#include "broker/resubscribe_schedule.hpp"

#include <gtest/gtest.h>

namespace queuey {
namespace {

using namespace std::chrono_literals;
using Clock = ResubscribeSchedule::Clock;

TEST(ResubscribeSchedule, NothingIsDueBeforeACancel) {
    const ResubscribeSchedule schedule;
    EXPECT_FALSE(schedule.pending());
    EXPECT_FALSE(schedule.due(Clock::now() + 1h));
}

TEST(ResubscribeSchedule, TheFirstTryIsASecondAfterTheCancel) {
    ResubscribeSchedule schedule;
    const auto cancelled = Clock::now();
    schedule.cancelled(cancelled);
    EXPECT_TRUE(schedule.pending());
    EXPECT_EQ(schedule.wait(), 1s);
    EXPECT_FALSE(schedule.due(cancelled + 999ms));
    EXPECT_TRUE(schedule.due(cancelled + 1s));
}

TEST(ResubscribeSchedule, EachRefusalDoublesTheWaitUpToFifteenSeconds) {
    ResubscribeSchedule schedule;
    auto now = Clock::now();
    schedule.cancelled(now);
    std::vector<std::chrono::milliseconds> waits;
    for (int i = 0; i < 7; ++i) {
        now += schedule.wait();
        schedule.refused(now);
        waits.push_back(schedule.wait());
        EXPECT_FALSE(schedule.due(now + schedule.wait() - 1ms));
        EXPECT_TRUE(schedule.due(now + schedule.wait()));
    }
    EXPECT_EQ(waits, (std::vector<std::chrono::milliseconds>{2s, 4s, 8s, 15s, 15s, 15s, 15s}));
}

TEST(ResubscribeSchedule, ANewCancelStartsAgainFromOneSecond) {
    ResubscribeSchedule schedule;
    const auto now = Clock::now();
    schedule.cancelled(now);
    for (int i = 0; i < 4; ++i) schedule.refused(now);
    schedule.done();
    EXPECT_FALSE(schedule.pending());
    EXPECT_FALSE(schedule.due(now + 1h));
    schedule.cancelled(now);
    EXPECT_EQ(schedule.wait(), 1s);
}

}  // namespace
}  // namespace queuey

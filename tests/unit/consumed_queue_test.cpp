// The hold queues a consumer keeps for the retries of its deliveries
// (src/broker/consumed_queue.hpp).
#include "broker/consumed_queue.hpp"

#include "error.hpp"

#include <gtest/gtest.h>

namespace queuey {
namespace {

using namespace std::chrono_literals;

QueueConfig jobs() {
    QueueConfig config;
    config.name = "jobs";
    config.delay_granularity = 1000ms;
    return config;
}

TEST(ConsumedQueue, ARetryGetsTheHoldSpecOfItsRoundedTtl) {
    const ConsumedQueue queue(jobs());
    const auto hold = queue.hold_for(1500ms);  // rounded up to 2 s at a 1 s granularity
    EXPECT_EQ(*hold, hold_queue_spec(jobs(), 2000));
    EXPECT_EQ(hold->name, "jobs.deferred.2000");
}

TEST(ConsumedQueue, DelaysOfOneTtlShareOneSpec) {
    const ConsumedQueue queue(jobs());
    const auto first = queue.hold_for(1200ms);
    EXPECT_EQ(queue.hold_for(2000ms).get(), first.get()) << "both round up to 2 s";
    EXPECT_NE(queue.hold_for(2001ms).get(), first.get());
}

TEST(ConsumedQueue, PastTheKeptOnesEachSpecIsStillRight) {
    QueueConfig config = jobs();
    config.delay_granularity = 1ms;
    const ConsumedQueue queue(config);
    for (int ms = 1; ms <= 200; ++ms)  // more distinct TTLs than it keeps
        EXPECT_EQ(*queue.hold_for(std::chrono::milliseconds(ms)),
                  hold_queue_spec(config, static_cast<std::uint64_t>(ms)));
}

TEST(ConsumedQueue, ADelayOutOfRangeIsRefused) {
    const ConsumedQueue queue(jobs());
    EXPECT_THROW(queue.hold_for(-1ms), Error);
}

}  // namespace
}  // namespace queuey

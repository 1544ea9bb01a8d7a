// The hold index (src/hold_index.hpp) and when a connection writes its entries
// (src/broker/hold_index_entries.hpp).
#include "hold_index.hpp"
#include "broker/hold_index_entries.hpp"
#include "jobs_config.hpp"

#include <gtest/gtest.h>

namespace queuey {
namespace {

using namespace std::chrono_literals;
using Clock = HoldIndexEntries::Clock;

TEST(HoldIndex, SitsBesideTheWorkQueueWithTheHoldsTypeAndDurability) {
    const QueueSpec classic =
        *hold_index_spec(hold_queue_spec(config_of(QueueType::classic), 600000));
    EXPECT_EQ(classic, (QueueSpec{"jobs.deferred.index", true, {}}));
    QueueConfig transient = config_of(QueueType::classic);
    transient.durable = false;
    EXPECT_FALSE(hold_index_spec(hold_queue_spec(transient, 1000))->durable);
    const QueueSpec quorum = *hold_index_spec(hold_queue_spec(config_of(QueueType::quorum), 1000));
    EXPECT_EQ(quorum, (QueueSpec{"jobs.deferred.index",
                                 true,
                                 {{"x-queue-type", QueueArgumentValue(std::string("quorum"))}}}));
}

TEST(HoldIndex, OnlyAHoldQueueHasOne) {
    EXPECT_FALSE(hold_index_spec(work_queue_spec(config_of(QueueType::classic))));
    EXPECT_FALSE(hold_index_spec(work_queue_spec(config_of(QueueType::quorum))))
        << "a quorum work queue dead-letters to q.dead but holds nothing";
    EXPECT_FALSE(hold_index_spec(dead_letter_queue_spec(config_of(QueueType::classic))));
}

TEST(HoldIndex, AnEntryOutlivesItsHoldQueue) {
    // 2 h: x-expires 4 h; an entry every 2 h, living 6 h. The queue, last declared at
    // most 2 h after the newest entry, expires at most 6 h after it.
    const HoldIndexTimes long_hold =
        hold_index_times(hold_queue_spec(config_of(QueueType::classic), 7200000));
    EXPECT_EQ(long_hold.refresh, 2h);
    EXPECT_EQ(long_hold.lifetime, 6h);
    // 1 s: x-expires 2 s; an entry every 5 minutes at most, living 5 min 2 s.
    const HoldIndexTimes short_hold =
        hold_index_times(hold_queue_spec(config_of(QueueType::classic), 1000));
    EXPECT_EQ(short_hold.refresh, 5min);
    EXPECT_EQ(short_hold.lifetime, 5min + 2s);
}

TEST(HoldIndex, TheLongestHoldsEntryStaysWithinRabbitMQsLimit) {
    const QueueSpec longest = hold_queue_spec(config_of(QueueType::classic), max_delay_ms);
    const HoldIndexTimes times = hold_index_times(longest);
    EXPECT_EQ(times.lifetime.count(), max_rabbitmq_timer_ms) << "an expiration RabbitMQ refuses";
    EXPECT_EQ(times.refresh, 1ms) << "what is left: an entry at (nearly) every declare";
    EXPECT_EQ(hold_index_times(work_queue_spec(config_of(QueueType::classic))).lifetime, 0ms);
}

TEST(HoldIndexEntries, AnEntryIsDueOncePerRefreshPerHold) {
    const QueueSpec hold = hold_queue_spec(config_of(QueueType::classic), 7200000);
    const QueueSpec other = hold_queue_spec(config_of(QueueType::classic), 1000);
    HoldIndexEntries entries;
    // As RabbitConnection::index_holds asks, at a declare of spec written at `at`.
    const auto take_due = [&entries](const QueueSpec &spec, Clock::time_point at) {
        return entries.take_due(spec.name, hold_index_times(spec).refresh, at);
    };
    const auto start = Clock::now();
    EXPECT_TRUE(take_due(hold, start));
    EXPECT_FALSE(take_due(hold, start + 1h)) << "its entry still has 5 h to live";
    EXPECT_TRUE(take_due(other, start + 1h)) << "each hold has its own";
    EXPECT_TRUE(take_due(hold, start + 2h));
    entries.forget_all();
    EXPECT_TRUE(take_due(other, start + 1h + 1s)) << "a new connection writes them again";
}

}  // namespace
}  // namespace queuey

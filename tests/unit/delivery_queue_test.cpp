// DeliveryQueue: deliveries handed from the I/O thread to consumers waiting on their own
// wake words, woken once the reader's turn ends. Every delivery is taken once, a wait ends
// with a delivery, the deadline, a failure or a nudge, and nothing handed to a waiter is
// lost when its deadline passes first.
#include "broker/delivery_queue.hpp"

#include "../eventually.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <unordered_set>
#include <thread>
#include <vector>

namespace {

using queuey::DeliveryQueue;
using queuey::IncomingDelivery;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

IncomingDelivery tagged(std::uint64_t tag) {
    IncomingDelivery delivery;
    delivery.delivery_tag = tag;
    return delivery;
}

// How long a test watches for something that must not happen (a second thread returning):
// the threads involved only wake and return, well under a millisecond when they must.
constexpr auto quiet_window = 20ms;

// Waits until a thread sleeps in pop() (wants_nudge says so).
void await_waiter(DeliveryQueue &queue) {
    const auto until = Clock::now() + 5s;
    while (!queue.wants_nudge() && Clock::now() < until) std::this_thread::sleep_for(1ms);
    ASSERT_TRUE(queue.wants_nudge());
}

TEST(DeliveryQueue, DeliveriesPushedFirstAreTakenInOrderWithoutWaiting) {
    DeliveryQueue queue;
    queue.push(tagged(1));
    queue.push(tagged(2));
    EXPECT_FALSE(queue.empty());
    EXPECT_FALSE(queue.wants_nudge());
    EXPECT_EQ(queue.pop(Clock::time_point::min())->delivery_tag, 1u);
    EXPECT_EQ(queue.pop(Clock::time_point::min())->delivery_tag, 2u);
    EXPECT_TRUE(queue.empty());
    EXPECT_FALSE(queue.pop(Clock::time_point::min()).has_value());
}

TEST(DeliveryQueue, DroppingAClosedChannelsWaitingDeliveriesLeavesTheOthers) {
    DeliveryQueue queue;
    for (std::uint64_t tag = 1; tag <= 4; ++tag) {
        IncomingDelivery delivery = tagged(tag);
        delivery.channel = tag % 2 == 0 ? 3 : 4;  // two queues' channels share the queue
        delivery.message_id = "job-" + std::to_string(tag);
        queue.push(std::move(delivery));
    }
    EXPECT_EQ(queue.drop_waiting(3), (std::unordered_set<std::string>{"job-2", "job-4"}));
    EXPECT_EQ(queue.pop(Clock::time_point::min())->delivery_tag, 1u);
    EXPECT_EQ(queue.pop(Clock::time_point::min())->delivery_tag, 3u);
    EXPECT_TRUE(queue.empty());
    EXPECT_TRUE(queue.drop_waiting(4).empty());
}

TEST(DeliveryQueue, AWaitEndsEmptyAtItsDeadlineAndLeavesNoWaiterBehind) {
    DeliveryQueue queue;
    const auto start = Clock::now();
    EXPECT_FALSE(queue.pop(start + 50ms).has_value());
    EXPECT_GE(Clock::now() - start, 50ms);
    EXPECT_FALSE(queue.wants_nudge());
    EXPECT_FALSE(queue.nudge());
    queue.push(tagged(7));  // not handed to the waiter that left: kept for the next pop
    EXPECT_EQ(queue.pop(Clock::time_point::min())->delivery_tag, 7u);
}

TEST(DeliveryQueue, APushIsHandedToTheThreadWaitingForIt) {
    DeliveryQueue queue;
    std::optional<IncomingDelivery> taken;
    std::thread consumer([&] { taken = queue.pop(Clock::now() + 10s); });
    await_waiter(queue);
    queue.push(tagged(42));
    const auto woken = Clock::now();
    queue.wake_handed();
    consumer.join();
    EXPECT_LT(Clock::now() - woken, 5s);  // woken, not ended by its deadline
    ASSERT_TRUE(taken.has_value());
    EXPECT_EQ(taken->delivery_tag, 42u);
    EXPECT_TRUE(queue.empty());
    EXPECT_FALSE(queue.wants_nudge());
}

TEST(DeliveryQueue, AConsumerHandedADeliveryAndNeverWokenReturnsItAtItsDeadline) {
    DeliveryQueue queue;
    std::optional<IncomingDelivery> taken;
    const auto start = Clock::now();
    std::thread consumer([&] { taken = queue.pop(start + 200ms); });
    await_waiter(queue);
    queue.push(tagged(9));  // no wake_handed(): the turn that would wake it never ends
    EXPECT_FALSE(queue.wants_nudge());
    EXPECT_TRUE(queue.empty());  // the delivery is the waiter's, not the next pop's
    consumer.join();
    EXPECT_GE(Clock::now() - start, 200ms);
    ASSERT_TRUE(taken.has_value());
    EXPECT_EQ(taken->delivery_tag, 9u);
}

TEST(DeliveryQueue, ANudgeEndsOneWaitWithoutADelivery) {
    DeliveryQueue queue;
    std::atomic<int> returned{0};
    std::vector<std::thread> consumers;
    std::vector<std::optional<IncomingDelivery>> taken(2);
    for (int i = 0; i < 2; ++i)
        consumers.emplace_back([&, i] {
            taken[i] = queue.pop(Clock::now() + 10s);
            ++returned;
        });
    const auto until = Clock::now() + 5s;
    while (Clock::now() < until) {  // both asleep: one nudge, then one delivery
        if (queue.nudge()) break;
        std::this_thread::sleep_for(1ms);
    }
    ASSERT_TRUE(queuey_test::eventually([&] { return returned.load() >= 1; }, 5000ms));
    // Nothing to wait for: a second wait ended by the same nudge would have returned by now.
    std::this_thread::sleep_for(quiet_window);
    EXPECT_EQ(returned.load(), 1);  // the nudge ended one wait only
    await_waiter(queue);
    queue.push(tagged(5));
    queue.wake_handed();
    for (auto &consumer : consumers) consumer.join();
    const int with_delivery = taken[0].has_value() + taken[1].has_value();
    EXPECT_EQ(with_delivery, 1);
    EXPECT_EQ((taken[0] ? taken[0] : taken[1])->delivery_tag, 5u);
}

TEST(DeliveryQueue, AFailureWakesAConsumerHandedADeliveryWithIt) {
    DeliveryQueue queue;
    std::optional<IncomingDelivery> taken;
    std::thread consumer([&] { taken = queue.pop(Clock::now() + 10s); });
    await_waiter(queue);
    queue.push(tagged(3));
    const auto failed = Clock::now();
    queue.fail(queuey::Error(QY_ERR_CLOSED, "", "the consumer was closed"));
    consumer.join();
    EXPECT_LT(Clock::now() - failed, 5s);
    ASSERT_TRUE(taken.has_value());  // handed before the failure: its to settle or lose
    EXPECT_EQ(taken->delivery_tag, 3u);
}

TEST(DeliveryQueue, AFailureEndsEveryWaitAndEveryPopAfterIt) {
    DeliveryQueue queue;
    std::atomic<int> failed{0};
    std::vector<std::thread> consumers;
    for (int i = 0; i < 3; ++i)
        consumers.emplace_back([&] {
            try {
                queue.pop(Clock::now() + 10s);
            } catch (const queuey::Error &error) {
                if (error.status() == QY_ERR_CLOSED) ++failed;
            }
        });
    await_waiter(queue);
    std::this_thread::sleep_for(20ms);  // let the others fall asleep too
    queue.fail(queuey::Error(QY_ERR_CLOSED, "", "the consumer was closed"));
    for (auto &consumer : consumers) consumer.join();
    EXPECT_EQ(failed.load(), 3);
    EXPECT_THROW(queue.pop(Clock::time_point::min()), queuey::Error);
}

TEST(DeliveryQueue, ThreadsTakingWithShortDeadlinesTakeEveryDeliveryOnce) {
    // Short deadlines race the hand-offs: a delivery handed to a waiter whose deadline
    // passed meanwhile is still that waiter's to return.
    DeliveryQueue queue;
    constexpr std::uint64_t count = 100000;
    std::atomic<std::uint64_t> taken_count{0};
    std::vector<std::vector<std::uint64_t>> taken(3);
    std::vector<std::thread> consumers;
    for (std::size_t i = 0; i < taken.size(); ++i)
        consumers.emplace_back([&, i] {
            const auto give_up = Clock::now() + 30s;
            for (std::uint64_t round = 0; taken_count.load() < count && Clock::now() < give_up;
                 ++round) {
                if (auto delivery = queue.pop(Clock::now() + std::chrono::microseconds(round % 16))) {
                    taken[i].push_back(delivery->delivery_tag);
                    ++taken_count;
                }
            }
        });
    for (std::uint64_t tag = 1; tag <= count; ++tag) {
        queue.push(tagged(tag));
        if (tag % 8 == 0) {  // a reader's turn of eight
            queue.wake_handed();
            std::this_thread::sleep_for(std::chrono::microseconds(tag % 24));
        }
    }
    for (auto &consumer : consumers) consumer.join();
    std::set<std::uint64_t> seen;
    std::size_t total = 0;
    for (const auto &tags : taken) {
        total += tags.size();
        seen.insert(tags.begin(), tags.end());
    }
    EXPECT_EQ(total, count);  // none twice
    EXPECT_EQ(seen.size(), count);
    EXPECT_EQ(*seen.begin(), 1u);
    EXPECT_EQ(*seen.rbegin(), count);
    EXPECT_TRUE(queue.empty());
}

}  // namespace

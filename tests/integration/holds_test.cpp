// behaviour.md section 3 in time: a hold releases no earlier than its delay (rounded up
// to the granularity, at least one step), one hold queue per delay so that a short wait
// is never stuck behind a long one, and a deferral overtakes the backlog.
#include "core_fixture.hpp"

#include <thread>

namespace queuey_it {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// How late a release may be on a loaded machine before the test calls it a bug.
constexpr auto margin = 3000ms;

std::chrono::milliseconds since(Clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
}

class Holds : public CoreTest {};

TEST_F(Holds, EnqueueAfterReleasesNoEarlierThanItsDelay) {
    const auto config = declare_queue();  // granularity 1 s: 1.5 s waits 2 s
    auto consumer = backend_->consume(config.name);
    queuey::Envelope env = job(config.name);
    env.priority = 9;  // enqueue_after arrives at priority 0 whatever the envelope says

    const auto start = Clock::now();
    producer_->enqueue_after(env, 1500ms);
    auto delivery = consumer->next(2000ms + margin + 2s);
    const auto waited = since(start);
    ASSERT_TRUE(delivery) << "the held job never arrived";
    EXPECT_GE(waited, 2000ms) << "released early (the 1.5 s delay holds for 2 s)";
    EXPECT_LE(waited, 2000ms + margin);
    EXPECT_EQ(delivery->envelope().job_id, env.job_id);
    EXPECT_EQ(delivery->envelope().priority, 0);
    EXPECT_EQ(delivery->envelope().attempt, 1u);
    delivery->ack();
}

TEST_F(Holds, ARetryWithADelayComesBackNoEarlierThanItsDelay) {
    const auto config = declare_queue([](queuey::QueueConfig &c) { c.delay_granularity = 100ms; });
    auto consumer = backend_->consume(config.name);
    const queuey::Envelope env = job(config.name);
    producer_->enqueue(env);
    auto delivery = consumer->next(5s);
    ASSERT_TRUE(delivery);

    const auto start = Clock::now();
    delivery->retry(delivery->envelope().next_attempt(), 1250ms);  // 1.3 s at 100 ms steps
    auto again = consumer->next(1300ms + margin + 2s);
    const auto waited = since(start);
    ASSERT_TRUE(again) << "the retried job never came back";
    EXPECT_GE(waited, 1300ms);
    EXPECT_LE(waited, 1300ms + margin);
    EXPECT_EQ(again->envelope().job_id, env.job_id);
    EXPECT_EQ(again->envelope().attempt, 2u);
    EXPECT_EQ(again->envelope().enqueued_at_ms, env.enqueued_at_ms);
    again->ack();
}

TEST_F(Holds, AJobRetriedThroughTheSameHoldAgainAndAgainComesBackEveryTime) {
    // Had a successor kept the broker's x-death header, its second trip through the
    // same hold queue would be a dead-letter cycle, which RabbitMQ drops silently.
    const auto config = declare_queue([](queuey::QueueConfig &c) { c.delay_granularity = 100ms; });
    auto consumer = backend_->consume(config.name);
    const queuey::Envelope env = job(config.name);
    producer_->enqueue_after(env, 0ms);
    for (std::uint32_t attempt = 1; attempt <= 4; ++attempt) {
        auto delivery = consumer->next(5s);
        ASSERT_TRUE(delivery) << "attempt " << attempt << " never arrived";
        EXPECT_EQ(delivery->envelope().job_id, env.job_id);
        EXPECT_EQ(delivery->envelope().attempt, attempt);
        if (attempt < 4)
            delivery->retry(delivery->envelope().next_attempt(), 0ms);
        else
            delivery->ack();
    }
}

TEST_F(Holds, AZeroDelayWaitsOneGranularityStep) {
    const auto config = declare_queue([](queuey::QueueConfig &c) { c.delay_granularity = 1500ms; });
    auto consumer = backend_->consume(config.name);
    const auto start = Clock::now();
    producer_->enqueue_after(job(config.name), 0ms);
    EXPECT_TRUE(raw_->exists(config.name + ".deferred.1500"));
    auto delivery = consumer->next(1500ms + margin + 2s);
    const auto waited = since(start);
    ASSERT_TRUE(delivery);
    EXPECT_GE(waited, 1500ms) << "a zero delay must wait one step on RabbitMQ";
    EXPECT_LE(waited, 1500ms + margin);
    delivery->ack();
}

TEST_F(Holds, AShortDelayIsNotStuckBehindALongOne) {
    const auto config = declare_queue();
    auto consumer = backend_->consume(config.name);
    const queuey::Envelope slow = job(config.name), fast = job(config.name);
    const auto start = Clock::now();
    producer_->enqueue_after(slow, 4000ms);
    producer_->enqueue_after(fast, 1000ms);

    auto first = consumer->next(1000ms + margin + 2s);
    const auto first_at = since(start);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->envelope().job_id, fast.job_id);
    EXPECT_GE(first_at, 1000ms);
    EXPECT_LT(first_at, 4000ms) << "the 1 s hold waited for the 4 s one";
    first->ack();

    auto second = consumer->next(4000ms + margin);
    ASSERT_TRUE(second);
    EXPECT_EQ(second->envelope().job_id, slow.job_id);
    EXPECT_GE(since(start), 4000ms);
    second->ack();
}

TEST_F(Holds, EveryHoldQueueIsNamedInItsWorkQueuesIndexForLongerThanItCanLive) {
    // docs/broker.md, the hold index: what `queuey stats` reads without the management API.
    for (const queuey::QueueType type : {queuey::QueueType::classic, queuey::QueueType::quorum}) {
        const auto config = declare_queue([&](queuey::QueueConfig &c) { c.type = type; });
        for (const auto delay : {90s, 600s, 7200s, 600s})
            producer_->enqueue_after(job(config.name), delay);
        const std::vector<RawMessage> entries = raw_->drain(config.name + ".deferred.index");
        std::vector<std::pair<std::string, std::string>> seen;
        for (const RawMessage &entry : entries) {
            seen.emplace_back(entry.body, entry.expiration.value_or("none"));
            EXPECT_EQ(entry.content_type, "text/plain");
            EXPECT_EQ(entry.delivery_mode, 2) << "lost with a broker restart, unlike its hold";
        }
        // A 90 s hold lives 180 s after its declare: an entry every 5 minutes at most, for
        // 480 s. 10 minutes: 20 min, an entry every 10 living 30. 2 h: 4 h, 2 h, 6 h. The
        // second 10 minute hold is in the index already. On quorum the holds outlive one
        // TTL by at least 5 minutes.
        const bool quorum = type == queuey::QueueType::quorum;
        EXPECT_EQ(seen, (std::vector<std::pair<std::string, std::string>>{
                            {config.name + ".deferred.90000", quorum ? "690000" : "480000"},
                            {config.name + ".deferred.600000", "1800000"},
                            {config.name + ".deferred.7200000", "21600000"}}));
    }
}

TEST_F(Holds, HoldingForAQueueThisClientNeverDeclaredIsRefused) {
    const std::string stranger = new_queue("stranger");
    raw_->declare(stranger, true, {});
    const auto error = error_of([&] { producer_->enqueue_after(job(stranger), 0ms); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->status(), QY_ERR_INVALID_ARGUMENT) << error->what();
    EXPECT_EQ(error->field(), "queue");
    EXPECT_FALSE(raw_->exists(stranger + ".deferred.1000"));
}

TEST_F(Holds, AHoldQueueDeclaredLatelyIsNotDeclaredAgainForAQuarterOfItsTtl) {
    // docs/broker.md, hold queue leases: a 10 s hold's lease (20 s) outlasts a message by
    // 10 s, so for 2.5 s after a declare its held publishes go undeclared.
    const auto config = declare_queue([](queuey::QueueConfig &c) { c.delay_granularity = 10s; });
    const std::string hold = config.name + ".deferred.10000";
    producer_->enqueue_after(job(config.name), 1ms);
    ASSERT_EQ(raw_->message_count(hold), 1u);
    raw_->delete_queue(hold);
    // Undeclared, the publish finds no queue: the broker returns it, nothing is lost.
    const auto error = error_of([&] { producer_->enqueue_after(job(config.name), 1ms); });
    ASSERT_TRUE(error) << "the publish was declared again within the window";
    EXPECT_EQ(error->status(), QY_ERR_UNROUTABLE) << error->what();
    // The return ends the window: the next held publish declares the queue.
    const queuey::Envelope after_return = job(config.name);
    EXPECT_FALSE(error_of([&] { producer_->enqueue_after(after_return, 1ms); }));
    std::vector<RawMessage> held = raw_->drain(hold);
    ASSERT_EQ(held.size(), 1u);
    EXPECT_EQ(held[0].message_id, after_return.job_id);
    // Past the window it is declared again too.
    raw_->delete_queue(hold);
    std::this_thread::sleep_for(2600ms);
    const queuey::Envelope after_window = job(config.name);
    EXPECT_FALSE(error_of([&] { producer_->enqueue_after(after_window, 1ms); }));
    held = raw_->drain(hold);
    ASSERT_EQ(held.size(), 1u);
    EXPECT_EQ(held[0].message_id, after_window.job_id);
}

TEST_F(Holds, ADeferredJobOvertakesTheBacklog) {
    const auto config = declare_queue([](queuey::QueueConfig &c) {
        c.prefetch = 1;  // the broker keeps the backlog, so priorities can reorder it
        c.delay_granularity = 200ms;
    });
    constexpr int backlog = 20;
    std::vector<queuey::Envelope> jobs;
    for (int i = 0; i < backlog; ++i)
        jobs.push_back(job(config.name, "{\"i\":" + std::to_string(i) + "}"));
    for (const auto &outcome : producer_->enqueue_batch(jobs))
        ASSERT_EQ(outcome.status, QY_OK) << outcome.message;

    auto consumer = backend_->consume(config.name);
    auto held = consumer->next(5s);  // unacked: with prefetch 1 nothing else is sent
    ASSERT_TRUE(held);
    EXPECT_EQ(held->envelope().job_id, jobs[0].job_id);

    const queuey::Envelope urgent = job(config.name, R"({"urgent":true})");
    producer_->defer(urgent, 0ms);
    // Wait until the hold released it into the queue, behind 19 waiting jobs.
    ASSERT_EQ(raw_->wait_for_count(config.name, backlog, 5s), static_cast<std::uint32_t>(backlog));
    held->ack();

    auto next = consumer->next(5s);
    ASSERT_TRUE(next);
    EXPECT_EQ(next->envelope().job_id, urgent.job_id)
        << "the deferred job did not overtake the backlog";
    EXPECT_EQ(next->envelope().priority, 10);
    EXPECT_EQ(next->envelope().deferrals, 0u) << "Producer::defer sends a first-attempt envelope";
    next->ack();
    for (int i = 1; i < backlog; ++i) {
        auto rest = consumer->next(5s);
        ASSERT_TRUE(rest) << "backlog job " << i << " missing";
        EXPECT_EQ(rest->envelope().job_id, jobs[i].job_id) << "the backlog keeps its order";
        rest->ack();
    }
}

}  // namespace
}  // namespace queuey_it

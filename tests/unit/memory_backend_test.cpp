// The in-process backend: RabbitMQ's observable semantics (behaviour.md sections 3, 6
// and 9) and the inspection that users' tests rely on.
#include "memory/memory_backend.hpp"

#include "../eventually.hpp"
#include "error.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace queuey {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

QueueConfig queue_config(std::string name) {
    QueueConfig config;
    config.name = std::move(name);
    return config;
}

Envelope job(const std::string &queue, int n, std::uint8_t priority = 0) {
    Envelope envelope = Envelope::create("job", queue, "{\"n\":" + std::to_string(n) + "}");
    envelope.priority = priority;
    return envelope;
}

std::vector<std::string> ids(const std::vector<Envelope> &envelopes) {
    std::vector<std::string> out;
    for (const Envelope &envelope : envelopes) out.push_back(envelope.job_id);
    return out;
}

void publish_ok(MemoryBackend &backend, const std::vector<Envelope> &envelopes,
                std::optional<std::chrono::nanoseconds> delay = std::nullopt) {
    for (const PublishOutcome &outcome : backend.publish(refs_to(envelopes), delay))
        ASSERT_EQ(outcome.status, QY_OK) << outcome.message;
}

// Takes everything available now, in delivery order, acking each.
std::vector<std::string> drain(Consumer &consumer) {
    std::vector<std::string> order;
    while (auto delivery = consumer.next(50ms)) {
        order.push_back(delivery->envelope().job_id);
        delivery->ack();
    }
    return order;
}

template <typename Call>
Error error_of(Call call) {
    try {
        call();
    } catch (const Error &error) {
        return error;
    }
    ADD_FAILURE() << "no error";
    return Error(QY_OK, "", "");
}

bool mentions(const Error &error, const std::string &text) {
    return std::string(error.what()).find(text) != std::string::npos;
}

class MemoryBackendTest : public ::testing::Test {
protected:
    MemoryBackend backend;
};

// ---- queue order ------------------------------------------------------------------------

TEST_F(MemoryBackendTest, DeliversByPriorityAndFifoWithinAPriority) {
    backend.declare(queue_config("q"));
    const std::vector<Envelope> jobs = {job("q", 0, 1), job("q", 1, 5), job("q", 2, 1),
                                        job("q", 3, 5), job("q", 4, 0), job("q", 5, 10)};
    publish_ok(backend, jobs);
    const std::vector<std::string> expected = {jobs[5].job_id, jobs[1].job_id, jobs[3].job_id,
                                               jobs[0].job_id, jobs[2].job_id, jobs[4].job_id};
    EXPECT_EQ(ids(backend.snapshot().pending("q")), expected);
    auto consumer = backend.consume("q");
    EXPECT_EQ(drain(*consumer), expected);
}

TEST_F(MemoryBackendTest, ClipsPrioritiesToTheQueuesMaximum) {
    QueueConfig config = queue_config("q");
    config.max_priority = 3;
    backend.declare(config);
    // 9 counts as 3: it stays behind the earlier 3 and ahead of the 2.
    const std::vector<Envelope> jobs = {job("q", 0, 3), job("q", 1, 9), job("q", 2, 2),
                                        job("q", 3, 255)};
    publish_ok(backend, jobs);
    EXPECT_EQ(
        ids(backend.snapshot().pending("q")),
        (std::vector<std::string>{jobs[0].job_id, jobs[1].job_id, jobs[3].job_id, jobs[2].job_id}));
}

TEST_F(MemoryBackendTest, AQueueWithoutPrioritiesIsFifo) {
    QueueConfig config = queue_config("plain");
    config.max_priority = std::nullopt;
    backend.declare(config);
    const std::vector<Envelope> jobs = {job("plain", 0, 0), job("plain", 1, 9), job("plain", 2, 5)};
    publish_ok(backend, jobs);
    auto consumer = backend.consume("plain");
    EXPECT_EQ(drain(*consumer), ids(jobs));
}

// ---- declare -------------------------------------------------------------------------------

TEST_F(MemoryBackendTest, DeclareCreatesTheWorkAndDeadLetterQueues) {
    backend.declare(queue_config("q"));
    const auto snapshot = backend.snapshot();
    EXPECT_EQ(snapshot.queues.size(), 2u);
    EXPECT_TRUE(snapshot.queues.contains("q"));
    EXPECT_TRUE(snapshot.queues.contains("q.dead"));
    EXPECT_TRUE(snapshot.queues.at("q").declared);
    EXPECT_FALSE(snapshot.queues.at("q.dead").declared);
    EXPECT_EQ(backend.config_of("q").name, "q");
}

TEST_F(MemoryBackendTest, RedeclaringTheSameArgumentsIsIdempotent) {
    backend.declare(queue_config("q"));
    publish_ok(backend, {job("q", 0)});
    QueueConfig again = queue_config("q");
    again.prefetch = 3;  // not a queue argument
    again.delay_granularity = 5ms;
    backend.declare(again);
    EXPECT_EQ(backend.config_of("q").prefetch, 3);
    EXPECT_EQ(backend.snapshot().pending("q").size(), 1u) << "a re-declare keeps the jobs";
}

TEST_F(MemoryBackendTest, RedeclaringOtherArgumentsFailsWithPreconditionFailed) {
    QueueConfig original = queue_config("q");
    original.message_ttl_ms = 60000;
    backend.declare(original);

    QueueConfig priority = original;
    priority.max_priority = 5;
    Error error = error_of([&] { backend.declare(priority); });
    EXPECT_EQ(error.status(), QY_ERR_PRECONDITION_FAILED) << error.what();
    EXPECT_EQ(error.field(), "");
    EXPECT_TRUE(mentions(error, "'x-max-priority'")) << error.what();
    EXPECT_TRUE(mentions(error, "queue 'q'")) << error.what();

    QueueConfig no_priorities = original;
    no_priorities.max_priority = std::nullopt;
    error = error_of([&] { backend.declare(no_priorities); });
    EXPECT_EQ(error.status(), QY_ERR_PRECONDITION_FAILED);
    EXPECT_TRUE(mentions(error, "'x-max-priority'")) << error.what();

    QueueConfig transient = original;
    transient.durable = false;
    error = error_of([&] { backend.declare(transient); });
    EXPECT_EQ(error.status(), QY_ERR_PRECONDITION_FAILED);
    EXPECT_TRUE(mentions(error, "'durable'")) << error.what();

    QueueConfig ttl = original;
    ttl.message_ttl_ms = 1000;
    error = error_of([&] { backend.declare(ttl); });
    EXPECT_EQ(error.status(), QY_ERR_PRECONDITION_FAILED);
    EXPECT_TRUE(mentions(error, "'x-message-ttl'")) << error.what();

    EXPECT_EQ(backend.config_of("q").message_ttl_ms, 60000) << "a refused declare changes nothing";
}

TEST_F(MemoryBackendTest, ADeadLetterQueueDeclaredAsAWorkQueueMustMatchItsArguments) {
    backend.declare(queue_config("q"));
    // q.dead exists without x-max-priority, as on RabbitMQ.
    EXPECT_EQ(error_of([&] { backend.declare(queue_config("q.dead")); }).status(),
              QY_ERR_PRECONDITION_FAILED);
    QueueConfig dead = queue_config("q.dead");
    dead.max_priority = std::nullopt;
    EXPECT_NO_THROW(backend.declare(dead));
}

TEST_F(MemoryBackendTest, DeclareRefusesBadNamesAndNegativeTtls) {
    Error error = error_of([&] { backend.declare(queue_config("")); });
    EXPECT_EQ(error.status(), QY_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(error.field(), "queue");
    EXPECT_EQ(error_of([&] { backend.declare(queue_config(std::string(236, 'x'))); }).status(),
              QY_ERR_INVALID_ARGUMENT);

    QueueConfig negative = queue_config("q");
    negative.message_ttl_ms = -1;
    error = error_of([&] { backend.declare(negative); });
    EXPECT_EQ(error.status(), QY_ERR_PRECONDITION_FAILED);
    EXPECT_TRUE(mentions(error, "'x-message-ttl'")) << error.what();
    EXPECT_TRUE(backend.snapshot().queues.empty()) << "nothing declared";
}

TEST_F(MemoryBackendTest, ConfigOfAnUndeclaredQueueFails) {
    const Error error = error_of([&] { (void)backend.config_of("nope"); });
    EXPECT_EQ(error.status(), QY_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(error.field(), "queue");
}

// ---- publish -------------------------------------------------------------------------------

TEST_F(MemoryBackendTest, AnUnroutableEnvelopeFailsAloneInItsBatch) {
    backend.declare(queue_config("q"));
    const std::vector<Envelope> batch = {job("q", 0), job("missing", 1), job("q", 2)};
    const auto outcomes = backend.publish(refs_to(batch), std::nullopt);
    ASSERT_EQ(outcomes.size(), 3u);
    EXPECT_EQ(outcomes[0].status, QY_OK);
    EXPECT_EQ(outcomes[1].status, QY_ERR_UNROUTABLE);
    EXPECT_NE(outcomes[1].message.find(batch[1].job_id), std::string::npos) << outcomes[1].message;
    EXPECT_EQ(outcomes[2].status, QY_OK);
    EXPECT_EQ(ids(backend.snapshot().pending("q")),
              (std::vector<std::string>{batch[0].job_id, batch[2].job_id}));
}

TEST_F(MemoryBackendTest, ADelayedJobArrivesAfterItsDelayAndNotBefore) {
    backend.declare(queue_config("q"));
    auto consumer = backend.consume("q");
    const auto start = Clock::now();
    const Envelope delayed = job("q", 0);
    publish_ok(backend, {delayed}, 150ms);

    const auto snapshot = backend.snapshot();
    ASSERT_EQ(snapshot.held.size(), 1u);
    EXPECT_EQ(snapshot.held[0].queue, "q");
    EXPECT_EQ(snapshot.held[0].envelope, delayed);
    EXPECT_TRUE(snapshot.pending("q").empty());

    auto delivery = consumer->next(5s);
    const auto waited = Clock::now() - start;
    ASSERT_NE(delivery, nullptr);
    EXPECT_EQ(delivery->envelope(), delayed);
    EXPECT_GE(waited, 150ms);
    EXPECT_LT(waited, 3s);
    EXPECT_TRUE(backend.snapshot().held.empty());
}

TEST_F(MemoryBackendTest, AHeldJobIsNeverEarlyWhenTheTimerWakesForAnother) {
    backend.declare(queue_config("q"));
    auto consumer = backend.consume("q");
    const auto start = Clock::now();
    const Envelope held = job("q", 0);
    publish_ok(backend, {held}, 250ms);
    std::this_thread::sleep_for(150ms);
    publish_ok(backend, {job("q", 1)}, 1ms);  // wakes the timer 100 ms before held is due
    std::vector<Envelope> arrived;
    while (arrived.size() < 2) {
        auto delivery = consumer->next(5s);
        ASSERT_NE(delivery, nullptr);
        if (delivery->envelope() == held) {
            EXPECT_GE(Clock::now() - start, 250ms);
        }
        arrived.push_back(delivery->envelope());
        delivery->ack();
    }
    EXPECT_EQ(arrived.back(), held);
}

TEST_F(MemoryBackendTest, AShortDelayIsNotStuckBehindALongerOne) {
    backend.declare(queue_config("q"));
    const Envelope slow = job("q", 0);
    const Envelope fast = job("q", 1);
    publish_ok(backend, {slow}, 400ms);
    publish_ok(backend, {fast}, 50ms);
    EXPECT_EQ(backend.snapshot().held.front().envelope, fast) << "held in due order";
    auto consumer = backend.consume("q");
    auto first = consumer->next(5s);
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(first->envelope(), fast);
    auto second = consumer->next(5s);
    ASSERT_NE(second, nullptr);
    EXPECT_EQ(second->envelope(), slow);
}

TEST_F(MemoryBackendTest, EqualDelaysArriveInPublicationOrder) {
    QueueConfig config = queue_config("q");
    config.max_priority = std::nullopt;
    backend.declare(config);
    std::vector<Envelope> jobs;
    for (int i = 0; i < 20; ++i) jobs.push_back(job("q", i));
    publish_ok(backend, jobs, 60ms);  // one batch: one due time
    ASSERT_TRUE(backend.wait_until_idle(0ms) == false);
    auto consumer = backend.consume("q");
    std::vector<std::string> order;
    while (order.size() < jobs.size()) {
        auto delivery = consumer->next(5s);
        ASSERT_NE(delivery, nullptr);
        order.push_back(delivery->envelope().job_id);
        delivery->ack();
    }
    EXPECT_EQ(order, ids(jobs));
}

TEST_F(MemoryBackendTest, AZeroDelayIsImmediate) {
    backend.declare(queue_config("q"));
    const Envelope now = job("q", 0);
    publish_ok(backend, {now}, 0ns);
    const auto snapshot = backend.snapshot();
    EXPECT_TRUE(snapshot.held.empty());
    EXPECT_EQ(snapshot.pending("q"), std::vector<Envelope>{now});
}

TEST_F(MemoryBackendTest, RefusesDelaysAHoldQueueCouldNotExpress) {
    backend.declare(queue_config("q"));
    const std::chrono::nanoseconds longest = std::chrono::milliseconds(max_delay_ms);

    Error error = error_of([&] { backend.publish(refs_to({job("q", 0)}), longest + 1ns); });
    EXPECT_EQ(error.status(), QY_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(error.field(), "delay");
    error = error_of([&] { backend.publish(refs_to({job("q", 0)}), -1ms); });
    EXPECT_EQ(error.status(), QY_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(error.field(), "delay");
    EXPECT_TRUE(backend.snapshot().held.empty());

    publish_ok(backend, {job("q", 1)}, longest);
    EXPECT_EQ(backend.snapshot().held.size(), 1u);
}

TEST_F(MemoryBackendTest, ADelayedPublishNeedsDeclaredQueues) {
    backend.declare(queue_config("q"));
    const Error error = error_of([&] {
        backend.publish(refs_to({job("q", 0), job("undeclared", 1)}), 10ms);
    });
    EXPECT_EQ(error.status(), QY_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(error.field(), "queue");
    EXPECT_TRUE(backend.snapshot().held.empty()) << "nothing of the batch was held";
}

TEST_F(MemoryBackendTest, AnEnvelopeThatWouldNotDecodeIsDeadLetteredOnDeliveryAndReported) {
    backend.declare(queue_config("q"));
    Envelope broken = job("q", 0);
    broken.job_id = "not-a-uuid";
    const Envelope fine = job("q", 1);
    publish_ok(backend, {broken, fine});  // RabbitMQ takes any body
    struct Observer : queuey::ConsumerObserver {
        std::vector<queuey::MalformedBody> bodies;  // next() runs on this thread only
        void malformed_body(const queuey::MalformedBody &body) override { bodies.push_back(body); }
    };
    auto observer = std::make_shared<Observer>();
    auto consumer = backend.consume({"q"}, observer);
    auto delivery = consumer->next(1s);
    ASSERT_NE(delivery, nullptr);
    EXPECT_EQ(delivery->envelope(), fine);
    ASSERT_EQ(observer->bodies.size(), 1u) << "the consumer reports what it dead-lettered";
    EXPECT_EQ(observer->bodies[0].queue, "q");
    EXPECT_EQ(observer->bodies[0].message_id, "not-a-uuid");
    EXPECT_TRUE(observer->bodies[0].copied);
    EXPECT_NE(observer->bodies[0].problem.find("job_id"), std::string::npos);
    const auto snapshot = backend.snapshot();
    ASSERT_EQ(snapshot.dead_lettered.size(), 1u);
    EXPECT_EQ(snapshot.dead_lettered[0].reason, "malformed envelope");
    EXPECT_EQ(snapshot.dead_lettered[0].queue, "q");
    EXPECT_NE(snapshot.dead_lettered[0].detail.find("job_id"), std::string::npos)
        << snapshot.dead_lettered[0].detail;
    EXPECT_EQ(snapshot.pending("q.dead").size(), 1u);
}

// ---- consume -------------------------------------------------------------------------------

TEST_F(MemoryBackendTest, PrefetchLimitsUnsettledDeliveriesPerQueue) {
    QueueConfig config = queue_config("q");
    config.prefetch = 2;
    backend.declare(config);
    publish_ok(backend, {job("q", 0), job("q", 1), job("q", 2)});
    auto consumer = backend.consume("q");
    auto first = consumer->next(1s);
    auto second = consumer->next(1s);
    ASSERT_NE(first, nullptr);
    ASSERT_NE(second, nullptr);
    EXPECT_EQ(consumer->next(100ms), nullptr) << "a third unsettled delivery";
    EXPECT_EQ(backend.snapshot().in_flight("q"), 2u);
    EXPECT_EQ(backend.snapshot().pending("q").size(), 1u);

    // A slot freed while next() waits wakes it.
    std::thread settler([&] {
        std::this_thread::sleep_for(50ms);
        first->ack();
    });
    auto third = consumer->next(5s);
    settler.join();
    ASSERT_NE(third, nullptr);
    EXPECT_EQ(consumer->next(0ms), nullptr);
}

TEST_F(MemoryBackendTest, PrioritiesOnlyOvertakeWhatIsStillQueued) {
    QueueConfig config = queue_config("q");
    config.prefetch = 1;
    backend.declare(config);
    const Envelope low = job("q", 0, 0);
    publish_ok(backend, {low});
    auto consumer = backend.consume("q");
    auto delivery = consumer->next(1s);
    ASSERT_NE(delivery, nullptr);
    const Envelope high = job("q", 1, 9);
    publish_ok(backend, {high});
    EXPECT_EQ(delivery->envelope(), low);
    delivery->ack();
    auto next = consumer->next(1s);
    ASSERT_NE(next, nullptr);
    EXPECT_EQ(next->envelope(), high);
}

TEST_F(MemoryBackendTest, OneConsumerTakesFromSeveralQueuesInTurn) {
    backend.declare(queue_config("a"));
    backend.declare(queue_config("b"));
    for (int i = 0; i < 5; ++i) publish_ok(backend, {job("a", i), job("b", i)});
    auto consumer = backend.consume(std::vector<std::string>{"a", "b"});
    std::string sequence;
    while (auto delivery = consumer->next(50ms)) {
        sequence += delivery->envelope().queue;
        EXPECT_EQ(delivery->queue().name, delivery->envelope().queue);
        delivery->ack();
    }
    EXPECT_EQ(sequence, "ababababab");
}

TEST_F(MemoryBackendTest, ConsumeNeedsDeclaredQueues) {
    EXPECT_EQ(error_of([&] { backend.consume("nope"); }).status(), QY_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(error_of([&] { backend.consume(std::vector<std::string>{}); }).status(),
              QY_ERR_INVALID_ARGUMENT);
}

TEST_F(MemoryBackendTest, NextTimesOutWithNullptr) {
    backend.declare(queue_config("q"));
    auto consumer = backend.consume("q");
    const auto start = Clock::now();
    EXPECT_EQ(consumer->next(100ms), nullptr);
    EXPECT_GE(Clock::now() - start, 100ms);
}

TEST_F(MemoryBackendTest, StopEndsTheFlowOfNewDeliveriesAlsoForWaitingThreads) {
    backend.declare(queue_config("q"));
    publish_ok(backend, {job("q", 0)});
    auto consumer = backend.consume("q");
    auto taken = consumer->next(1s);
    ASSERT_NE(taken, nullptr);

    std::shared_ptr<Delivery> late;
    const auto start = Clock::now();
    std::thread waiter([&] { late = consumer->next(10s); });
    std::this_thread::sleep_for(50ms);
    consumer->stop();
    waiter.join();
    EXPECT_EQ(late, nullptr);
    EXPECT_LT(Clock::now() - start, 5s) << "the waiting next() returned at once";

    publish_ok(backend, {job("q", 1)});
    EXPECT_EQ(consumer->next(100ms), nullptr) << "no new delivery after stop()";
    EXPECT_NO_THROW(taken->ack()) << "what was taken stays settleable";
    EXPECT_EQ(backend.snapshot().pending("q").size(), 1u);
}

TEST_F(MemoryBackendTest, NoJobIsDeliveredTwiceToConcurrentThreads) {
    constexpr int jobs = 1000;
    QueueConfig config = queue_config("q");
    config.prefetch = 8;
    backend.declare(config);
    std::vector<Envelope> batch;
    for (int i = 0; i < jobs; ++i) batch.push_back(job("q", i, static_cast<std::uint8_t>(i % 11)));

    // Two threads share one consumer, two more have one each.
    auto shared = backend.consume("q");
    auto own_1 = backend.consume("q");
    auto own_2 = backend.consume("q");
    std::vector<Consumer *> consumers = {shared.get(), shared.get(), own_1.get(), own_2.get()};

    std::mutex mutex;
    std::map<std::string, int> seen;
    std::atomic<int> taken{0};
    std::vector<std::thread> threads;
    for (Consumer *consumer : consumers)
        threads.emplace_back([&, consumer] {
            while (taken.load() < jobs) {
                auto delivery = consumer->next(20ms);
                if (!delivery) continue;
                {
                    std::lock_guard lock(mutex);
                    ++seen[delivery->envelope().job_id];
                }
                ++taken;
                delivery->ack();
            }
        });
    // Published while the threads already take.
    for (int i = 0; i < jobs; i += 100)
        publish_ok(backend, std::vector<Envelope>(batch.begin() + i, batch.begin() + i + 100));
    for (std::thread &thread : threads) thread.join();

    EXPECT_EQ(seen.size(), static_cast<std::size_t>(jobs));
    for (const auto &[id, count] : seen) EXPECT_EQ(count, 1) << id;
    EXPECT_TRUE(backend.wait_until_idle(5s));
    EXPECT_EQ(backend.snapshot().acked.size(), static_cast<std::size_t>(jobs));
}

// ---- settling ------------------------------------------------------------------------------

TEST_F(MemoryBackendTest, SettlesAreRecordedInTheHistories) {
    backend.declare(queue_config("q"));
    const std::vector<Envelope> jobs = {job("q", 0), job("q", 1), job("q", 2), job("q", 3)};
    publish_ok(backend, jobs);
    auto consumer = backend.consume("q");
    std::vector<std::shared_ptr<Delivery>> deliveries;
    for (std::size_t i = 0; i < jobs.size(); ++i) deliveries.push_back(consumer->next(1s));
    for (const auto &delivery : deliveries) ASSERT_NE(delivery, nullptr);

    const Envelope retried = deliveries[1]->envelope().next_attempt();
    const Envelope deferred = deliveries[2]->envelope().deferred(10);
    deliveries[0]->ack();
    deliveries[1]->retry(retried, 200ms);
    deliveries[2]->defer(deferred, 0ms);
    deliveries[3]->dead_letter("fatal error: boom");

    const auto snapshot = backend.snapshot();
    EXPECT_EQ(snapshot.acked, std::vector<Envelope>{jobs[0]});
    ASSERT_EQ(snapshot.retried.size(), 1u);
    EXPECT_EQ(snapshot.retried[0].next, retried);
    EXPECT_EQ(snapshot.retried[0].delay, 200ms);
    EXPECT_EQ(snapshot.retried[0].queue, "q");
    ASSERT_EQ(snapshot.deferred.size(), 1u);
    EXPECT_EQ(snapshot.deferred[0].next, deferred);
    EXPECT_EQ(snapshot.deferred[0].delay, 0ms);
    ASSERT_EQ(snapshot.dead_lettered.size(), 1u);
    EXPECT_EQ(snapshot.dead_lettered[0].envelope, jobs[3]);
    EXPECT_EQ(snapshot.dead_lettered[0].reason, "fatal error: boom");
    EXPECT_EQ(snapshot.dead_lettered[0].queue, "q");
    EXPECT_EQ(snapshot.dead_lettered[0].detail, "");

    // Where the successors went: the retry waits, the deferral (zero delay) is queued, the
    // dead letter is in q.dead.
    ASSERT_EQ(snapshot.held.size(), 1u);
    EXPECT_EQ(snapshot.held[0].envelope, retried);
    EXPECT_EQ(snapshot.pending("q"), std::vector<Envelope>{deferred});
    EXPECT_EQ(snapshot.pending("q.dead"), std::vector<Envelope>{jobs[3]});
    EXPECT_EQ(snapshot.in_flight("q"), 0u);

    auto again = consumer->next(5s);
    ASSERT_NE(again, nullptr);
    EXPECT_EQ(again->envelope(), deferred);
    again->ack();
    auto retry = consumer->next(5s);
    ASSERT_NE(retry, nullptr);
    EXPECT_EQ(retry->envelope(), retried);
    EXPECT_EQ(retry->envelope().attempt, 2u);
    retry->ack();

    backend.clear_history();
    const auto cleared = backend.snapshot();
    EXPECT_TRUE(cleared.acked.empty());
    EXPECT_TRUE(cleared.retried.empty());
    EXPECT_TRUE(cleared.deferred.empty());
    EXPECT_TRUE(cleared.dead_lettered.empty());
    EXPECT_EQ(cleared.pending("q.dead").size(), 1u) << "the queues keep their jobs";
}

TEST_F(MemoryBackendTest, ASecondSettleFailsWithAlreadySettled) {
    backend.declare(queue_config("q"));
    publish_ok(backend, {job("q", 0), job("q", 1)});
    auto consumer = backend.consume("q");
    auto delivery = consumer->next(1s);
    ASSERT_NE(delivery, nullptr);
    delivery->ack();
    EXPECT_EQ(error_of([&] { delivery->ack(); }).status(), QY_ERR_ALREADY_SETTLED);
    EXPECT_EQ(error_of([&] { delivery->retry(delivery->envelope(), 0ms); }).status(),
              QY_ERR_ALREADY_SETTLED);
    EXPECT_EQ(error_of([&] { delivery->defer(delivery->envelope(), 0ms); }).status(),
              QY_ERR_ALREADY_SETTLED);
    EXPECT_EQ(error_of([&] { delivery->dead_letter("again"); }).status(), QY_ERR_ALREADY_SETTLED);

    auto other = consumer->next(1s);
    ASSERT_NE(other, nullptr);
    other->dead_letter("first");
    EXPECT_EQ(error_of([&] { other->ack(); }).status(), QY_ERR_ALREADY_SETTLED);
    EXPECT_EQ(backend.snapshot().acked.size(), 1u);
    EXPECT_EQ(backend.snapshot().dead_lettered.size(), 1u);
}

TEST_F(MemoryBackendTest, ARefusedSettleLeavesTheDeliveryUnsettled) {
    backend.declare(queue_config("q"));
    publish_ok(backend, {job("q", 0)});
    auto consumer = backend.consume("q");
    auto delivery = consumer->next(1s);
    ASSERT_NE(delivery, nullptr);
    const Error error = error_of([&] { delivery->retry(delivery->envelope(), -1ms); });
    EXPECT_EQ(error.status(), QY_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(error.field(), "delay");
    EXPECT_EQ(backend.snapshot().in_flight("q"), 1u);
    EXPECT_NO_THROW(delivery->ack());
}

TEST_F(MemoryBackendTest, AnUnsettledDeliveryComesBackFirstAndRedelivered) {
    backend.declare(queue_config("q"));
    const Envelope first = job("q", 0);
    const Envelope second = job("q", 1);
    publish_ok(backend, {first, second});
    auto consumer = backend.consume("q");
    {
        auto delivery = consumer->next(1s);
        ASSERT_NE(delivery, nullptr);
        EXPECT_FALSE(delivery->redelivered());
        EXPECT_EQ(backend.snapshot().in_flight("q"), 1u);
    }  // freed unsettled
    EXPECT_EQ(backend.snapshot().in_flight("q"), 0u);
    EXPECT_EQ(backend.snapshot().pending("q"), (std::vector<Envelope>{first, second}));
    auto again = consumer->next(1s);
    ASSERT_NE(again, nullptr);
    EXPECT_EQ(again->envelope(), first);
    EXPECT_TRUE(again->redelivered());
    auto next = consumer->next(1s);
    ASSERT_NE(next, nullptr);
    EXPECT_EQ(next->envelope(), second);
    EXPECT_FALSE(next->redelivered());
}

TEST_F(MemoryBackendTest, RequeuedDeliveriesKeepPublicationOrder) {
    QueueConfig config = queue_config("q");
    config.max_priority = std::nullopt;
    backend.declare(config);
    const std::vector<Envelope> jobs = {job("q", 0), job("q", 1), job("q", 2)};
    publish_ok(backend, jobs);
    auto consumer = backend.consume("q");
    auto a = consumer->next(1s);
    auto b = consumer->next(1s);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    a.reset();  // a goes back first, then b: as on RabbitMQ, both return to their places
    b.reset();
    EXPECT_EQ(drain(*consumer), ids(jobs));
}

TEST_F(MemoryBackendTest, ClosingAConsumerRequeuesItsDeliveriesAndTheirSettlesFail) {
    backend.declare(queue_config("q"));
    const Envelope envelope = job("q", 0);
    publish_ok(backend, {envelope});
    std::shared_ptr<Delivery> delivery;
    {
        auto consumer = backend.consume("q");
        delivery = consumer->next(1s);
        ASSERT_NE(delivery, nullptr);
        EXPECT_FALSE(delivery->stale());
    }
    EXPECT_TRUE(delivery->stale());
    EXPECT_EQ(delivery->envelope(), envelope) << "a delivery outlives its consumer";
    EXPECT_EQ(backend.snapshot().pending("q"), std::vector<Envelope>{envelope});
    EXPECT_EQ(error_of([&] { delivery->ack(); }).status(), QY_ERR_STALE_DELIVERY);
    delivery.reset();
    EXPECT_EQ(backend.snapshot().pending("q").size(), 1u) << "not requeued twice";

    auto consumer = backend.consume("q");
    auto again = consumer->next(1s);
    ASSERT_NE(again, nullptr);
    EXPECT_EQ(again->envelope(), envelope);
    // This process put it back by closing the consumer: no worker was lost.
    EXPECT_FALSE(again->redelivered());
}

TEST_F(MemoryBackendTest, ADeliveryDroppedAfterItsConsumerClosedIsNoLostRun) {
    backend.declare(queue_config("q"));
    publish_ok(backend, {job("q", 0)});
    std::shared_ptr<Delivery> delivery;
    {
        auto consumer = backend.consume("q");
        delivery = consumer->next(1s);
        ASSERT_NE(delivery, nullptr);
    }
    delivery.reset();  // never settled, but its consumer had given it back already
    auto consumer = backend.consume("q");
    auto again = consumer->next(1s);
    ASSERT_NE(again, nullptr);
    EXPECT_FALSE(again->redelivered()) << "the consumer's close, not a lost worker, put it back";
    EXPECT_EQ(backend.snapshot().pending("q").size(), 0u) << "not requeued twice";
}

TEST_F(MemoryBackendTest, ALostJobRequeuedWithItsCountComesBackUnmarkedAtTheBackOfItsQueue) {
    backend.declare(queue_config("q"));
    const Envelope first = job("q", 0), second = job("q", 1);
    publish_ok(backend, {first, second});
    auto consumer = backend.consume("q");
    consumer->next(1s).reset();  // dropped unsettled: as if its worker had died
    auto lost = consumer->next(1s);
    ASSERT_NE(lost, nullptr);
    ASSERT_EQ(lost->envelope(), first);
    ASSERT_TRUE(lost->redelivered());
    EXPECT_EQ(lost->lost_runs(), 0u);
    lost->requeue_lost(2);
    EXPECT_EQ(error_of([&] { lost->ack(); }).status(), QY_ERR_ALREADY_SETTLED);

    auto next = consumer->next(1s);
    ASSERT_NE(next, nullptr);
    EXPECT_EQ(next->envelope(), second) << "the copy went to the back of the queue";
    next->ack();
    auto copy = consumer->next(1s);
    ASSERT_NE(copy, nullptr);
    EXPECT_EQ(copy->envelope(), first) << "the same job: same attempt, same everything";
    EXPECT_FALSE(copy->redelivered());
    EXPECT_EQ(copy->lost_runs(), 2u);
    copy->ack();
}

TEST_F(MemoryBackendTest, DeliveriesCanBeSettledFromOtherThreads) {
    backend.declare(queue_config("q"));
    std::vector<Envelope> jobs;
    for (int i = 0; i < 50; ++i) jobs.push_back(job("q", i));
    publish_ok(backend, jobs);
    auto consumer = backend.consume("q");
    std::vector<std::thread> settlers;
    for (int i = 0; i < 50; ++i) {
        std::shared_ptr<Delivery> delivery = consumer->next(1s);
        ASSERT_NE(delivery, nullptr);
        settlers.emplace_back([delivery, i] {
            if (i % 2 == 0)
                delivery->ack();
            else
                delivery->dead_letter("odd");
        });
    }
    for (std::thread &settler : settlers) settler.join();
    const auto snapshot = backend.snapshot();
    EXPECT_EQ(snapshot.acked.size(), 25u);
    EXPECT_EQ(snapshot.dead_lettered.size(), 25u);
    EXPECT_EQ(snapshot.in_flight("q"), 0u);
}

// ---- message TTL ---------------------------------------------------------------------------

TEST_F(MemoryBackendTest, AMessageTtlDropsJobsThatWaitTooLong) {
    QueueConfig config = queue_config("q");
    config.message_ttl_ms = 50;
    backend.declare(config);
    const Envelope stale = job("q", 0);
    publish_ok(backend, {stale});
    std::this_thread::sleep_for(150ms);  // stale outlives its 50 ms: the next take drops it
    const Envelope fresh = job("q", 1);
    publish_ok(backend, {fresh});

    auto consumer = backend.consume("q");
    auto delivery = consumer->next(1s);
    ASSERT_NE(delivery, nullptr);
    EXPECT_EQ(delivery->envelope(), fresh);
    delivery->ack();
    const auto snapshot = backend.snapshot();
    ASSERT_EQ(snapshot.expired.size(), 1u);
    EXPECT_EQ(snapshot.expired[0].envelope, stale);
    EXPECT_EQ(snapshot.expired[0].queue, "q");
    EXPECT_TRUE(snapshot.dead_lettered.empty()) << "no dead-letter exchange on the work queue";
}

TEST_F(MemoryBackendTest, OnAQuorumQueueAJobPastTheTtlGoesToTheDeadLettersAsOnRabbitMQ) {
    QueueConfig config = queue_config("q");
    config.type = QueueType::quorum;
    config.message_ttl_ms = 50;
    backend.declare(config);  // q has q.dead as its dead-letter target, as on RabbitMQ
    const Envelope stale = job("q", 0);
    publish_ok(backend, {stale});
    // The in-memory broker's timer moves it 50 ms after its publish (later on a busy machine).
    ASSERT_TRUE(
        queuey_test::eventually([&] { return !backend.snapshot().dead_lettered.empty(); }, 5000ms));
    const auto snapshot = backend.snapshot();
    EXPECT_TRUE(snapshot.expired.empty());
    ASSERT_EQ(snapshot.dead_lettered.size(), 1u);
    EXPECT_EQ(snapshot.dead_lettered[0].envelope, stale);
    EXPECT_EQ(snapshot.dead_lettered[0].reason,
              "the broker dead-lettered it: it outlived the queue's message TTL (x-message-ttl)");
    EXPECT_EQ(snapshot.pending("q.dead").size(), 1u);
}

TEST_F(MemoryBackendTest, WaitUntilIdleSeesExpiries) {
    QueueConfig config = queue_config("q");
    config.message_ttl_ms = 100;
    backend.declare(config);
    publish_ok(backend, {job("q", 0)});
    EXPECT_FALSE(backend.wait_until_idle(0ms));
    EXPECT_TRUE(backend.wait_until_idle(5s));
    EXPECT_EQ(backend.snapshot().expired.size(), 1u);
}

// ---- idle and close ------------------------------------------------------------------------

TEST_F(MemoryBackendTest, WaitUntilIdleWaitsForHeldPendingAndInFlightJobs) {
    backend.declare(queue_config("q"));
    EXPECT_TRUE(backend.wait_until_idle(0ms));
    publish_ok(backend, {job("q", 0)}, 100ms);
    EXPECT_FALSE(backend.wait_until_idle(0ms)) << "held";

    auto consumer = backend.consume("q");
    std::shared_ptr<Delivery> delivery = consumer->next(5s);
    ASSERT_NE(delivery, nullptr);
    EXPECT_FALSE(backend.wait_until_idle(50ms)) << "in flight";

    std::thread worker([&] {
        std::this_thread::sleep_for(50ms);
        delivery->dead_letter("done with it");
    });
    EXPECT_TRUE(backend.wait_until_idle(5s));
    const auto snapshot = backend.snapshot();
    worker.join();
    EXPECT_EQ(snapshot.dead_lettered.size(), 1u) << "idle only once settled";
    EXPECT_EQ(snapshot.pending("q.dead").size(), 1u) << "dead letters do not keep it busy";
}

TEST_F(MemoryBackendTest, CloseWakesABlockedNext) {
    backend.declare(queue_config("q"));
    auto consumer = backend.consume("q");
    std::atomic<qy_status> status{QY_OK};
    const auto start = Clock::now();
    std::thread waiter([&] {
        try {
            (void)consumer->next(30s);
        } catch (const Error &error) {
            status = error.status();
        }
    });
    std::this_thread::sleep_for(100ms);
    backend.close();
    waiter.join();
    EXPECT_EQ(status.load(), QY_ERR_CLOSED);
    EXPECT_LT(Clock::now() - start, 10s);
    EXPECT_EQ(error_of([&] { (void)consumer->next(0ms); }).status(), QY_ERR_CLOSED);
}

TEST_F(MemoryBackendTest, AfterCloseEverythingFailsButTheSnapshot) {
    backend.declare(queue_config("q"));
    const Envelope envelope = job("q", 0);
    publish_ok(backend, {envelope, job("q", 1)});
    publish_ok(backend, {job("q", 2)}, 10s);
    auto consumer = backend.consume("q");
    auto delivery = consumer->next(1s);
    ASSERT_NE(delivery, nullptr);

    backend.close();
    backend.close();  // idempotent
    EXPECT_EQ(error_of([&] { delivery->ack(); }).status(), QY_ERR_CLOSED);
    EXPECT_EQ(backend.publish(refs_to({job("q", 3)}), std::nullopt).front().status, QY_ERR_CLOSED);
    EXPECT_EQ(error_of([&] { backend.publish(refs_to({job("q", 3)}), 1s); }).status(),
              QY_ERR_CLOSED);
    EXPECT_EQ(error_of([&] { backend.declare(queue_config("r")); }).status(), QY_ERR_CLOSED);
    EXPECT_EQ(error_of([&] { backend.consume("q"); }).status(), QY_ERR_CLOSED);
    EXPECT_FALSE(backend.wait_until_idle(1s));

    const auto snapshot = backend.snapshot();
    EXPECT_TRUE(snapshot.held.empty()) << "held jobs are dropped";
    EXPECT_EQ(snapshot.in_flight("q"), 0u);
    EXPECT_EQ(snapshot.pending("q").size(), 2u) << "the unsettled delivery went back";
    EXPECT_EQ(snapshot.pending("q").front(), envelope);
}

TEST(MemoryBackendLifetime, DeliveriesAndConsumersMayOutliveTheBackend) {
    std::unique_ptr<Consumer> consumer;
    std::shared_ptr<Delivery> delivery;
    {
        MemoryBackend backend;
        backend.declare(queue_config("q"));
        publish_ok(backend, {job("q", 0)}, 1h);  // dropped at close
        publish_ok(backend, {job("q", 1)});
        consumer = backend.consume("q");
        delivery = consumer->next(1s);
        ASSERT_NE(delivery, nullptr);
    }
    EXPECT_EQ(delivery->envelope().payload, "{\"n\":1}");
    EXPECT_EQ(error_of([&] { delivery->ack(); }).status(), QY_ERR_CLOSED);
    EXPECT_EQ(error_of([&] { (void)consumer->next(0ms); }).status(), QY_ERR_CLOSED);
}

// ---- bounded histories (docs/memory.md) -------------------------------------------------

// Publishes count jobs to q and settles each with settle(delivery).
template <typename Settle>
std::vector<Envelope> settle_all(MemoryBackend &backend, int count, Settle settle) {
    std::vector<Envelope> jobs;
    for (int i = 0; i < count; ++i) jobs.push_back(job("q", i));
    publish_ok(backend, jobs);
    auto consumer = backend.consume("q");
    for (int i = 0; i < count; ++i) {
        auto delivery = consumer->next(1s);
        if (delivery == nullptr) {
            ADD_FAILURE() << "job " << i << " did not come";
            break;
        }
        settle(*delivery);
    }
    return jobs;
}

TEST(MemoryBackendHistory, KeepsTheNewestTenThousandAcksByDefault) {
    MemoryBackend backend;
    backend.declare(queue_config("q"));
    const auto jobs = settle_all(backend, 10001, [](Delivery &delivery) { delivery.ack(); });
    const auto acked = backend.snapshot().acked;
    ASSERT_EQ(acked.size(), 10000u);
    EXPECT_EQ(acked.front(), jobs[1]) << "the oldest is forgotten";
    EXPECT_EQ(acked.back(), jobs.back());
}

TEST(MemoryBackendHistory, KeepsTheNewestOfEachKindAndExactTotals) {
    MemoryBackend backend(3);
    backend.declare(queue_config("q"));
    const auto acked = settle_all(backend, 5, [](Delivery &delivery) { delivery.ack(); });
    const auto dead =
        settle_all(backend, 4, [](Delivery &delivery) { delivery.dead_letter("boom"); });
    const auto retried = settle_all(backend, 4, [](Delivery &delivery) {
        delivery.retry(delivery.envelope().next_attempt(), 1h);
    });
    const auto deferred = settle_all(backend, 6, [](Delivery &delivery) {
        delivery.defer(delivery.envelope().deferred(10), 1h);
    });

    const auto snapshot = backend.snapshot();
    EXPECT_EQ(ids(snapshot.acked), ids({acked[2], acked[3], acked[4]}));
    ASSERT_EQ(snapshot.dead_lettered.size(), 3u);
    EXPECT_EQ(snapshot.dead_lettered.front().envelope, dead[1]);
    EXPECT_EQ(snapshot.dead_lettered.back().envelope, dead[3]);
    ASSERT_EQ(snapshot.retried.size(), 3u);
    EXPECT_EQ(snapshot.retried.back().next.job_id, retried[3].job_id);
    ASSERT_EQ(snapshot.deferred.size(), 3u);
    EXPECT_EQ(snapshot.deferred.front().next.job_id, deferred[3].job_id);

    const auto &totals = snapshot.totals.at("q");
    EXPECT_EQ(totals.acked, 5u);
    EXPECT_EQ(totals.dead_lettered, 4u);
    EXPECT_EQ(totals.retried, 4u);
    EXPECT_EQ(totals.deferred, 6u);
    EXPECT_EQ(totals.expired, 0u);
    EXPECT_EQ(snapshot.held.size(), 10u) << "only the histories are bounded";

    backend.clear_history();
    EXPECT_TRUE(backend.snapshot().totals.empty());
}

}  // namespace
}  // namespace queuey

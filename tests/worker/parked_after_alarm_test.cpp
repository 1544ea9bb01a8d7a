// The case of issue 10, items 2 and 3, on a real broker: during a RabbitMQ memory alarm
// a worker's retries cannot be published, so its jobs are parked, untried while the
// broker blocks publishing. They must not keep the jobs queued behind them from running
// during the alarm, and once it clears the parked retries must go through at once.
// RabbitMQ only: the alarm is the broker's.
#include "broker_ctl.hpp"
#include "core_fixture.hpp"

#include "worker/worker.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace queuey_it {
namespace {

using namespace std::chrono_literals;

class ParkedAfterAlarm : public CoreTest {};

TEST_F(ParkedAfterAlarm,
       RetriesParkedDuringAMemoryAlarmLetTheJobsBehindRunAndGoThroughOnceItClears) {
    constexpr std::size_t prefetch = 4, good = 20;
    const auto q = declare_queue([](queuey::QueueConfig &config) {
        config.prefetch = prefetch;
        config.delay_granularity = 50ms;
    });
    const auto spare = declare_queue({}, "spare");
    for (std::size_t i = 0; i < prefetch; ++i) producer_->enqueue(job(q.name, R"({"bad":true})"));
    for (std::size_t i = 0; i < good; ++i) producer_->enqueue(job(q.name, R"({"good":true})"));

    // The worker has a connection of its own, with a short publish timeout.
    auto options = backend_options(endpoint(), unique_name("alarmed"));
    options.publish_timeout = 2s;
    auto backend = std::make_shared<queuey::RabbitBackend>(options);
    backend->declare(q);
    backend->declare(spare);
    queuey::WorkerOptions worker_options;
    worker_options.queues = {q.name};
    worker_options.default_retry.max_attempts = 2;
    queuey::Worker worker(backend, worker_options);
    // The bad jobs' first runs wait until the worker's connection is blocked, then fail.
    std::mutex mutex;
    std::condition_variable changed;
    std::size_t first_runs = 0, second_runs = 0;
    bool blocked = false;
    worker.register_handler("it.job", [&](const queuey::Job &job) {
        if (job.envelope().payload != R"({"bad":true})") return queuey::JobOutcome::success();
        std::unique_lock lock(mutex);
        if (job.envelope().attempt > 1) {
            ++second_runs;
            return queuey::JobOutcome::success();
        }
        ++first_runs;
        changed.notify_all();
        changed.wait(lock, [&] { return blocked; });
        return queuey::JobOutcome::retryable("boom");
    });
    const auto unblock = [&] {
        {
            std::lock_guard lock(mutex);
            blocked = true;
        }
        changed.notify_all();
    };
    struct Running {  // stops the worker however the test ends
        queuey::Worker &worker;
        std::function<void()> unblock;
        std::thread thread{[this] { worker.run(); }};
        ~Running() {
            unblock();
            worker.shutdown();
            thread.join();
        }
    } running{worker, unblock};
    {
        std::unique_lock lock(mutex);
        ASSERT_TRUE(changed.wait_for(lock, 10s, [&] { return first_runs == prefetch; }));
    }
    {
        MemoryAlarm alarm(endpoint());
        // The publish that meets the alarm is written (it lands in spare once the alarm
        // clears) and blocks the connection: the retries after it wait unsent.
        EXPECT_NE(backend->publish(queuey::refs_to({job(spare.name)}), std::nullopt).at(0).status,
                  QY_OK);
        unblock();
        EXPECT_TRUE(eventually([&] { return worker.counters().parked == prefetch; }, 10s))
            << "parked: " << worker.counters().parked;
        EXPECT_TRUE(eventually([&] { return worker.counters().succeeded == good; }, 10s))
            << "succeeded during the alarm: " << worker.counters().succeeded
            << "; the parked retries kept the jobs behind them from running";
        EXPECT_EQ(worker.counters().parked, prefetch);
        EXPECT_EQ(worker.counters().settle_failures, 0u)
            << "a settle was tried while the broker blocked publishing";
    }
    const auto cleared = std::chrono::steady_clock::now();
    EXPECT_TRUE(eventually([&] { return worker.counters().succeeded == good + prefetch; }, 30s))
        << "succeeded: " << worker.counters().succeeded;
    // The unblock comes within a second or so of the alarm's end; no backoff after it.
    EXPECT_LT(std::chrono::steady_clock::now() - cleared, 5s);
    std::this_thread::sleep_for(500ms);  // a second successor would run by now
    const auto counters = worker.counters();
    EXPECT_EQ(counters.retried, prefetch);
    EXPECT_EQ(counters.parked, 0u);
    EXPECT_EQ(counters.settle_failures, 0u);
    {
        std::lock_guard lock(mutex);
        EXPECT_EQ(first_runs, prefetch);
        EXPECT_EQ(second_runs, prefetch) << "each retry was published once";
    }
    EXPECT_EQ(raw_->message_count(q.name), 0u);
    EXPECT_EQ(raw_->message_count(queuey::dead_letter_queue_name(q.name)), 0u);
}

}  // namespace
}  // namespace queuey_it

// Redeliveries that the process caused itself are no lost runs (docs/worker.md, lost
// runs; issue: `rabbitmqctl close_connection` under running handlers dead-lettered jobs
// that had succeeded). RabbitMQ only: the in-memory backend has no connection to lose.
#include "broker_ctl.hpp"
#include "core_fixture.hpp"

#include "worker/worker.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace queuey_it {
namespace {

using namespace std::chrono_literals;

class OwnRedeliveries : public CoreTest {};

TEST_F(OwnRedeliveries, JobsHeldWhenTheConnectionIsClosedRunAgainUncountedAndNoneIsDeadLettered) {
    constexpr std::size_t jobs = 8;
    const auto q = declare_queue([](queuey::QueueConfig &config) { config.prefetch = jobs; });
    for (std::size_t i = 0; i < jobs; ++i) producer_->enqueue(job(q.name));

    // Twice as many threads as jobs: the redelivered copies are taken at once, while the
    // first runs still go on (the first runs' acks are then refused as stale).
    queuey::WorkerOptions options;
    options.queues = {q.name};
    options.concurrency = 2 * jobs;
    queuey::Worker worker(backend_, options);
    std::mutex mutex;
    std::condition_variable changed;
    std::map<std::string, std::vector<std::uint32_t>> runs;  // job id -> attempts run
    std::size_t started = 0;
    worker.register_handler("it.job", [&](const queuey::Job &job) {
        {
            std::lock_guard lock(mutex);
            runs[job.envelope().job_id].push_back(job.envelope().attempt);
            ++started;
        }
        changed.notify_all();
        std::this_thread::sleep_for(1s);  // still running when the connections are closed
        return queuey::JobOutcome::success();
    });
    std::thread running([&] { worker.run(); });
    {
        std::unique_lock lock(mutex);
        ASSERT_TRUE(changed.wait_for(lock, 10s, [&] { return started >= jobs; }))
            << "only " << started << " started";
    }
    ASSERT_EQ(close_connections(endpoint(), connection_name_), 2u);  // publishing and consuming

    eventually([&] { return worker.counters().succeeded >= jobs; }, 20s, 20ms);
    worker.shutdown();
    running.join();

    const auto counters = worker.counters();
    EXPECT_EQ(counters.succeeded, jobs);
    EXPECT_EQ(counters.worker_lost, 0u)
        << "redeliveries this process caused were counted as lost runs";
    EXPECT_EQ(counters.dead_lettered_exhausted + counters.dead_lettered_lost, 0u);
    EXPECT_EQ(counters.retried, 0u);
    EXPECT_EQ(raw_->message_count(queuey::dead_letter_queue_name(q.name)), 0u);
    EXPECT_EQ(raw_->message_count(q.name), 0u);
    std::size_t duplicates = 0;
    ASSERT_EQ(runs.size(), jobs);
    for (const auto &[id, attempts] : runs) {
        for (const auto attempt : attempts) EXPECT_EQ(attempt, 1u) << "job " << id;
        duplicates += attempts.size() - 1;
    }
    EXPECT_LE(duplicates, jobs) << "each job runs at most twice: once before the close, once after";
    std::printf("own redeliveries: %zu jobs, %zu duplicate runs, %llu stale settles\n", jobs,
                duplicates, static_cast<unsigned long long>(counters.settle_failures));
}

}  // namespace
}  // namespace queuey_it

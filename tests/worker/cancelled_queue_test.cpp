// A queue deleted under a running worker (or, on a cluster, a classic queue whose node
// went down): the broker cancels that queue's consumer. The worker used to end run()
// with QY_ERR_BROKER, stopping its other queues too; it now goes on with them and
// consumes the queue again once it is back (RabbitConnection::resubscribe_due).
// RabbitMQ only: the in-memory backend has no queues to delete.
#include "core_fixture.hpp"

#include "worker/worker.hpp"

#include <gtest/gtest.h>

#include <exception>
#include <mutex>
#include <set>
#include <thread>

namespace queuey_it {
namespace {

using namespace std::chrono_literals;

class CancelledQueue : public CoreTest {};

TEST_F(CancelledQueue, AWorkerGoesOnWithItsOtherQueuesAndConsumesTheDeletedOneOnceItIsBack) {
    const auto a = declare_queue();
    const auto b = declare_queue();
    queuey::WorkerOptions options;
    options.queues = {a.name, b.name};
    queuey::Worker worker(backend_, options);
    std::mutex mutex;
    std::set<std::string> ran;
    worker.register_handler("it.job", [&](const queuey::Job &job) {
        std::lock_guard lock(mutex);
        ran.insert(job.envelope().job_id);
        return queuey::JobOutcome::success();
    });
    std::exception_ptr ended;
    std::thread running([&] {
        try {
            worker.run();
        } catch (...) {
            ended = std::current_exception();
        }
    });
    const auto runs = [&](const queuey::Envelope &envelope) {
        producer_->enqueue(envelope);
        return eventually(
            [&] {
                std::lock_guard lock(mutex);
                return ran.contains(envelope.job_id);
            },
            10s);
    };

    EXPECT_TRUE(runs(job(a.name)));
    raw_->delete_queue(a.name);
    EXPECT_TRUE(runs(job(b.name))) << "the other queue's jobs stopped with the deleted one";
    // EXPECT only: an ASSERT would leave the worker's thread running.
    const bool back = eventually([&] { return raw_->exists(a.name); }, 10s);
    EXPECT_TRUE(back) << "the deleted queue was not declared again";
    if (back) {
        EXPECT_TRUE(runs(job(a.name))) << "the deleted queue was not consumed again";
    }

    worker.shutdown();
    running.join();
    EXPECT_FALSE(ended) << "run() ended on the broker's cancel";
    EXPECT_EQ(worker.counters().succeeded, 3u);
}

}  // namespace
}  // namespace queuey_it

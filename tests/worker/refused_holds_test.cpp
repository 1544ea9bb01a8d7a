// A hold refused for good (issue 10): a hold queue that exists with other arguments, or
// a deferral whose delay its queue's granularity rounds past the longest hold. The
// worker dead-letters the job with the reason instead of leaving it unsettled, to come
// back and fail the same way on every redelivery. RabbitMQ only: the in-memory backend
// has no hold queues to declare and does not round delays.
#include "core_fixture.hpp"

#include "topology.hpp"
#include "worker/worker.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace queuey_it {
namespace {

using namespace std::chrono_literals;

class RefusedHolds : public CoreTest {
protected:
    // Runs a worker whose handler answers outcome until the job reaches q.dead (or 10 s
    // pass); returns the dead letters and the worker's counters.
    std::pair<std::vector<RawMessage>, queuey::WorkerCounters> run_until_dead(
        const queuey::QueueConfig &q, queuey::JobOutcome outcome) {
        queuey::WorkerOptions options;
        options.queues = {q.name};
        options.default_retry.max_attempts = 3;
        queuey::Worker worker(backend_, options);
        worker.register_handler("it.job", [outcome](const queuey::Job &) { return outcome; });
        std::thread running([&] { worker.run(); });
        raw_->wait_for_count(queuey::dead_letter_queue_name(q.name), 1, 10s);
        worker.shutdown();
        running.join();
        return {raw_->drain(queuey::dead_letter_queue_name(q.name)), worker.counters()};
    }
};

std::string reason_of(const RawMessage &letter) {
    const RawHeader *reason = letter.header("x-death-reason");
    return reason ? reason->text : "";
}

TEST_F(RefusedHolds,
       ARetryWhoseHoldQueueExistsWithOtherArgumentsIsDeadLetteredWithTheBrokersReason) {
    const auto q = declare_queue();
    // Someone else's queue under the hold queue's name: no dead-lettering back to q.
    raw_->declare(queuey::hold_queue_name(q.name, 1000), true,
                  {{"x-message-ttl", std::int64_t{1000}}});
    const queuey::Envelope env = job(q.name);
    producer_->enqueue(env);

    const auto [dead, counters] = run_until_dead(q, queuey::JobOutcome::retryable("boom"));
    ASSERT_EQ(dead.size(), 1u) << "the job was left unsettled, to fail the same way again";
    EXPECT_EQ(dead[0].message_id, env.job_id);
    const std::string reason = reason_of(dead[0]);
    EXPECT_EQ(reason.rfind("retry refused: ", 0), 0u) << reason;
    EXPECT_NE(reason.find("PRECONDITION_FAILED"), std::string::npos)
        << "the broker's reason: " << reason;
    EXPECT_EQ(counters.dead_lettered_fatal, 1u);
    EXPECT_EQ(counters.retried, 0u);
    EXPECT_EQ(counters.settle_failures, 1u);
    EXPECT_EQ(raw_->message_count(q.name), 0u);
    raw_->delete_queue(queuey::hold_queue_name(q.name, 1000));
}

TEST_F(RefusedHolds, ADeferralThatRoundingPushesPastTheLongestHoldIsDeadLettered) {
    const auto q = declare_queue();  // granularity 1 s: 2147483001 ms rounds to 2147484000
    const queuey::Envelope env = job(q.name);
    producer_->enqueue(env);

    const auto [dead, counters] = run_until_dead(
        q, queuey::JobOutcome::deferred(std::chrono::milliseconds(2147483001), "later"));
    ASSERT_EQ(dead.size(), 1u) << "the job was left unsettled, to fail the same way again";
    const std::string reason = reason_of(dead[0]);
    EXPECT_EQ(reason.rfind("deferral refused: ", 0), 0u) << reason;
    EXPECT_NE(reason.find("2147483647"), std::string::npos) << "the limit is named: " << reason;
    EXPECT_EQ(counters.dead_lettered_fatal, 1u);
    EXPECT_EQ(counters.deferred, 0u);
    EXPECT_EQ(raw_->message_count(q.name), 0u);
}

}  // namespace
}  // namespace queuey_it

// Issue 10, item 2: a broker that blocks publishers (a memory or disk alarm) must not
// stop consuming. A client publishes on one connection and consumes on another, and a
// declare the blocked broker does not answer fails its caller without tearing down the
// connection (it used to be taken for a lost one: 4 teardowns and 36 completed jobs
// charged in a 20 s alarm).
#include "broker_ctl.hpp"
#include "core_fixture.hpp"

#include <future>
#include <set>

namespace queuey_it {
namespace {

using namespace std::chrono_literals;

class FlowControl : public CoreTest {
protected:
    std::shared_ptr<queuey::RabbitBackend> backend_with_timeout(std::chrono::milliseconds timeout) {
        auto options = backend_options(endpoint(), unique_name("flow"));
        options.publish_timeout = timeout;
        return std::make_shared<queuey::RabbitBackend>(options);
    }
};

TEST_F(FlowControl, ABrokerThatBlocksPublishingStillDeliversAndTakesAcks) {
    auto backend = backend_with_timeout(2s);
    queuey::QueueConfig config = declare_queue([](queuey::QueueConfig &c) { c.prefetch = 5; });
    backend->declare(config);
    queuey::Producer producer(backend);
    std::set<std::string> enqueued;
    for (int i = 0; i < 20; ++i) {
        const queuey::Envelope env = job(config.name);
        producer.enqueue(env);
        enqueued.insert(env.job_id);
    }
    auto consumer = backend->consume(config.name);

    MemoryAlarm alarm(endpoint());
    // The same client publishes until the broker blocks it.
    const auto blocked = error_of([&] { producer.enqueue(job(config.name)); });
    ASSERT_TRUE(blocked) << "the broker did not block publishing";
    // Written before the broker stopped reading (its outcome unknown), or never written.
    EXPECT_TRUE(blocked->status() == QY_ERR_TIMEOUT || blocked->status() == QY_ERR_NOT_SENT)
        << blocked->what();

    // 20 jobs through a prefetch of 5: acks must reach the broker for the rest to come.
    std::set<std::string> received;
    while (received.size() < enqueued.size()) {
        auto delivery = consumer->next(5s);
        ASSERT_TRUE(delivery) << "consuming stopped under the alarm after " << received.size()
                              << " of " << enqueued.size() << " jobs";
        received.insert(delivery->envelope().job_id);
        delivery->ack();
    }
    EXPECT_EQ(received, enqueued);
    EXPECT_TRUE(eventually(
        [&] {
            const QueueCounts counts = queue_counts(endpoint(), config.name);
            return counts.ready == 0 && counts.unacknowledged == 0;
        },
        5s))
        << "the acks did not reach the broker during the alarm";
    EXPECT_EQ(backend->counters().reconnects, 0u);
}

TEST_F(FlowControl, DeclaresABlockedBrokerDoesNotAnswerTimeOutAndKeepTheConnection) {
    auto backend = backend_with_timeout(1500ms);
    queuey::QueueConfig config = declare_queue();
    backend->declare(config);
    queuey::Producer producer(backend);
    {
        MemoryAlarm alarm(endpoint());
        // Held publishes to four hold queues at once: each declares its hold queue first.
        // The first publish blocks the connection; the declares written after it get no
        // answer until the alarm clears.
        std::vector<std::future<std::vector<queuey::PublishOutcome>>> held;
        const auto start = std::chrono::steady_clock::now();
        for (int i = 1; i <= 4; ++i)
            held.push_back(std::async(std::launch::async, [&, i] {
                return backend->publish(queuey::refs_to({job(config.name)}),
                                        std::chrono::seconds(60 * i));
            }));
        for (auto &outcomes : held) {
            const queuey::PublishOutcome outcome = outcomes.get().front();
            EXPECT_TRUE(outcome.status == QY_ERR_NOT_SENT || outcome.status == QY_ERR_TIMEOUT)
                << outcome.status << ": " << outcome.message;
        }
        EXPECT_LT(std::chrono::steady_clock::now() - start, 1500ms + 1s)
            << "a held publish took longer than its timeout";
        queuey::QueueConfig late;
        late.name = new_queue();
        const auto declare = error_of([&] { backend->declare(late); });
        ASSERT_TRUE(declare) << "a declare was answered by a blocked connection";
        EXPECT_EQ(declare->status(), QY_ERR_TIMEOUT) << declare->what();
        std::this_thread::sleep_for(2s);  // the old RPC timeout would have fired by now
        EXPECT_EQ(backend->counters().reconnects, 0u)
            << "an unanswered declare was taken for a lost connection";
    }
    // Unblocked, the same connection publishes again.
    const queuey::Envelope after = job(config.name);
    EXPECT_FALSE(error_of([&] { producer.enqueue(after); }));
    EXPECT_EQ(backend->counters().reconnects, 0u);
    backend->close();
}

}  // namespace
}  // namespace queuey_it

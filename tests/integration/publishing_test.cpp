// behaviour.md section 4: every publish is mandatory and confirmed; a return is
// QY_ERR_UNROUTABLE and a nack QY_ERR_NACKED, each attributed to its own publish when
// many are in flight on one channel.
#include "broker_ctl.hpp"
#include "core_fixture.hpp"

#include "log.hpp"

#include <atomic>
#include <chrono>
#include <iostream>
#include <mutex>
#include <set>
#include <thread>

namespace queuey_it {
namespace {

using namespace std::chrono_literals;

// A JSON string of bytes bytes, quotes included.
std::string string_payload(std::size_t bytes) { return '"' + std::string(bytes - 2, 'p') + '"'; }

class Publishing : public CoreTest {
protected:
    // The job ids in queue, read off with basic.get.
    std::multiset<std::string> job_ids_in(const std::string &queue) {
        std::multiset<std::string> ids;
        for (const RawMessage &message : raw_->drain(queue))
            ids.insert(message.message_id.value_or("?"));
        return ids;
    }

    // A batch of count jobs for queue, except at the indices in missing, which go to a
    // queue that does not exist; checks each outcome and what arrived. With payload_bytes,
    // each payload is a JSON string of that size.
    void publish_batch_with_unroutable(std::size_t count, const std::set<std::size_t> &missing,
                                       std::size_t payload_bytes = 0) {
        const auto config = declare_queue();
        const std::string nowhere = unique_name("missing");
        std::vector<queuey::Envelope> batch;
        std::multiset<std::string> expected;
        for (std::size_t i = 0; i < count; ++i) {
            const std::string payload =
                payload_bytes ? string_payload(payload_bytes) : "{\"i\":" + std::to_string(i) + "}";
            batch.push_back(job(missing.count(i) ? nowhere : config.name, payload));
            if (!missing.count(i)) expected.insert(batch.back().job_id);
        }
        const auto outcomes = producer_->enqueue_batch(batch);
        ASSERT_EQ(outcomes.size(), count);
        for (std::size_t i = 0; i < count; ++i) {
            if (missing.count(i)) {
                EXPECT_EQ(outcomes[i].status, QY_ERR_UNROUTABLE) << "publish #" << i;
                EXPECT_NE(outcomes[i].message.find(batch[i].job_id), std::string::npos)
                    << outcomes[i].message;
            } else {
                EXPECT_EQ(outcomes[i].status, QY_OK)
                    << "publish #" << i << ": " << outcomes[i].message;
            }
        }
        EXPECT_EQ(raw_->message_count(config.name), count - missing.size());
        EXPECT_EQ(job_ids_in(config.name), expected)
            << "exactly the confirmed jobs are in the queue";
    }
};

TEST_F(Publishing, APublishToAMissingQueueIsUnroutable) {
    const auto error = error_of([&] { producer_->enqueue(job(unique_name("missing"))); });
    ASSERT_TRUE(error) << "an unroutable publish succeeded";
    EXPECT_EQ(error->status(), QY_ERR_UNROUTABLE) << error->what();
    EXPECT_NE(std::string(error->what()).find("NO_ROUTE"), std::string::npos) << error->what();

    const auto config = declare_queue();  // the channel goes on
    producer_->enqueue(job(config.name));
    EXPECT_EQ(raw_->message_count(config.name), 1u);
}

TEST_F(Publishing, OneUnroutablePublishInAPipelinedBatchFailsAloneAndTheOthersArrive) {
    publish_batch_with_unroutable(200, {99});
}

TEST_F(Publishing, UnroutablePublishesAtTheEdgesOfABatchAreAttributedExactly) {
    publish_batch_with_unroutable(200, {0, 1, 57, 198, 199});
}

TEST_F(Publishing, ABatchBiggerThanTheUnconfirmedWindowGoesInPiecesEachJobAttributed) {
    // 24 MiB of bodies: pieces of two jobs, the caller waiting on the oldest while 16 MiB
    // are unconfirmed (batch_pieces.hpp); returns in the first, a middle and the last piece.
    publish_batch_with_unroutable(48, {0, 17, 47}, 512 * 1024);
}

TEST_F(Publishing, ABatchInPiecesThatMeetsABlockEndsInTimeAndItsUnsentJobsNeverArrive) {
    auto options = backend_options(endpoint(), unique_name("blocked-batch"));
    options.publish_timeout = 2s;
    auto backend = std::make_shared<queuey::RabbitBackend>(options);
    queuey::Producer producer(backend);
    queuey::QueueConfig config;
    config.name = new_queue();
    backend->declare(config);
    std::vector<queuey::Envelope> batch;
    for (int i = 0; i < 48; ++i) batch.push_back(job(config.name, string_payload(512 * 1024)));
    std::vector<queuey::PublishOutcome> outcomes;
    std::chrono::steady_clock::duration took{};
    {
        MemoryAlarm alarm(endpoint());
        const auto start = std::chrono::steady_clock::now();
        outcomes = producer.enqueue_batch(batch);
        took = std::chrono::steady_clock::now() - start;
    }
    EXPECT_LT(took, 2s + 3s) << "the publish timeout was not honoured";
    ASSERT_EQ(outcomes.size(), batch.size());
    std::size_t not_sent = 0, unknown = 0;
    std::set<std::string> never_sent;
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        if (outcomes[i].status == QY_ERR_NOT_SENT) {
            ++not_sent;
            never_sent.insert(batch[i].job_id);
        } else {
            EXPECT_EQ(outcomes[i].status, QY_ERR_TIMEOUT)
                << "job #" << i << ": " << outcomes[i].message;
            ++unknown;
        }
    }
    // The caller stopped at the window: most of the batch was never handed over.
    EXPECT_GE(not_sent, batch.size() / 2) << unknown << " of the jobs may have been sent";
    backend->close();
    // Once the alarm is gone the broker reads what was written: at most the unknown ones.
    std::this_thread::sleep_for(1s);
    const std::vector<RawMessage> arrived = raw_->drain(config.name);
    EXPECT_LE(arrived.size(), unknown);
    std::set<std::string> arrived_ids;
    for (const RawMessage &message : arrived) arrived_ids.insert(message.message_id.value_or("?"));
    std::cout << "blocked batch of " << batch.size() << ": not sent " << not_sent
              << ", unconfirmed " << unknown << ", arrived " << arrived.size() << " (duplicated "
              << arrived.size() - arrived_ids.size() << "), call took "
              << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms\n";
    for (const RawMessage &message : arrived)
        EXPECT_EQ(never_sent.count(message.message_id.value_or("?")), 0u)
            << "a job reported not sent reached the queue";
}

TEST_F(Publishing, TheSameJobToAQueueAndToAMissingQueueIsAttributedByQueue) {
    // One envelope published twice in one batch (same message-id): a return can only be
    // told apart by where it was going, not by its id.
    const auto config = declare_queue();
    const queuey::Envelope env = job(config.name);
    queuey::Envelope lost = env;
    lost.queue = unique_name("missing");
    const auto outcomes = producer_->enqueue_batch({env, lost, env});
    ASSERT_EQ(outcomes.size(), 3u);
    EXPECT_EQ(outcomes[0].status, QY_OK) << outcomes[0].message;
    EXPECT_EQ(outcomes[1].status, QY_ERR_UNROUTABLE)
        << "a job that went nowhere was reported as enqueued";
    EXPECT_EQ(outcomes[2].status, QY_OK) << outcomes[2].message;
    EXPECT_EQ(raw_->message_count(config.name), 2u);
}

TEST_F(Publishing, ANackedPublishIsQyErrNacked) {
    // A queue that refuses what does not fit: the broker nacks.
    const std::string full = new_queue("full");
    raw_->declare(
        full, false,
        {{"x-max-length", std::int64_t{1}}, {"x-overflow", std::string("reject-publish")}});
    ASSERT_TRUE(raw_->publish(full, "filler"));
    ASSERT_EQ(raw_->message_count(full), 1u);

    const auto error = error_of([&] { producer_->enqueue(job(full)); });
    ASSERT_TRUE(error) << "a publish to a full reject-publish queue succeeded";
    EXPECT_EQ(error->status(), QY_ERR_NACKED) << error->what();

    // In a batch, only the nacked ones fail.
    const auto config = declare_queue();
    const std::vector<queuey::Envelope> batch = {job(config.name), job(full), job(config.name),
                                                 job(full), job(config.name)};
    const auto outcomes = producer_->enqueue_batch(batch);
    ASSERT_EQ(outcomes.size(), batch.size());
    EXPECT_EQ(outcomes[0].status, QY_OK) << outcomes[0].message;
    EXPECT_EQ(outcomes[1].status, QY_ERR_NACKED) << outcomes[1].message;
    EXPECT_EQ(outcomes[2].status, QY_OK) << outcomes[2].message;
    EXPECT_EQ(outcomes[3].status, QY_ERR_NACKED) << outcomes[3].message;
    EXPECT_EQ(outcomes[4].status, QY_OK) << outcomes[4].message;
    EXPECT_EQ(raw_->message_count(config.name), 3u);
    EXPECT_EQ(raw_->message_count(full), 1u);
}

TEST_F(Publishing, WhileTheBrokerBlocksPublishersAPublishEndsNotSentAndTheBlockIsLogged) {
    auto options = backend_options(endpoint(), unique_name("blocked"));
    options.publish_timeout = 2s;
    std::mutex log_mutex;
    std::vector<std::string> warnings;
    options.connection.logger =
        queuey::Logger::dispatching_to([&](queuey::LogLevel level, const std::string &line) {
            std::lock_guard lock(log_mutex);
            if (level >= queuey::LogLevel::warn) warnings.push_back(line);
        });
    auto backend = std::make_shared<queuey::RabbitBackend>(options);
    queuey::Producer producer(backend);
    queuey::QueueConfig config;
    config.name = new_queue();
    backend->declare(config);
    const queuey::Envelope waiting = job(config.name);
    {
        MemoryAlarm alarm(endpoint());
        // The publish that meets the alarm is written (the broker reads it once the alarm
        // clears); the ones after it wait unsent, as the broker asked.
        error_of([&] { producer.enqueue(job(config.name)); });
        const auto start = std::chrono::steady_clock::now();
        const auto error = error_of([&] { producer.enqueue(waiting); });
        const auto waited = std::chrono::steady_clock::now() - start;
        ASSERT_TRUE(error) << "a publish was confirmed while the broker blocked publishers";
        EXPECT_EQ(error->status(), QY_ERR_NOT_SENT) << error->what();
        EXPECT_NE(std::string(error->what()).find("not in the queue"), std::string::npos)
            << error->what();
        EXPECT_GE(waited, 1900ms);
        EXPECT_LT(waited, 2s + 3s) << "the publish timeout was not honoured";
        std::lock_guard lock(log_mutex);
        bool logged = false;
        for (const std::string &line : warnings)
            logged = logged || line.find("blocked") != std::string::npos;
        EXPECT_TRUE(logged) << "the block was not logged";
    }
    EXPECT_TRUE(
        eventually([&] { return !error_of([&] { producer.enqueue(job(config.name)); }); }, 15s))
        << "publishing did not resume after the alarm cleared";
    backend->close();
    for (const RawMessage &message : raw_->drain(config.name))
        EXPECT_NE(message.message_id, waiting.job_id)
            << "a publish reported not sent reached the queue";
}

TEST_F(Publishing, OnAnIdleConnectionTheCallerWritesItsOwnPublishesAndEachIsConfirmedInOrder) {
    // docs/broker.md, a caller's own publish: the I/O thread sleeps between these calls,
    // so each caller writes on the session itself; confirms still come back through the
    // I/O thread, and an unroutable one is still attributed to its own job.
    const auto config = declare_queue();
    const std::string nowhere = unique_name("missing");
    constexpr int calls = 20;
    std::vector<std::string> sent;
    for (int i = 0; i < calls; ++i) {
        std::this_thread::sleep_for(20ms);  // the I/O thread goes back to poll
        if (i % 5 == 4) {
            const auto error = error_of([&] { producer_->enqueue(job(nowhere)); });
            ASSERT_TRUE(error) << "call #" << i << " to a missing queue succeeded";
            EXPECT_EQ(error->status(), QY_ERR_UNROUTABLE) << error->what();
            continue;
        }
        const queuey::Envelope envelope = job(config.name, "{\"i\":" + std::to_string(i) + "}");
        const auto error = error_of([&] { producer_->enqueue(envelope); });
        ASSERT_FALSE(error) << "call #" << i << ": " << error->what();
        sent.push_back(envelope.job_id);
    }
    // The I/O thread wakes at least once a second for heartbeats: a call may meet it awake.
    EXPECT_GE(backend_->counters().written_by_caller, calls * 3u / 4)
        << "the callers did not write their own publishes";
    std::vector<std::string> arrived;
    for (const RawMessage &message : raw_->drain(config.name))
        arrived.push_back(message.message_id.value_or("?"));
    EXPECT_EQ(arrived, sent);
}

TEST_F(Publishing, CallersPublishingOneAfterAnotherReadTheirOwnConfirmsEachAttributedToItsJob) {
    // docs/broker.md, a caller's own confirm: with calls in quick succession the I/O
    // thread leaves the socket to them, and each caller reads until its confirm is in.
    // Returns read there are still attributed to their own job, and nothing is reordered.
    const auto config = declare_queue();
    const std::string nowhere = unique_name("missing");
    constexpr int calls = 200;
    std::vector<std::string> sent;
    int unroutable = 0;
    for (int i = 0; i < calls; ++i) {
        if (i % 10 == 9) {
            const auto error = error_of([&] { producer_->enqueue(job(nowhere)); });
            ASSERT_TRUE(error) << "call #" << i << " to a missing queue succeeded";
            EXPECT_EQ(error->status(), QY_ERR_UNROUTABLE) << error->what();
            ++unroutable;
            continue;
        }
        const queuey::Envelope envelope = job(config.name, "{\"i\":" + std::to_string(i) + "}");
        const auto error = error_of([&] { producer_->enqueue(envelope); });
        ASSERT_FALSE(error) << "call #" << i << ": " << error->what();
        sent.push_back(envelope.job_id);
    }
    EXPECT_EQ(unroutable, calls / 10);
    // The first call finds the I/O thread watching the socket: most calls, not all, read
    // their own confirm.
    const auto counters = backend_->counters();
    EXPECT_GE(counters.confirmed_by_caller, calls / 2u)
        << "the callers did not read their own confirms (" << counters.written_by_caller
        << " wrote their own publish)";
    EXPECT_LE(counters.confirmed_by_caller, counters.written_by_caller);
    std::vector<std::string> arrived;
    for (const RawMessage &message : raw_->drain(config.name))
        arrived.push_back(message.message_id.value_or("?"));
    EXPECT_EQ(arrived, sent);
}

TEST_F(Publishing, CallersPublishingForSeveralWindowsKeepTheSocketThroughThem) {
    // The I/O thread sleeps on past the end of the callers' window (100 ms) while they
    // keep publishing: no caller is interrupted to hand the session back, and its
    // confirm read by the I/O thread instead (a wake-up each).
    const auto config = declare_queue();
    producer_->enqueue(job(config.name));  // finds the I/O thread watching the socket
    const auto before = backend_->counters();
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(950);
    int calls = 0;
    for (; std::chrono::steady_clock::now() < until; ++calls) producer_->enqueue(job(config.name));
    const auto after = backend_->counters();
    ASSERT_GE(calls, 20) << "too few calls to span the windows";
    // Its once-a-second look interrupts at most one caller reading its confirm; woken at
    // each window's end, it would take the socket from about nine. (Calls that find it
    // awake, as on a busy machine, queue their publish: not what is counted here.) On a
    // machine compiling beside the test (CI's background builds) a second interruption
    // was seen once (its cause not pinned down yet); still far from nine.
    EXPECT_LE(after.readers_interrupted - before.readers_interrupted, 2u)
        << "of " << calls << " calls over 9.5 windows, "
        << after.written_by_caller - before.written_by_caller << " wrote their own publish, "
        << after.confirmed_by_caller - before.confirmed_by_caller << " read its confirm";
}

TEST_F(Publishing, ConcurrentProducersOnOneClientAllGetTheirConfirms) {
    const auto config = declare_queue();
    constexpr int threads = 8, per_thread = 50;
    std::vector<std::thread> workers;
    std::atomic<int> failures{0};
    for (int t = 0; t < threads; ++t)
        workers.emplace_back([&] {
            for (int i = 0; i < per_thread; ++i) {
                if (error_of([&] { producer_->enqueue(job(config.name)); })) ++failures;
            }
        });
    for (auto &worker : workers) worker.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(raw_->message_count(config.name), static_cast<std::uint32_t>(threads * per_thread));
    // Some calls wrote their own publish, the others queued behind them: both kinds mixed.
    const std::uint64_t own = backend_->counters().written_by_caller;
    EXPECT_GT(own, 0u);
    EXPECT_LT(own, static_cast<std::uint64_t>(threads * per_thread));
}

}  // namespace
}  // namespace queuey_it

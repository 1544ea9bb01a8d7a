// The log callback runs on a thread of the client's own (qy_client_options_set_log): a
// callback that blocks holds up the log, never a worker's thread, and qy_client_free()
// delivers what is still queued before it returns.
#include "log_recorder.hpp"
#include "memory_worker.hpp"

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using namespace std::chrono_literals;

// Handlers of "slow" (runs past the job timeout, so its thread logs a warning when it
// returns) and "fast", recording which ran on which thread.
struct Jobs {
    std::atomic<int> slow_returned{0};
    std::atomic<bool> fast_ran{false};
    std::mutex mutex;
    std::vector<std::pair<std::string, std::thread::id>> runs;

    static qy_job_result slow(qy_job *job, void *self) {
        while (!qy_job_cancelled(job)) std::this_thread::sleep_for(5ms);
        static_cast<Jobs *>(self)->ran("slow");
        ++static_cast<Jobs *>(self)->slow_returned;
        return QY_JOB_SUCCESS;
    }
    static qy_job_result fast(qy_job *, void *self) {
        static_cast<Jobs *>(self)->ran("fast");
        static_cast<Jobs *>(self)->fast_ran = true;
        return QY_JOB_SUCCESS;
    }
    void ran(const char *type) {
        std::lock_guard lock(mutex);
        runs.emplace_back(type, std::this_thread::get_id());
    }
};

// A memory:// client logging to its sink, with q declared; its worker runs slow and fast
// jobs one at a time, times out at 50 ms and never retries (a timed-out job logs one line).
// The sink is the fixture's and outlives the client: the client's log thread delivers the
// lines still queued when the client is freed (the worker's shutdown line among them).
class LogThread : public testing::Test {
protected:
    qyt::LogRecorder &start(bool hold_first, std::chrono::milliseconds hold = 10s) {
        sink_.emplace(hold_first, hold);
        start_with(*sink_);
        return *sink_;
    }

    void start_with(qyt::LogRecorder &sink) {
        qy_client_options *opts = nullptr;
        ASSERT_EQ(qy_client_options_new(&opts, nullptr), QY_OK);
        ASSERT_EQ(sink.install(opts), QY_OK);
        qy_client *raw = nullptr;
        ASSERT_EQ(qy_client_new("memory://", opts, &raw, nullptr), QY_OK);
        qy_client_options_free(opts);
        client_.reset(raw);
        qy_queue_config *config = nullptr;
        ASSERT_EQ(qy_queue_config_new("q", &config, nullptr), QY_OK);
        const qyt::QueueConfig owned(config);
        ASSERT_EQ(qy_client_declare(client_.get(), config, nullptr), QY_OK);
        worker_ = qyt::worker_on(client_.get(), "q");
        const qyt::RetryPolicy once = qyt::retry_policy(1);
        ASSERT_EQ(qy_worker_set_default_retry(worker_.get(), once.get(), nullptr), QY_OK);
        ASSERT_EQ(qy_worker_set_job_timeout_ms(worker_.get(), 50, nullptr), QY_OK);
        for (const auto &[type, handler] : {std::pair{"slow", &Jobs::slow}, {"fast", &Jobs::fast}})
            ASSERT_EQ(
                qy_worker_register(worker_.get(), type, handler, &jobs_, nullptr, nullptr, nullptr),
                QY_OK);
        running_ = std::thread([this] { EXPECT_EQ(qy_worker_run(worker_.get(), nullptr), QY_OK); });
    }

    void stop_worker() {
        qy_worker_shutdown(worker_.get());
        if (running_.joinable()) running_.join();
        worker_.reset();
    }

    void TearDown() override {
        stop_worker();
        client_.reset();
    }

    bool eventually(const std::function<bool()> &holds, std::chrono::milliseconds timeout) {
        for (const auto until = std::chrono::steady_clock::now() + timeout;
             std::chrono::steady_clock::now() < until; std::this_thread::sleep_for(5ms))
            if (holds()) return true;
        return holds();
    }

    std::optional<qyt::LogRecorder> sink_;  // destroyed after the client
    Jobs jobs_;
    qyt::Client client_;
    qyt::Worker worker_;
    std::thread running_;
};

TEST_F(LogThread, ACallbackThatBlocksHoldsUpNoWorkerThread) {
    qyt::LogRecorder &sink = start(true);
    qyt::enqueue(client_.get(), "q", "slow");
    qyt::enqueue(client_.get(), "q", "fast");

    // The slow job's dead letter is logged at its timeout, and the worker's only thread
    // logs again when the job returns late; the callback blocks on the first line.
    ASSERT_TRUE(sink.wait_for_lines(1, 5s));
    EXPECT_NE(sink.lines()[0].find("dead-lettered to q.dead"), std::string::npos)
        << sink.lines()[0];
    EXPECT_TRUE(eventually([&] { return jobs_.fast_ran.load(); }, 2s))
        << "the worker's thread waited for the log callback";
    sink.open();
    stop_worker();
    ASSERT_EQ(jobs_.runs.size(), 2u);
    EXPECT_EQ(jobs_.runs[0].first, "slow");
    EXPECT_EQ(jobs_.runs[0].second, jobs_.runs[1].second) << "one worker thread";
    EXPECT_NE(sink.threads()[0], jobs_.runs[0].second) << "the callback ran on the worker";
}

TEST_F(LogThread, FreeingTheClientDeliversTheQueuedLinesFirst) {
    qyt::LogRecorder &sink = start(true, 300ms);  // lets the first line go by itself
    qyt::enqueue(client_.get(), "q", "slow", 3);
    ASSERT_TRUE(eventually([&] { return jobs_.slow_returned.load() == 3; }, 5s));
    stop_worker();
    client_.reset();

    // Each job's dead letter at its timeout, then its handler's late return (and the
    // worker's shutdown line, whenever it came).
    auto lines = sink.lines();
    std::erase_if(lines, [](const std::string &line) {
        return line.find("shutting down: taking no new jobs") != std::string::npos;
    });
    ASSERT_EQ(lines.size(), 6u);
    for (std::size_t i = 0; i < lines.size(); ++i)
        EXPECT_NE(lines[i].find(i % 2 ? "returned after it had timed out" : "dead-lettered"),
                  std::string::npos)
            << lines[i];
    const auto threads = sink.threads();
    for (std::size_t i = 1; i < threads.size(); ++i)
        EXPECT_EQ(threads[0], threads[i]) << "one log thread per client";
}

}  // namespace

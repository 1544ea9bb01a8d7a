// qy_worker_shutdown_on_signals (docs/worker.md, signals): SIGTERM and SIGINT shut a
// worker down gracefully, the job it runs finishes, and the process's previous handlers
// come back when the worker is freed. On memory://, in this process.
#include "capi_test.hpp"

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>

namespace {

using namespace std::chrono_literals;

struct Run {
    qy_worker *worker = nullptr;
    std::atomic<int> started{0}, finished{0};
};

qy_job_result slow_job(qy_job *, void *user_data) {
    auto *run = static_cast<Run *>(user_data);
    ++run->started;
    std::this_thread::sleep_for(100ms);
    ++run->finished;
    return QY_JOB_SUCCESS;
}

void expect_graceful_stop_on(int signal) {
    struct sigaction before {};
    ASSERT_EQ(sigaction(signal, nullptr, &before), 0);

    qy_client *client = nullptr;
    ASSERT_EQ(qy_client_new("memory://", nullptr, &client, nullptr), QY_OK);
    qy_queue_config *config = nullptr;
    ASSERT_EQ(qy_queue_config_new("q", &config, nullptr), QY_OK);
    ASSERT_EQ(qy_client_declare(client, config, nullptr), QY_OK);
    qy_queue_config_free(config);
    qy_producer *producer = nullptr;
    ASSERT_EQ(qy_producer_new(client, &producer, nullptr), QY_OK);
    constexpr int jobs = 4;
    for (int i = 0; i < jobs; ++i) {
        qy_envelope *env = nullptr;
        ASSERT_EQ(qy_envelope_new("t", "q", "{}", 2, &env, nullptr), QY_OK);
        EXPECT_EQ(qy_producer_enqueue(producer, env, nullptr), QY_OK);
        qy_envelope_free(env);
    }
    qy_producer_free(producer);

    Run run;
    const char *queues[] = {"q"};
    ASSERT_EQ(qy_worker_new(client, queues, 1, &run.worker, nullptr), QY_OK);
    ASSERT_EQ(qy_worker_set_concurrency(run.worker, 1, nullptr),
              QY_OK);  // the rest waits, received
    ASSERT_EQ(qy_worker_register(run.worker, "t", slow_job, &run, nullptr, nullptr, nullptr),
              QY_OK);
    ASSERT_EQ(qy_worker_shutdown_on_signals(run.worker, nullptr), QY_OK);
    ASSERT_EQ(qy_worker_shutdown_on_signals(run.worker, nullptr), QY_OK)
        << "a second call does nothing";
    std::atomic<bool> returned{false};
    qy_status status = QY_ERR_INTERNAL;
    std::thread running([&] {
        status = qy_worker_run(run.worker, nullptr);
        returned = true;
    });
    for (int i = 0; i < 500 && run.started == 0; ++i) std::this_thread::sleep_for(10ms);
    ASSERT_GT(run.started.load(), 0);
    ASSERT_EQ(std::raise(signal), 0);
    for (int i = 0; i < 500 && !returned; ++i) std::this_thread::sleep_for(10ms);
    EXPECT_TRUE(returned) << "the worker did not stop within 5 s of the signal";
    running.join();

    // memory:// hands out a job only when a thread takes it: what was taken ran to its
    // end and was acknowledged; the rest waits in the queue, untouched.
    EXPECT_EQ(status, QY_OK);
    EXPECT_EQ(run.finished.load(), run.started.load()) << "a job that had started was cut short";
    const auto succeeded = qy_worker_counter(run.worker, QY_COUNTER_SUCCEEDED);
    EXPECT_EQ(succeeded, static_cast<uint64_t>(run.finished.load()));
    uint64_t pending = 0;
    ASSERT_EQ(qy_client_memory_count(client, "q", QY_MEMORY_PENDING, &pending, nullptr), QY_OK);
    EXPECT_EQ(pending + succeeded, static_cast<uint64_t>(jobs)) << "nothing lost";
    EXPECT_GT(pending, 0u) << "the worker stopped taking jobs after the signal";
    qy_worker_free(run.worker);
    qy_client_free(client);

    struct sigaction after {};
    ASSERT_EQ(sigaction(signal, nullptr, &after), 0);
    EXPECT_EQ(after.sa_handler, before.sa_handler) << "the previous handler came back";
}

TEST(StopSignals, SigtermShutsTheWorkerDownGracefully) { expect_graceful_stop_on(SIGTERM); }

TEST(StopSignals, SigintShutsTheWorkerDownGracefully) { expect_graceful_stop_on(SIGINT); }

TEST(StopSignals, ANullWorkerIsRefused) {
    EXPECT_EQ(qy_worker_shutdown_on_signals(nullptr, nullptr), QY_ERR_INVALID_ARGUMENT);
}

}  // namespace

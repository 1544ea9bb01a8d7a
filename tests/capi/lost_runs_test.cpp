// The lost-run budget through the C API (docs/worker.md, lost runs), on memory://:
// its setters refuse what they must, and a job lost as often as the budget allows is
// dead-lettered with the documented reason and counter.
#include "capi_test.hpp"
#include "log_recorder.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;

using Client = std::unique_ptr<qy_client, qyt::Deleter<qy_client_free>>;
using QueueConfig = std::unique_ptr<qy_queue_config, qyt::Deleter<qy_queue_config_free>>;
using Worker = std::unique_ptr<qy_worker, qyt::Deleter<qy_worker_free>>;

// A memory:// client, its log lines recorded by log when given.
Client memory_client(qyt::LogRecorder *log = nullptr) {
    qy_client_options *opts = nullptr;
    EXPECT_EQ(qy_client_options_new(&opts, nullptr), QY_OK);
    if (log) {
        EXPECT_EQ(log->install(opts), QY_OK);
    }
    qy_client *client = nullptr;
    EXPECT_EQ(qy_client_new("memory://", opts, &client, nullptr), QY_OK);
    qy_client_options_free(opts);
    return Client(client);
}

QueueConfig queue_config(const char *name) {
    qy_queue_config *config = nullptr;
    EXPECT_EQ(qy_queue_config_new(name, &config, nullptr), QY_OK);
    return QueueConfig(config);
}

Worker worker_of(qy_client *client, const char *queue) {
    qy_worker *worker = nullptr;
    const char *queues[] = {queue};
    EXPECT_EQ(qy_worker_new(client, queues, 1, &worker, nullptr), QY_OK);
    return Worker(worker);
}

TEST(LostRuns, ABudgetOfZeroOrANullHandleIsRefused) {
    const Client client = memory_client();
    const QueueConfig config = queue_config("q");
    qy_error *err = nullptr;
    qy_status status = qy_queue_config_set_max_lost_runs(config.get(), 0, &err);
    EXPECT_TRUE(
        qyt::failed_with(status, err, QY_ERR_INVALID_ARGUMENT, "at least 1", "max_lost_runs"));
    qy_error_free(err);
    EXPECT_EQ(qy_queue_config_set_max_lost_runs(nullptr, 2, nullptr), QY_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(qy_queue_config_set_max_lost_runs(config.get(), UINT32_MAX, nullptr), QY_OK);
    ASSERT_EQ(qy_client_declare(client.get(), config.get(), nullptr), QY_OK);

    const Worker worker = worker_of(client.get(), "q");
    err = nullptr;
    status = qy_worker_set_max_lost_runs(worker.get(), 0, &err);
    EXPECT_TRUE(
        qyt::failed_with(status, err, QY_ERR_INVALID_ARGUMENT, "at least 1", "max_lost_runs"));
    qy_error_free(err);
    EXPECT_EQ(qy_worker_set_max_lost_runs(nullptr, 2, nullptr), QY_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(qy_worker_set_max_lost_runs(worker.get(), 1, nullptr), QY_OK);
    EXPECT_EQ(qy_worker_counter(worker.get(), QY_COUNTER_DEAD_LETTERED_LOST), 0u);
}

struct Seen {
    qy_worker *worker = nullptr;
    std::vector<std::string> dead;  // the reasons
    int runs = 0;
};

TEST(LostRuns, AJobLostAsOftenAsTheQueuesBudgetIsDeadLetteredWithoutRunning) {
    qyt::LogRecorder log;
    const Client client = memory_client(&log);
    const QueueConfig config = queue_config("q");
    ASSERT_EQ(qy_queue_config_set_max_lost_runs(config.get(), 1, nullptr), QY_OK);
    ASSERT_EQ(qy_client_declare(client.get(), config.get(), nullptr), QY_OK);
    qy_producer *producer = nullptr;
    ASSERT_EQ(qy_producer_new(client.get(), &producer, nullptr), QY_OK);
    qy_envelope *env = nullptr;
    ASSERT_EQ(qy_envelope_new("t", "q", "{}", 2, &env, nullptr), QY_OK);
    EXPECT_EQ(qy_producer_enqueue(producer, env, nullptr), QY_OK);
    const std::string job_id = qy_envelope_job_id(env);
    qy_envelope_free(env);
    qy_producer_free(producer);

    // A consumer takes the job and drops it unsettled: a lost run.
    qy_consumer *consumer = nullptr;
    ASSERT_EQ(qy_consumer_new(client.get(), "q", &consumer, nullptr), QY_OK);
    qy_delivery *delivery = nullptr;
    ASSERT_EQ(qy_consumer_next(consumer, 5000, &delivery, nullptr), QY_OK);
    ASSERT_NE(delivery, nullptr);
    qy_delivery_free(delivery);
    qy_consumer_free(consumer);

    const Worker worker = worker_of(client.get(), "q");
    ASSERT_EQ(qy_worker_set_max_lost_runs(worker.get(), 5, nullptr), QY_OK);  // the queue's wins
    Seen seen;
    seen.worker = worker.get();
    const auto handler = [](qy_job *, void *user_data) {
        ++static_cast<Seen *>(user_data)->runs;
        return QY_JOB_SUCCESS;
    };
    const auto hook = [](const qy_envelope *, const char *reason, void *user_data) {
        auto *s = static_cast<Seen *>(user_data);
        s->dead.emplace_back(reason);
        qy_worker_shutdown(s->worker);
    };
    ASSERT_EQ(qy_worker_register(worker.get(), "t", handler, &seen, nullptr, nullptr, nullptr),
              QY_OK);
    ASSERT_EQ(qy_worker_set_dead_letter_hook(worker.get(), hook, &seen, nullptr, nullptr), QY_OK);
    ASSERT_EQ(qy_worker_run(worker.get(), nullptr), QY_OK);

    EXPECT_EQ(seen.dead,
              std::vector<std::string>{"lost 1 times: the worker was lost while running the job"});
    EXPECT_EQ(seen.runs, 0);
    EXPECT_EQ(qy_worker_counter(worker.get(), QY_COUNTER_DEAD_LETTERED_LOST), 1u);
    EXPECT_EQ(qy_worker_counter(worker.get(), QY_COUNTER_WORKER_LOST), 1u);
    EXPECT_EQ(qy_worker_counter(worker.get(), QY_COUNTER_DEAD_LETTERED_EXHAUSTED), 0u);
    // Issue 41: the run that spent the budget was the one lost run never logged.
    const std::string line = "3 job " + job_id +
                             " (type `t`, queue q) dead-lettered to q.dead at attempt 1: lost 1 "
                             "times: the worker was lost while running the job";
    const auto logged = [&] {
        const std::vector<std::string> lines = log.lines();
        return std::find(lines.begin(), lines.end(), line) != lines.end();
    };
    for (int i = 0; i < 500 && !logged(); ++i) std::this_thread::sleep_for(10ms);
    EXPECT_TRUE(logged()) << line;
}

}  // namespace

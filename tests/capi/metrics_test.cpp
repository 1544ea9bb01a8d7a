// qy_worker_metrics_text() through the C API: a worker on memory:// runs jobs of two job
// types (successes, a retry then a fatal error, a timeout) and one of a type without a
// handler; the text has their exact counts, cumulative buckets, and reads while the
// worker runs. NULL arguments are refused.
#include "memory_worker.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;

// The worker's metrics text, or "" (and a test failure).
std::string metrics_text(const qy_worker *worker) {
    char *raw = nullptr;
    size_t len = 0;
    qy_error *err = nullptr;
    const qy_status status = qy_worker_metrics_text(worker, &raw, &len, &err);
    const qyt::String text(raw);
    const qyt::Error owned_err(err);
    if (status != QY_OK || !text) {
        ADD_FAILURE() << "qy_worker_metrics_text: " << qy_status_name(status);
        return {};
    }
    EXPECT_EQ(std::strlen(text.get()), len);
    return {text.get(), len};
}

// The value of the sample whose name and labels are `series`, or -1 when it is missing.
long long sample(const std::string &text, const std::string &series) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind(series + " ", 0) == 0) return std::stoll(line.substr(series.size() + 1));
    return -1;
}

std::string jobs(const char *job_type, const char *outcome) {
    return std::string("queuey_jobs_total{queue=\"q\",job_type=\"") + job_type + "\",outcome=\"" +
           outcome + "\"}";
}

// The bucket counts of a job type's histogram, in the order of the text.
std::vector<long long> buckets(const std::string &text, const char *job_type) {
    const std::string prefix =
        std::string("queuey_job_duration_seconds_bucket{queue=\"q\",job_type=\"") + job_type +
        "\",le=\"";
    std::vector<long long> counts;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind(prefix, 0) == 0) counts.push_back(std::stoll(line.substr(line.rfind(' '))));
    return counts;
}

// "a": succeeds, once after 30 ms. "b": a retry on attempt 1, a fatal error on attempt 2.
// "slow": past the 200 ms timeout on attempt 1, succeeds on attempt 2.
qy_job_result succeed(qy_job *job, void *) {
    const qy_envelope *env = qy_job_envelope(job);
    size_t len = 0;
    const char *payload = qy_envelope_payload(env, &len);
    if (std::string(payload, len) == "\"slow\"") std::this_thread::sleep_for(30ms);
    return QY_JOB_SUCCESS;
}
qy_job_result retry_then_fail(qy_job *job, void *) {
    return qy_envelope_attempt(qy_job_envelope(job)) == 1 ? QY_JOB_RETRY : QY_JOB_FATAL;
}
qy_job_result time_out_once(qy_job *job, void *) {
    if (qy_envelope_attempt(qy_job_envelope(job)) == 1) std::this_thread::sleep_for(400ms);
    return QY_JOB_SUCCESS;
}

void enqueue_payload(qy_client *client, const char *job_type, const char *payload) {
    qy_producer *raw = nullptr;
    ASSERT_EQ(qy_producer_new(client, &raw, nullptr), QY_OK);
    const qyt::Producer producer(raw);
    qy_envelope *env = nullptr;
    ASSERT_EQ(qy_envelope_new(job_type, "q", payload, std::strlen(payload), &env, nullptr), QY_OK);
    const qyt::Envelope owned(env);
    ASSERT_EQ(qy_producer_enqueue(producer.get(), env, nullptr), QY_OK);
}

TEST(Metrics, CountsEachOutcomePerJobTypeWithCumulativeBuckets) {
    const qyt::Client client = qyt::memory_client("q");
    ASSERT_TRUE(client);
    qyt::enqueue(client.get(), "q", "a", 2);
    enqueue_payload(client.get(), "a", "\"slow\"");
    qyt::enqueue(client.get(), "q", "b", 2);
    qyt::enqueue(client.get(), "q", "slow", 1);
    qyt::enqueue(client.get(), "q", "nobody", 1);
    const qyt::Worker worker = qyt::worker_on(client.get(), "q", 4);
    ASSERT_TRUE(worker);
    const qyt::RetryPolicy twice = qyt::retry_policy(2);
    ASSERT_EQ(qy_worker_set_default_retry(worker.get(), twice.get(), nullptr), QY_OK);
    ASSERT_EQ(qy_worker_set_job_timeout_ms(worker.get(), 200, nullptr), QY_OK);
    for (const auto &[type, handler] :
         {std::pair{"a", &succeed}, {"b", &retry_then_fail}, {"slow", &time_out_once}})
        ASSERT_EQ(
            qy_worker_register(worker.get(), type, handler, nullptr, nullptr, nullptr, nullptr),
            QY_OK);

    // Before the run: every count 0, no series yet.
    std::string text = metrics_text(worker.get());
    EXPECT_EQ(sample(text, "queuey_worker_jobs_in_flight"), 0);
    EXPECT_EQ(text.find("queuey_jobs_total{"), std::string::npos);

    std::thread running([&] { EXPECT_EQ(qy_worker_run(worker.get(), nullptr), QY_OK); });
    std::atomic<bool> idle{false};
    std::thread reader([&] {  // reads while the worker runs
        for (; !idle; std::this_thread::sleep_for(1ms))
            EXPECT_NE(metrics_text(worker.get()).find("queuey_jobs_total"), std::string::npos);
    });
    EXPECT_EQ(qy_client_memory_wait_idle(client.get(), 10000, nullptr), QY_OK);
    idle = true;
    reader.join();
    qy_worker_shutdown(worker.get());
    running.join();  // the timed-out handler has returned: its duration is counted

    text = metrics_text(worker.get());
    SCOPED_TRACE(text);
    EXPECT_EQ(sample(text, jobs("a", "succeeded")), 3);
    EXPECT_EQ(sample(text, jobs("a", "retried")), 0);
    EXPECT_EQ(sample(text, jobs("a", "dead_lettered")), 0);
    EXPECT_EQ(sample(text, jobs("b", "succeeded")), 0);
    EXPECT_EQ(sample(text, jobs("b", "retried")), 2);
    EXPECT_EQ(sample(text, jobs("b", "dead_lettered")), 2);
    EXPECT_EQ(sample(text, jobs("b", "timed_out")), 0);
    EXPECT_EQ(sample(text, jobs("slow", "timed_out")), 1);
    EXPECT_EQ(sample(text, jobs("slow", "retried")), 0);  // the timed-out run counts once
    EXPECT_EQ(sample(text, jobs("slow", "succeeded")), 1);
    EXPECT_EQ(sample(text, jobs("(no handler)", "dead_lettered")), 1);
    EXPECT_EQ(text.find("job_type=\"nobody\""), std::string::npos);
    EXPECT_EQ(sample(text, "queuey_worker_dead_lettered_total{reason=\"fatal\"}"), 2);
    EXPECT_EQ(sample(text, "queuey_worker_dead_lettered_total{reason=\"unknown_type\"}"), 1);
    EXPECT_EQ(sample(text, "queuey_worker_jobs_in_flight"), 0);
    EXPECT_EQ(sample(text, "queuey_worker_settle_failures_total"), 0);
    // The queue it consumed, counted when the text was asked for: drained, and the
    // worker's consumer gone with its shutdown.
    EXPECT_EQ(sample(text, "queuey_queue_messages_ready{queue=\"q\"}"), 0);
    EXPECT_EQ(sample(text, "queuey_queue_consumers{queue=\"q\"}"), 0);

    // Handler runs: a 3, b 4 (two attempts each), slow 2; none for the unknown type.
    for (const auto &[type, runs] :
         {std::pair{"a", 3}, {"b", 4}, {"slow", 2}, {"(no handler)", 0}}) {
        const std::vector<long long> counts = buckets(text, type);
        ASSERT_EQ(counts.size(), 15u) << type;
        for (std::size_t i = 1; i < counts.size(); ++i) EXPECT_LE(counts[i - 1], counts[i]) << type;
        EXPECT_EQ(counts.back(), runs) << type;
        EXPECT_EQ(
            sample(text, std::string("queuey_job_duration_seconds_count{queue=\"q\",job_type=\"") +
                             type + "\"}"),
            runs)
            << type;
    }
    EXPECT_LE(buckets(text, "a")[2], 2);     // le="0.025": not the 30 ms run
    EXPECT_LE(buckets(text, "slow")[5], 1);  // le="0.25": not the 400 ms run
}

// Issue 41: a job type that is no UTF-8 was registered (qy_envelope_new refuses it), and
// its series made the whole metrics text invalid UTF-8, which Prometheus rejects.
TEST(Metrics, AJobTypeThatIsNoUtf8IsRefusedAtRegistration) {
    const qyt::Client client = qyt::memory_client("q");
    ASSERT_TRUE(client);
    const qyt::Worker worker = qyt::worker_on(client.get(), "q");
    const auto handler = [](qy_job *, void *) { return QY_JOB_SUCCESS; };
    qy_error *err = nullptr;
    const qy_status status =
        qy_worker_register(worker.get(), "caf\xe9", handler, nullptr, nullptr, nullptr, &err);
    EXPECT_TRUE(qyt::failed_with(status, err, QY_ERR_INVALID_ARGUMENT, "UTF-8", "job_type"));
    qy_error_free(err);
    char *text = nullptr;
    size_t len = 0;
    ASSERT_EQ(qy_worker_metrics_text(worker.get(), &text, &len, nullptr), QY_OK);
    EXPECT_EQ(std::string(text, len).find("caf"), std::string::npos);
    qy_string_free(text);
}

TEST(Metrics, NullArgumentsAreRefused) {
    const qyt::Client client = qyt::memory_client("q");
    ASSERT_TRUE(client);
    const qyt::Worker worker = qyt::worker_on(client.get(), "q");
    char *text = nullptr;
    size_t len = 0;
    qy_error *err = nullptr;
    const qy_status status = qy_worker_metrics_text(nullptr, &text, &len, &err);
    EXPECT_TRUE(qyt::failed_with(status, err, QY_ERR_INVALID_ARGUMENT, "worker", nullptr));
    qy_error_free(err);
    EXPECT_EQ(text, nullptr);
    EXPECT_EQ(qy_worker_metrics_text(worker.get(), nullptr, &len, nullptr),
              QY_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(qy_worker_metrics_text(worker.get(), &text, nullptr, nullptr),
              QY_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(text, nullptr);
}

}  // namespace

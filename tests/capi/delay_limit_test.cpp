// Delays longer than a hold queue can express (2147483647 ms, behaviour.md section 3)
// are refused where they are set, naming the parameter. Taken silently, they made every
// settle of the job fail later and left it unacknowledged for the worker's lifetime.
#include "memory_worker.hpp"

#include <atomic>
#include <string>
#include <tuple>

namespace {

using qyt::failed_with;

constexpr std::uint64_t longest_ms = 2147483647;
constexpr std::uint64_t too_long_ms = 3000000000;  // the delay of the report in issue 10

TEST(DelayLimit, FixedRetryDelay) {
    const auto policy = qyt::retry_policy(3);
    EXPECT_EQ(qy_retry_policy_set_fixed(policy.get(), longest_ms, nullptr), QY_OK);
    qy_error *raw = nullptr;
    const qy_status status = qy_retry_policy_set_fixed(policy.get(), too_long_ms, &raw);
    const qyt::Error err(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "2147483647", "delay_ms"));
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "3000000000", "delay_ms"));
}

TEST(DelayLimit, ExponentialBaseAndMaximum) {
    const auto policy = qyt::retry_policy(3);
    EXPECT_EQ(
        qy_retry_policy_set_exponential(policy.get(), longest_ms, 2.0, longest_ms, 1, nullptr),
        QY_OK);
    for (const auto &[base, max, field] : {std::tuple(longest_ms, too_long_ms, "max_ms"),
                                           std::tuple(too_long_ms, longest_ms, "base_ms"),
                                           std::tuple(UINT64_MAX, UINT64_MAX, "base_ms")}) {
        qy_error *raw = nullptr;
        const qy_status status =
            qy_retry_policy_set_exponential(policy.get(), base, 2.0, max, 1, &raw);
        const qyt::Error err(raw);
        EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "2147483647", field))
            << "base " << base << ", max " << max;
    }
}

// What a handler saw when it asked for a deferral.
struct DeferCall {
    qy_worker *worker = nullptr;
    std::uint64_t delay_ms = 0;
    std::atomic<qy_status> status{QY_OK};
    std::string field;
    std::string message;
};

qy_job_result defer_then_stop(qy_job *job, void *user_data) {
    auto &call = *static_cast<DeferCall *>(user_data);
    qy_error *raw = nullptr;
    call.status = qy_job_set_defer(job, call.delay_ms, "later", &raw);
    const qyt::Error err(raw);
    if (err) {
        call.field = qy_error_field(err.get()) ? qy_error_field(err.get()) : "";
        call.message = qy_error_message(err.get());
    }
    qy_worker_shutdown(call.worker);
    return err ? QY_JOB_FATAL : QY_JOB_DEFER;
}

// Runs one job whose handler defers it by delay_ms.
void run_deferral(DeferCall &call, qy_client *client) {
    qyt::enqueue(client, "q", "t");
    const qyt::Worker worker = qyt::worker_on(client, "q");
    call.worker = worker.get();
    ASSERT_EQ(
        qy_worker_register(worker.get(), "t", defer_then_stop, &call, nullptr, nullptr, nullptr),
        QY_OK);
    ASSERT_EQ(qy_worker_run(worker.get(), nullptr), QY_OK);
}

TEST(DelayLimit, HandlerDeferral) {
    DeferCall call;
    call.delay_ms = too_long_ms;
    const qyt::Client client = qyt::memory_client("q");
    run_deferral(call, client.get());
    EXPECT_EQ(call.status, QY_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(call.field, "delay_ms");
    EXPECT_NE(call.message.find("2147483647"), std::string::npos) << call.message;
    // The handler saw the error and chose another outcome: nothing stays unsettled.
    EXPECT_EQ(qyt::memory_count(client.get(), "q", QY_MEMORY_IN_FLIGHT), 0u);
}

TEST(DelayLimit, HandlerDeferralOfTheLongestDelay) {
    DeferCall call;
    call.delay_ms = longest_ms;
    const qyt::Client client = qyt::memory_client("q");
    run_deferral(call, client.get());
    EXPECT_EQ(call.status, QY_OK) << call.message;
    EXPECT_EQ(qyt::memory_count(client.get(), "q", QY_MEMORY_HELD), 1u);
}

}  // namespace

// queuey.hpp's own types over libqueuey: the Outcome and Counter enums map onto the C
// enums value for value, Fatal and Defer are plain std::exceptions, and a handler's
// outcome, returned (as either enum) or thrown, settles its job as the C result would
// (on memory://, one job per run).
#include <queuey/queuey.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>

namespace {

using namespace std::chrono_literals;

TEST(CppOutcome, MapsOntoQyJobResult) {
    EXPECT_EQ(static_cast<int>(queuey::Outcome::success), QY_JOB_SUCCESS);
    EXPECT_EQ(static_cast<int>(queuey::Outcome::retry), QY_JOB_RETRY);
    EXPECT_EQ(static_cast<int>(queuey::Outcome::fatal), QY_JOB_FATAL);
    EXPECT_EQ(static_cast<int>(queuey::Outcome::defer), QY_JOB_DEFER);
    EXPECT_EQ(static_cast<int>(queuey::Outcome::undecodable), QY_JOB_UNDECODABLE);
    EXPECT_EQ(queuey::detail::result_of(queuey::Outcome::defer), QY_JOB_DEFER);
    EXPECT_EQ(queuey::detail::result_of(QY_JOB_FATAL), QY_JOB_FATAL);
}

TEST(CppCounter, MapsOntoQyCounter) {
    using queuey::Counter;
    const std::pair<Counter, qy_counter> pairs[] = {
        {Counter::succeeded, QY_COUNTER_SUCCEEDED},
        {Counter::retried, QY_COUNTER_RETRIED},
        {Counter::deferred, QY_COUNTER_DEFERRED},
        {Counter::dead_lettered_fatal, QY_COUNTER_DEAD_LETTERED_FATAL},
        {Counter::dead_lettered_exhausted, QY_COUNTER_DEAD_LETTERED_EXHAUSTED},
        {Counter::dead_lettered_unknown_type, QY_COUNTER_DEAD_LETTERED_UNKNOWN_TYPE},
        {Counter::dead_lettered_undecodable, QY_COUNTER_DEAD_LETTERED_UNDECODABLE},
        {Counter::timed_out, QY_COUNTER_TIMED_OUT},
        {Counter::worker_lost, QY_COUNTER_WORKER_LOST},
        {Counter::settle_failures, QY_COUNTER_SETTLE_FAILURES},
        {Counter::in_flight, QY_COUNTER_IN_FLIGHT},
        {Counter::dead_lettered_lost, QY_COUNTER_DEAD_LETTERED_LOST},
        {Counter::dead_lettered_malformed, QY_COUNTER_DEAD_LETTERED_MALFORMED},
        {Counter::dropped_malformed, QY_COUNTER_DROPPED_MALFORMED},
        {Counter::parked, QY_COUNTER_PARKED},
        {Counter::duplicate_fires, QY_COUNTER_DUPLICATE_FIRES},
    };
    EXPECT_EQ(std::size(pairs), 16u);  // every qy_counter of this version
    for (const auto &[cpp, c] : pairs) EXPECT_EQ(static_cast<int>(cpp), static_cast<int>(c));
}

TEST(CppExceptions, AreStdExceptionsWhoseWhatIsTheReason) {
    static_assert(std::is_base_of_v<std::exception, queuey::Fatal>);
    static_assert(std::is_base_of_v<std::exception, queuey::Defer>);
    static_assert(!std::is_base_of_v<std::runtime_error, queuey::Fatal>);
    static_assert(std::is_nothrow_copy_constructible_v<queuey::Fatal>);
    static_assert(std::is_nothrow_copy_constructible_v<queuey::Defer>);
    const queuey::Fatal fatal{"card declined"};
    EXPECT_STREQ(fatal.what(), "card declined");
    const queuey::Defer defer{2s, std::string("not ready")};
    EXPECT_STREQ(defer.what(), "not ready");
    EXPECT_EQ(defer.delay(), 2000ms);
    const queuey::Defer copy = defer;
    EXPECT_STREQ(copy.what(), "not ready");
}

// One job of type "t" through a worker with handler fn and a retry policy of
// max_attempts; returns the worker's counters once the job's last run is settled.
struct Settled {
    uint64_t succeeded, retried, deferred, fatal, exhausted, undecodable;
    std::string dead_reason;
};

template <typename F>
Settled run_one(F fn, uint32_t max_attempts = 1) {
    queuey::Client client("memory://");
    client.declare(queuey::QueueConfig("q"));
    queuey::Producer(client).enqueue(queuey::Envelope("t", "q", "{}"));
    queuey::Worker worker(client, {"q"});
    worker.concurrency(1).default_retry(queuey::RetryPolicy(max_attempts));
    std::string reason;
    worker.on_dead_letter([&](queuey::EnvelopeView, std::string_view why) { reason = why; });
    worker.handle("t", fn);
    std::thread runner([&] { worker.run(); });
    EXPECT_EQ(qy_client_memory_wait_idle(client.get(), 10000, nullptr), QY_OK);
    worker.shutdown();
    runner.join();
    using queuey::Counter;
    return {worker.counter(Counter::succeeded),
            worker.counter(Counter::retried),
            worker.counter(Counter::deferred),
            worker.counter(Counter::dead_lettered_fatal),
            worker.counter(Counter::dead_lettered_exhausted),
            worker.counter(Counter::dead_lettered_undecodable),
            reason};
}

TEST(CppHandler, ReturnsAnOutcomeOrAQyJobResult) {
    EXPECT_EQ(run_one([](queuey::Job &) { return queuey::Outcome::success; }).succeeded, 1u);
    EXPECT_EQ(run_one([](queuey::Job &) { return QY_JOB_SUCCESS; }).succeeded, 1u);
    const Settled fatal = run_one([](queuey::Job &job) { return job.fatal("no such order"); });
    EXPECT_EQ(fatal.fatal, 1u);
    EXPECT_EQ(fatal.dead_reason, "fatal error: no such order");
    const Settled undecodable = run_one([](queuey::Job &job) {
        if (job.attempt() > 5) return queuey::Outcome::success;  // mixes with a helper's
        return job.undecodable("not an order");
    });
    EXPECT_EQ(undecodable.undecodable, 1u);
    EXPECT_EQ(undecodable.dead_reason, "decode error: not an order");
    const Settled retried = run_one(
        [](queuey::Job &job) { return job.attempt() == 1 ? QY_JOB_RETRY : QY_JOB_SUCCESS; }, 2);
    EXPECT_EQ(retried.retried, 1u);
    EXPECT_EQ(retried.succeeded, 1u);
}

TEST(CppHandler, ThrowingFatalDeadLettersAtOnce) {
    const Settled run =
        run_one([](queuey::Job &) -> queuey::Outcome { throw queuey::Fatal{"card declined"}; }, 5);
    EXPECT_EQ(run.fatal, 1u);
    EXPECT_EQ(run.retried, 0u);
    EXPECT_EQ(run.dead_reason, "fatal error: card declined");
}

TEST(CppHandler, ThrowingDeferDefersWithoutSpendingAnAttempt) {
    uint32_t attempt_after_deferral = 0;
    const Settled run = run_one([&](queuey::Job &job) {
        if (job.deferrals() == 0) throw queuey::Defer{1ms, "not ready"};
        attempt_after_deferral = job.attempt();
        return queuey::Outcome::success;
    });
    EXPECT_EQ(run.deferred, 1u);
    EXPECT_EQ(run.succeeded, 1u);
    EXPECT_EQ(attempt_after_deferral, 1u);
}

TEST(CppHandler, ThrowingDeferTooLongIsARetryableError) {
    const Settled run = run_one([](queuey::Job &) -> queuey::Outcome {
        throw queuey::Defer{3000000000ms, "later"};
    });
    EXPECT_EQ(run.deferred, 0u);
    EXPECT_EQ(run.exhausted, 1u);
    EXPECT_NE(run.dead_reason.find("2147483647"), std::string::npos) << run.dead_reason;
}

TEST(CppHandler, ThrowingAnythingElseIsARetryableErrorWithWhat) {
    const Settled run =
        run_one([](queuey::Job &) -> queuey::Outcome { throw std::out_of_range("no row 7"); }, 2);
    EXPECT_EQ(run.retried, 1u);
    EXPECT_EQ(run.exhausted, 1u);
    EXPECT_EQ(run.dead_reason, "max attempts (2) exhausted after attempt 2: no row 7");
    const Settled odd = run_one([](queuey::Job &) -> queuey::Outcome { throw 42; });
    EXPECT_EQ(odd.exhausted, 1u);
    EXPECT_EQ(odd.dead_reason, "max attempts (1) exhausted after attempt 1: the handler threw int");
}

}  // namespace

// Issue 41: `auto p = RetryPolicy(3).fixed(1s);` did not compile (the builders returned a
// reference to the temporary, which a handle cannot be copied from).
TEST(CppRetryPolicy, ABuilderOnATemporaryGivesThePolicy) {
    auto fixed = queuey::RetryPolicy(3).fixed(1s);
    auto exponential = queuey::RetryPolicy(5).exponential(100ms, 2.0, 10s);
    EXPECT_TRUE(fixed);
    EXPECT_TRUE(exponential);
    queuey::RetryPolicy named(2);
    named.fixed(5ms).fixed(6ms);  // and chaining on a named one still works
    EXPECT_TRUE(named);
}

// The worker's behaviour (behaviour.md sections 5, 6 and 9; docs/worker.md), each test run
// twice from this one source: on the in-memory backend and on a RabbitBackend against the
// real broker. Outcomes are observed backend-neutrally: the worker's counters, the
// dead-letter hook, what the handlers saw, and what is left in q and q.dead
// (worker_harness.hpp hides how each backend shows that).
//
// Where the backends differ by design, the test says so and asserts each side:
// - delays: exact on memory (a zero delay is immediate); on RabbitMQ rounded up to the
//   queue's delay granularity, at least one step (50 ms in these tests).
// - crash loops: on RabbitMQ across processes (tests/worker/crash_loop_test.cpp); here
//   a lost worker is simulated in-process on both (a second consumer that goes away
//   holding the job).
#include "worker_harness.hpp"

#include "error.hpp"
#include "memory/memory_backend.hpp"
#include "producer.hpp"
#include "worker/lost_runs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <stdexcept>

namespace queuey_wt {
namespace {

using namespace std::chrono_literals;
using queuey::Envelope;
using queuey::Job;
using queuey::JobOutcome;
using queuey::QueueConfig;
using queuey::RetryPolicy;
using queuey::Worker;
using queuey::WorkerCounters;
using queuey::WorkerOptions;
using Clock = std::chrono::steady_clock;

constexpr const char *job_type = "wt.job";

// How long a test watches for what must not happen once what it waited for has (a second
// run, a second settle, a retry after a dead letter): each would follow within milliseconds
// of the settle that caused it (a publish and a delivery on a local broker or in memory), so
// 200 ms is long enough on a busy machine; the tests that wait longer say why.
constexpr auto quiet_window = 200ms;

std::chrono::milliseconds ms_between(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(to - from);
}

// Every counter, by name, so that a failure says which one is off.
void expect_counters(const WorkerCounters &actual, const WorkerCounters &expected) {
#define QY_EXPECT_COUNTER(field) EXPECT_EQ(actual.field, expected.field) << "counter " #field
    QY_EXPECT_COUNTER(succeeded);
    QY_EXPECT_COUNTER(retried);
    QY_EXPECT_COUNTER(deferred);
    QY_EXPECT_COUNTER(dead_lettered_fatal);
    QY_EXPECT_COUNTER(dead_lettered_exhausted);
    QY_EXPECT_COUNTER(dead_lettered_unknown_type);
    QY_EXPECT_COUNTER(dead_lettered_undecodable);
    QY_EXPECT_COUNTER(timed_out);
    QY_EXPECT_COUNTER(worker_lost);
    QY_EXPECT_COUNTER(settle_failures);
    QY_EXPECT_COUNTER(in_flight);
    QY_EXPECT_COUNTER(dead_lettered_lost);
    QY_EXPECT_COUNTER(dead_lettered_malformed);
    QY_EXPECT_COUNTER(dropped_malformed);
    QY_EXPECT_COUNTER(parked);
    QY_EXPECT_COUNTER(duplicate_fires);
#undef QY_EXPECT_COUNTER
}

// The warnings a worker logged, for the tests of what it logs. Thread-safe.
class Warnings {
public:
    // A sink that records the warnings, then passes every line on to next.
    std::function<void(queuey::LogLevel, const std::string &)> recording(queuey::Logger next) {
        return [this, next](queuey::LogLevel level, const std::string &message) {
            next.log(level, message);
            std::lock_guard lock(mutex_);
            if (level == queuey::LogLevel::warn) lines_.push_back(message);
        };
    }
    // The warnings that contain text.
    std::vector<std::string> containing(const std::string &text) const {
        std::lock_guard lock(mutex_);
        std::vector<std::string> found;
        for (const auto &line : lines_)
            if (line.find(text) != std::string::npos) found.push_back(line);
        return found;
    }

private:
    mutable std::mutex mutex_;
    std::vector<std::string> lines_;
};

class WorkerBehaviour : public OnEachBackend {
protected:
    void TearDown() override {
        threads_.clear();  // shutdown + join, before their workers go
        workers_.clear();
        OnEachBackend::TearDown();
    }

    bool on_memory() const { return GetParam() == BackendKind::memory; }

    QueueConfig declare(const std::function<void(QueueConfig &)> &tweak = {}) {
        return under_->declare_queue(tweak);
    }

    // Options for a worker of these queues that logs to stderr (shown when a test fails).
    WorkerOptions options_for(std::vector<std::string> queues) {
        WorkerOptions options;
        options.queues = std::move(queues);
        options.logger = queuey::Logger::dispatching_to([](queuey::LogLevel level,
                                                           const std::string &message) {
            std::fprintf(stderr, "[worker log %d] %s\n", static_cast<int>(level), message.c_str());
        });
        return options;
    }
    WorkerOptions options_for(const QueueConfig &queue) {
        return options_for(std::vector{queue.name});
    }

    Worker &make_worker(WorkerOptions options, std::shared_ptr<queuey::Backend> backend = nullptr) {
        workers_.push_back(
            std::make_unique<Worker>(backend ? backend : under_->backend(), std::move(options)));
        return *workers_.back();
    }

    // A worker of two threads on q whose handler counts its runs in started, then sleeps
    // for job, and succeeds.
    Worker &two_thread_worker(const QueueConfig &q, std::atomic<int> &started,
                              std::chrono::milliseconds job) {
        WorkerOptions options = options_for(q);
        options.concurrency = 2;
        Worker &worker = make_worker(std::move(options));
        worker.register_handler(job_type, [&started, job](const Job &) {
            ++started;
            std::this_thread::sleep_for(job);
            return JobOutcome::success();
        });
        return worker;
    }

    WorkerThread &start(Worker &worker) {
        threads_.push_back(std::make_unique<WorkerThread>(worker));
        return *threads_.back();
    }

    // A worker of q whose handler succeeds and records its runs, and whose warnings go to
    // warnings too; stopping logger delivers every line the worker logged.
    struct Recorded {
        Worker &worker;
        queuey::Logger logger;
    };
    Recorded succeeding_worker_recording(const QueueConfig &q, Runs &runs, Warnings &warnings) {
        WorkerOptions options = options_for(q);
        options.logger = queuey::Logger::dispatching_to(warnings.recording(options.logger));
        const queuey::Logger logger = options.logger;
        Worker &worker = make_worker(std::move(options));
        worker.register_handler(job_type,
                                recording(runs, [](const Job &) { return JobOutcome::success(); }));
        return {worker, logger};
    }

    // For the lost-run tests: a started worker of q with the lost-run budget
    // max_lost_runs, whose handler succeeds and records its runs.
    struct Started {
        Worker &worker;
        WorkerThread &thread;
    };
    Started start_succeeding(const QueueConfig &q, std::uint32_t max_lost_runs, Runs &runs) {
        WorkerOptions options = options_for(q);
        options.max_lost_runs = max_lost_runs;
        Worker &worker = make_worker(std::move(options));
        worker.register_handler(job_type,
                                recording(runs, [](const Job &) { return JobOutcome::success(); }));
        return {worker, start(worker)};
    }

    Envelope enqueue(const std::string &queue, const std::string &type = job_type,
                     const std::string &payload = R"({"n":1})") {
        Envelope env = Envelope::create(type, queue, payload);
        producer_->enqueue(env);
        return env;
    }

    // Waits until q has at least n dead letters; returns them all.
    std::vector<DeadLetter> wait_dead_letters(const std::string &queue, std::size_t n,
                                              std::chrono::milliseconds timeout = 10s) {
        std::vector<DeadLetter> dead;
        wait_until([&] { return (dead = under_->dead_letters(queue)).size() >= n; }, timeout, 20ms);
        return dead;
    }

    // Publishes a body that is no envelope, on either backend: an envelope whose job_id is
    // no UUID goes out (RabbitMQ takes any body) but does not decode when it is consumed.
    // Its message-id is that job_id.
    Envelope publish_malformed(const std::string &queue, const std::string &payload) {
        Envelope broken = Envelope::create(job_type, queue, payload);
        broken.job_id = "not-a-uuid";
        const auto outcomes = under_->backend()->publish(queuey::refs_to({broken}), std::nullopt);
        EXPECT_EQ(outcomes.at(0).status, QY_OK) << outcomes.at(0).message;
        return broken;
    }

    // The memory backend itself, for the assertions only it can make; nullptr on RabbitMQ.
    queuey::MemoryBackend *memory() {
        return dynamic_cast<queuey::MemoryBackend *>(under_->backend().get());
    }

    // A handler that records every run and answers with decide(job).
    queuey::Handler recording(Runs &runs, std::function<JobOutcome(const Job &)> decide) {
        return [&runs, decide = std::move(decide)](const Job &job) {
            runs.record(job);
            return decide(job);
        };
    }

    // For the precedence tests: a job that always fails; returns how often its handler ran
    // before it was dead-lettered, and checks the reason names expected_max.
    struct Levels {
        std::optional<std::uint32_t> chosen_by_handler, job_type_override, queue_override,
            registered, queue_config, worker_default;
    };
    void expect_effective_max_attempts(const Levels &levels, std::uint32_t expected_max) {
        const QueueConfig q = declare([&](QueueConfig &config) {
            if (levels.queue_config) config.retry_policy = attempts(*levels.queue_config);
        });
        WorkerOptions options = options_for(q);
        if (levels.worker_default) options.default_retry = attempts(*levels.worker_default);
        if (levels.job_type_override)
            options.job_type_retry[job_type] = attempts(*levels.job_type_override);
        if (levels.queue_override) options.queue_retry[q.name] = attempts(*levels.queue_override);
        // Overrides for another job type and another queue never apply here.
        options.job_type_retry["wt.other-type"] = attempts(9);
        options.queue_retry[q.name + ".other"] = attempts(9);
        Worker &worker = make_worker(std::move(options));
        Runs runs;
        const std::optional<RetryPolicy> chosen =
            levels.chosen_by_handler ? std::optional(attempts(*levels.chosen_by_handler))
                                     : std::nullopt;
        worker.register_handler(
            job_type,
            recording(runs,
                      [chosen](const Job &) { return JobOutcome::retryable("failed", chosen); }),
            levels.registered ? std::optional(attempts(*levels.registered)) : std::nullopt);
        const Envelope env = enqueue(q.name);
        WorkerThread &thread = start(worker);

        const auto dead = wait_dead_letters(q.name, 1, 20s);
        thread.stop();
        ASSERT_EQ(dead.size(), 1u) << "the job never reached " << q.name << ".dead";
        EXPECT_EQ(dead[0].reason, "max attempts (" + std::to_string(expected_max) +
                                      ") exhausted after attempt " + std::to_string(expected_max) +
                                      ": failed");
        EXPECT_EQ(dead[0].envelope.attempt, expected_max);
        EXPECT_EQ(runs.of(env.job_id).size(), expected_max)
            << "handler runs before the dead letter";
        const auto counters = worker.counters();
        EXPECT_EQ(counters.retried, expected_max - 1);
        EXPECT_EQ(counters.dead_lettered_exhausted, 1u);
    }

    std::vector<std::unique_ptr<Worker>> workers_;
    std::vector<std::unique_ptr<WorkerThread>> threads_;
};

// ---- 1. the outcome table (docs/worker.md, behaviour.md section 6) ---------------------

TEST_P(WorkerBehaviour, SuccessIsAcknowledged) {
    const QueueConfig q = declare();
    Worker &worker = make_worker(options_for(q));
    Runs runs;
    worker.register_handler(job_type,
                            recording(runs, [](const Job &) { return JobOutcome::success(); }));
    const Envelope env = enqueue(q.name);
    WorkerThread &thread = start(worker);

    ASSERT_TRUE(wait_until([&] { return worker.counters().succeeded == 1; }))
        << "the job never succeeded";
    thread.stop();

    expect_counters(worker.counters(), {.succeeded = 1});
    const auto seen = runs.all();
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].job_id, env.job_id);
    EXPECT_EQ(seen[0].attempt, 1u);
    EXPECT_EQ(seen[0].payload, R"({"n":1})");
    EXPECT_EQ(under_->ready_count(q.name), 0u) << "an acknowledged job is gone";
    EXPECT_TRUE(under_->dead_letters(q.name).empty());
    if (auto *mem = memory()) {
        const auto snapshot = mem->snapshot();
        ASSERT_EQ(snapshot.acked.size(), 1u);
        EXPECT_EQ(snapshot.acked[0].job_id, env.job_id);
        EXPECT_EQ(snapshot.in_flight(q.name), 0u);
    }
}

TEST_P(WorkerBehaviour, RetryableErrorComesBackAsTheNextAttemptAfterTheBackoff) {
    constexpr auto backoff = 120ms;
    const QueueConfig q = declare();
    WorkerOptions options = options_for(q);
    options.default_retry = attempts(3, backoff);
    Worker &worker = make_worker(std::move(options));
    Runs runs;
    worker.register_handler(job_type, recording(runs, [](const Job &job) {
                                return job.envelope().attempt == 1
                                           ? JobOutcome::retryable("try again")
                                           : JobOutcome::success();
                            }));
    const Envelope env = enqueue(q.name);
    WorkerThread &thread = start(worker);

    ASSERT_TRUE(wait_until([&] { return worker.counters().succeeded == 1; }))
        << "the retry never succeeded";
    thread.stop();

    const auto seen = runs.of(env.job_id);
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[0].attempt, 1u);
    EXPECT_EQ(seen[1].attempt, 2u) << "a retry is the next attempt";
    EXPECT_EQ(seen[0].deferrals, 0u);
    EXPECT_EQ(seen[1].deferrals, 0u) << "a retry leaves deferrals unchanged";
    EXPECT_EQ(seen[1].priority, 0) << "a retry goes to the back of the queue";
    EXPECT_EQ(seen[1].payload, seen[0].payload);
    const auto waited = ms_between(seen[0].at, seen[1].at);
    if (on_memory()) {
        // Memory: the delay is exact.
        EXPECT_GE(waited, backoff);
        const auto snapshot = memory()->snapshot();
        ASSERT_EQ(snapshot.retried.size(), 1u);
        EXPECT_EQ(snapshot.retried[0].delay, backoff);
        EXPECT_EQ(snapshot.retried[0].next.attempt, 2u);
    } else {
        // RabbitMQ: 120 ms rounded up to the granularity is one step.
        EXPECT_GE(waited, test_granularity);
    }
    expect_counters(worker.counters(), {.succeeded = 1, .retried = 1});
    EXPECT_TRUE(under_->dead_letters(q.name).empty());
    EXPECT_EQ(under_->ready_count(q.name), 0u);
}

TEST_P(WorkerBehaviour, ZeroBackoffIsImmediateOnMemoryAndOneGranularityStepOnRabbitMQ) {
    // behaviour.md sections 3 and 9: memory delays are exact and a zero delay is immediate;
    // RabbitMQ waits at least one granularity step (here 300 ms, to make it stand out).
    const QueueConfig q = declare([](QueueConfig &config) { config.delay_granularity = 300ms; });
    WorkerOptions options = options_for(q);
    options.default_retry = attempts(2);  // no backoff: a zero delay
    Worker &worker = make_worker(std::move(options));
    Runs runs;
    worker.register_handler(job_type, recording(runs, [](const Job &job) {
                                return job.envelope().attempt == 1 ? JobOutcome::retryable("again")
                                                                   : JobOutcome::success();
                            }));
    const Envelope env = enqueue(q.name);
    WorkerThread &thread = start(worker);
    ASSERT_TRUE(wait_until([&] { return worker.counters().succeeded == 1; }));
    thread.stop();

    const auto seen = runs.of(env.job_id);
    ASSERT_EQ(seen.size(), 2u);
    const auto waited = ms_between(seen[0].at, seen[1].at);
    if (on_memory()) {
        EXPECT_LT(waited, 150ms) << "memory: a zero delay is immediate";
    } else {
        EXPECT_GE(waited, 300ms) << "RabbitMQ: a zero delay waits one granularity step";
    }
}

TEST_P(WorkerBehaviour, RetryableErrorWithoutAttemptsLeftIsDeadLettered) {
    const QueueConfig q = declare();
    WorkerOptions options = options_for(q);
    options.default_retry = attempts(3);
    std::mutex hook_mutex;
    std::vector<HookCall> hooked;
    options.dead_letter_hook = [&](const Envelope &env, const std::string &reason) {
        std::lock_guard lock(hook_mutex);
        hooked.push_back({env, reason, {}});
    };
    Worker &worker = make_worker(std::move(options));
    Runs runs;
    worker.register_handler(
        job_type, recording(runs, [](const Job &) { return JobOutcome::retryable("boom"); }));
    const Envelope env = enqueue(q.name);
    WorkerThread &thread = start(worker);

    const auto dead = wait_dead_letters(q.name, 1);
    thread.stop();

    ASSERT_EQ(dead.size(), 1u);
    EXPECT_EQ(dead[0].reason, "max attempts (3) exhausted after attempt 3: boom");
    EXPECT_EQ(dead[0].envelope.job_id, env.job_id);
    EXPECT_EQ(dead[0].envelope.attempt, 3u);
    EXPECT_EQ(dead[0].envelope.payload, env.payload);
    if (!on_memory()) {
        EXPECT_EQ(dead[0].original_queue, q.name);
        EXPECT_EQ(dead[0].attempts_header, 3);
    }
    const auto seen = runs.of(env.job_id);
    ASSERT_EQ(seen.size(), 3u);
    for (std::uint32_t i = 0; i < 3; ++i) EXPECT_EQ(seen[i].attempt, i + 1);
    expect_counters(worker.counters(), {.retried = 2, .dead_lettered_exhausted = 1});
    std::lock_guard lock(hook_mutex);
    ASSERT_EQ(hooked.size(), 1u);
    EXPECT_EQ(hooked[0].reason, dead[0].reason);
    EXPECT_EQ(hooked[0].envelope.job_id, env.job_id);
    EXPECT_EQ(under_->ready_count(q.name), 0u);
}

TEST_P(WorkerBehaviour, FatalErrorIsDeadLetteredAtOnce) {
    const QueueConfig q = declare();
    WorkerOptions options = options_for(q);
    options.default_retry = attempts(5);  // retries left, but a fatal error does not retry
    Worker &worker = make_worker(std::move(options));
    Runs runs;
    worker.register_handler(job_type, recording(runs, [](const Job &) {
                                return JobOutcome::fatal("the input is wrong");
                            }));
    const Envelope env = enqueue(q.name);
    WorkerThread &thread = start(worker);

    const auto dead = wait_dead_letters(q.name, 1);
    std::this_thread::sleep_for(quiet_window);  // a wrongful retry would run again
    thread.stop();

    ASSERT_EQ(dead.size(), 1u);
    EXPECT_EQ(dead[0].reason, "fatal error: the input is wrong");
    EXPECT_EQ(dead[0].envelope.job_id, env.job_id);
    EXPECT_EQ(dead[0].envelope.attempt, 1u);
    EXPECT_EQ(runs.count(), 1u) << "the handler runs once";
    expect_counters(worker.counters(), {.dead_lettered_fatal = 1});
    EXPECT_EQ(under_->dead_letters(q.name).size(), 1u);
}

TEST_P(WorkerBehaviour, DeferralCostsNoAttemptIgnoresTheRetryPolicyAndArrivesAtMaxPriority) {
    constexpr auto delay = 60ms;
    const QueueConfig q = declare([](QueueConfig &config) { config.max_priority = 7; });
    WorkerOptions options = options_for(q);
    options.default_retry = attempts(1);  // no retries at all: deferrals must not care
    Worker &worker = make_worker(std::move(options));
    Runs runs;
    worker.register_handler(job_type,
                            recording(runs,
                                      [&](const Job &job) {
                                          return job.envelope().deferrals < 3
                                                     ? JobOutcome::deferred(delay, "not yet")
                                                     : JobOutcome::success();
                                      }),
                            attempts(1));
    const Envelope env = enqueue(q.name);
    WorkerThread &thread = start(worker);

    ASSERT_TRUE(wait_until([&] { return worker.counters().succeeded == 1; }))
        << "the job never succeeded";
    thread.stop();

    const auto seen = runs.of(env.job_id);
    ASSERT_EQ(seen.size(), 4u);
    for (std::uint32_t i = 0; i < 4; ++i) {
        SCOPED_TRACE("run " + std::to_string(i + 1));
        EXPECT_EQ(seen[i].attempt, 1u) << "a deferral costs no attempt";
        EXPECT_EQ(seen[i].deferrals, i) << "each deferral adds one";
        EXPECT_EQ(seen[i].priority, i == 0 ? 0 : 7)
            << "a deferred job arrives at the queue's max priority";
        if (i > 0) {
            EXPECT_GE(ms_between(seen[i - 1].at, seen[i].at), delay);
        }
    }
    expect_counters(worker.counters(), {.succeeded = 1, .deferred = 3});
    EXPECT_TRUE(under_->dead_letters(q.name).empty())
        << "the retry policy (1 attempt) was not applied";
    if (auto *mem = memory()) {
        const auto snapshot = mem->snapshot();
        ASSERT_EQ(snapshot.deferred.size(), 3u);
        for (const auto &deferral : snapshot.deferred)
            EXPECT_EQ(deferral.delay, delay) << "memory: exact";
        EXPECT_TRUE(snapshot.retried.empty());
    }
}

TEST_P(WorkerBehaviour, DeferralOnAQueueWithoutPrioritiesArrivesAtPriorityZero) {
    const QueueConfig q = declare([](QueueConfig &config) { config.max_priority.reset(); });
    Worker &worker = make_worker(options_for(q));
    Runs runs;
    worker.register_handler(job_type, recording(runs, [](const Job &job) {
                                return job.envelope().deferrals == 0
                                           ? JobOutcome::deferred(0ms, "later")
                                           : JobOutcome::success();
                            }));
    const Envelope env = enqueue(q.name);
    WorkerThread &thread = start(worker);
    ASSERT_TRUE(wait_until([&] { return worker.counters().succeeded == 1; }));
    thread.stop();

    const auto seen = runs.of(env.job_id);
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[1].deferrals, 1u);
    EXPECT_EQ(seen[1].priority, 0);
    EXPECT_EQ(seen[1].attempt, 1u);
    expect_counters(worker.counters(), {.succeeded = 1, .deferred = 1});
}

TEST_P(WorkerBehaviour, RetryAfterADeferralGoesToTheBackAndKeepsTheDeferrals) {
    // behaviour.md section 6: a deferred job comes back ahead of the backlog once; a later
    // retry goes to the back (priority 0); deferrals carries over.
    const QueueConfig q = declare();
    WorkerOptions options = options_for(q);
    options.default_retry = attempts(2);
    Worker &worker = make_worker(std::move(options));
    Runs runs;
    worker.register_handler(job_type, recording(runs, [](const Job &job) {
                                const auto &env = job.envelope();
                                if (env.deferrals == 0) return JobOutcome::deferred(0ms, "wait");
                                if (env.attempt == 1) return JobOutcome::retryable("flaky");
                                return JobOutcome::success();
                            }));
    const Envelope env = enqueue(q.name);
    WorkerThread &thread = start(worker);
    ASSERT_TRUE(wait_until([&] { return worker.counters().succeeded == 1; }));
    thread.stop();

    const auto seen = runs.of(env.job_id);
    ASSERT_EQ(seen.size(), 3u);
    EXPECT_EQ(seen[1].attempt, 1u);
    EXPECT_EQ(seen[1].deferrals, 1u);
    EXPECT_EQ(seen[1].priority, 10) << "deferred: the default max priority";
    EXPECT_EQ(seen[2].attempt, 2u);
    EXPECT_EQ(seen[2].deferrals, 1u) << "deferrals carries over a retry";
    EXPECT_EQ(seen[2].priority, 0) << "a retry is priority 0";
    expect_counters(worker.counters(), {.succeeded = 1, .retried = 1, .deferred = 1});
}

TEST_P(WorkerBehaviour, DeferredJobOvertakesTheBacklog) {
    // One job at a time (prefetch 1: a consumer holding the backlog could not be
    // overtaken, behaviour.md section 10). Job A defers itself for 50 ms (one granularity
    // step on RabbitMQ) while B1 runs for longer; A then waits at top priority ahead of
    // B2..B4 and runs right after B1.
    const QueueConfig q = declare([](QueueConfig &config) { config.prefetch = 1; });
    WorkerOptions options = options_for(q);
    options.concurrency = 1;
    Worker &worker = make_worker(std::move(options));
    Runs runs;
    worker.register_handler(
        job_type, recording(runs, [](const Job &job) {
            if (job.envelope().payload == R"({"name":"A"})" && job.envelope().deferrals == 0)
                return JobOutcome::deferred(50ms, "after a while");
            std::this_thread::sleep_for(test_granularity + 150ms);
            return JobOutcome::success();
        }));
    const Envelope a = enqueue(q.name, job_type, R"({"name":"A"})");
    std::vector<Envelope> backlog;
    for (int i = 1; i <= 4; ++i)
        backlog.push_back(enqueue(q.name, job_type, R"({"name":"B)" + std::to_string(i) + "\"}"));
    WorkerThread &thread = start(worker);
    ASSERT_TRUE(wait_until([&] { return worker.counters().succeeded == 5; }, 15s));
    thread.stop();

    std::vector<std::string> order;
    for (const auto &run : runs.all()) order.push_back(run.payload);
    const std::vector<std::string> expected = {R"({"name":"A"})",  R"({"name":"B1"})",
                                               R"({"name":"A"})",  R"({"name":"B2"})",
                                               R"({"name":"B3"})", R"({"name":"B4"})"};
    EXPECT_EQ(order, expected);
}

TEST_P(WorkerBehaviour, UndecodablePayloadIsDeadLettered) {
    const QueueConfig q = declare();
    WorkerOptions options = options_for(q);
    options.default_retry = attempts(3);
    Worker &worker = make_worker(std::move(options));
    Runs runs;
    worker.register_handler(
        job_type, recording(runs, [](const Job &) {
            return JobOutcome::undecodable("payload.n: expected a string, got a number");
        }));
    const Envelope env = enqueue(q.name);
    WorkerThread &thread = start(worker);
    const auto dead = wait_dead_letters(q.name, 1);
    std::this_thread::sleep_for(quiet_window);  // a run or a second dead letter would show
    thread.stop();

    ASSERT_EQ(dead.size(), 1u);
    EXPECT_EQ(dead[0].reason, "decode error: payload.n: expected a string, got a number");
    EXPECT_EQ(dead[0].envelope.job_id, env.job_id);
    EXPECT_EQ(runs.count(), 1u) << "an undecodable payload is not retried";
    expect_counters(worker.counters(), {.dead_lettered_undecodable = 1});
}

TEST_P(WorkerBehaviour, UnknownJobTypeIsDeadLettered) {
    const QueueConfig q = declare();
    WorkerOptions options = options_for(q);
    options.default_retry = attempts(3);
    Worker &worker = make_worker(std::move(options));
    Runs runs;
    worker.register_handler(job_type,
                            recording(runs, [](const Job &) { return JobOutcome::success(); }));
    const Envelope env = enqueue(q.name, "x");
    WorkerThread &thread = start(worker);
    const auto dead = wait_dead_letters(q.name, 1);
    std::this_thread::sleep_for(quiet_window);  // a run or a second dead letter would show
    thread.stop();

    ASSERT_EQ(dead.size(), 1u);
    EXPECT_EQ(dead[0].reason, "no handler for job type `x`");
    EXPECT_EQ(dead[0].envelope.job_id, env.job_id);
    EXPECT_EQ(dead[0].envelope.job_type, "x");
    EXPECT_EQ(runs.count(), 0u) << "no handler ran";
    expect_counters(worker.counters(), {.dead_lettered_unknown_type = 1});
}

TEST_P(WorkerBehaviour, MalformedBodyIsDeadLetteredCountedAndLogged) {
    const QueueConfig q = declare();
    Warnings warnings;
    Runs runs;
    const Recorded recorded = succeeding_worker_recording(q, runs, warnings);
    Worker &worker = recorded.worker;  // not a structured binding: lambdas capture it
    const queuey::Logger &logger = recorded.logger;
    const std::string secret(5000, 's');  // the body must not end up in the log
    publish_malformed(q.name, R"({"secret":")" + secret + R"("})");
    const Envelope fine = enqueue(q.name);
    WorkerThread &thread = start(worker);
    ASSERT_TRUE(runs.wait_for(1));
    EXPECT_TRUE(wait_until([&] { return worker.counters().dead_lettered_malformed >= 1; }, 5s));
    std::this_thread::sleep_for(quiet_window);  // a second dead letter or run would show
    thread.stop();
    logger.stop();  // the lines the worker logged are delivered

    ASSERT_EQ(runs.count(), 1u) << "a handler saw the malformed body";
    EXPECT_EQ(runs.all()[0].job_id, fine.job_id);
    EXPECT_EQ(under_->ready_count(q.name), 0u) << "the malformed body was not acked";
    if (on_memory()) {  // on RabbitMQ tests/integration/malformed_test.cpp reads q.dead
        const auto dead = under_->dead_letters(q.name);
        ASSERT_EQ(dead.size(), 1u);
        EXPECT_EQ(dead[0].reason, "malformed envelope");
    }
    expect_counters(worker.counters(), {.succeeded = 1, .dead_lettered_malformed = 1});
    const auto logged = warnings.containing("malformed");
    ASSERT_EQ(logged.size(), 1u) << "one warning per malformed body";
    EXPECT_NE(logged[0].find(q.name), std::string::npos) << logged[0];
    EXPECT_NE(logged[0].find("job_id"), std::string::npos)
        << "the decoder's message: " << logged[0];
    EXPECT_NE(logged[0].find("not-a-uuid"), std::string::npos) << "the message-id: " << logged[0];
    EXPECT_EQ(logged[0].find("sssssssss"), std::string::npos) << "the body was logged";
}

TEST_P(WorkerBehaviour, MalformedBodyThatCannotBeCopiedIsDroppedCountedAndLogged) {
    const QueueConfig q = declare();
    if (!under_->remove_dead_letter_queue(q.name))
        GTEST_SKIP() << "the memory backend cannot remove a queue: its copy cannot fail";
    Warnings warnings;
    Runs runs;
    const Recorded recorded = succeeding_worker_recording(q, runs, warnings);
    Worker &worker = recorded.worker;  // not a structured binding: lambdas capture it
    const queuey::Logger &logger = recorded.logger;
    publish_malformed(q.name, "{}");
    WorkerThread &thread = start(worker);
    EXPECT_TRUE(wait_until([&] { return worker.counters().dropped_malformed >= 1; }, 10s));
    std::this_thread::sleep_for(500ms);
    thread.stop();
    logger.stop();  // the lines the worker logged are delivered

    EXPECT_EQ(under_->ready_count(q.name), 0u) << "rejected without requeue: no loop";
    expect_counters(worker.counters(), {.dropped_malformed = 1});
    const auto logged = warnings.containing("malformed");
    ASSERT_EQ(logged.size(), 1u);
    EXPECT_NE(logged[0].find("dropped"), std::string::npos) << logged[0];
    EXPECT_NE(logged[0].find("NO_ROUTE"), std::string::npos)
        << "why the copy failed: " << logged[0];
    EXPECT_NE(logged[0].find(q.name), std::string::npos) << logged[0];
}

// ---- schedule fires (docs/scheduling.md, duplicate fires) ------------------------------

const queuey::ScheduledFire a_fire{"wt.every-minute", "2026-12-07T10:15:00Z"};

TEST_P(WorkerBehaviour, ASecondCopyOfAFireIsDroppedCountedAndLogged) {
    const QueueConfig q = declare();
    Warnings warnings;
    Runs runs;
    const Recorded recorded = succeeding_worker_recording(q, runs, warnings);
    Worker &worker = recorded.worker;  // not a structured binding: lambdas capture it
    const queuey::Logger &logger = recorded.logger;
    const Envelope fire = Envelope::create(job_type, q.name, R"({"n":1})");
    under_->publish_fire(fire, a_fire);
    WorkerThread &thread = start(worker);
    ASSERT_TRUE(wait_until([&] { return worker.counters().succeeded == 1; }));
    under_->publish_fire(fire, a_fire);  // what a second leader would send
    EXPECT_TRUE(wait_until([&] { return worker.counters().duplicate_fires == 1; }));
    std::this_thread::sleep_for(quiet_window);
    thread.stop();
    logger.stop();

    EXPECT_EQ(runs.of(fire.job_id).size(), 1u) << "the second copy ran";
    EXPECT_EQ(under_->ready_count(q.name), 0u) << "the second copy was not acknowledged";
    EXPECT_TRUE(under_->dead_letters(q.name).empty());
    expect_counters(worker.counters(), {.succeeded = 1, .duplicate_fires = 1});
    const auto logged = warnings.containing("second copy");
    ASSERT_EQ(logged.size(), 1u);
    EXPECT_EQ(logged[0], "job " + fire.job_id + " (type `" + job_type + "`, queue " + q.name +
                             ") is a second copy of fire 2026-12-07T10:15:00Z of schedule "
                             "`wt.every-minute`, which this worker ran already: dropped, not run");
}

TEST_P(WorkerBehaviour, AFiresRetryRunsAndSoDoesAJobSentTwiceThatIsNoFire) {
    const QueueConfig q = declare();
    WorkerOptions options = options_for(q);
    options.default_retry = attempts(2);
    Worker &worker = make_worker(std::move(options));
    Runs runs;
    const Envelope fire = Envelope::create(job_type, q.name, R"({"n":1})");
    worker.register_handler(
        job_type, recording(runs, [&fire](const Job &job) {
            const bool first = job.envelope().job_id == fire.job_id && job.envelope().attempt == 1;
            return first ? JobOutcome::retryable("once") : JobOutcome::success();
        }));
    under_->publish_fire(fire, a_fire);
    WorkerThread &thread = start(worker);
    // The retry carries the fire's id but not its headers: it is no second copy.
    ASSERT_TRUE(wait_until([&] { return worker.counters().succeeded == 1; }));
    // Neither is a job that is no fire, whatever its id: only fires are compared.
    const Envelope plain = Envelope::create(job_type, q.name, R"({"n":2})");
    for (int i = 0; i < 2; ++i) producer_->enqueue(plain);
    ASSERT_TRUE(wait_until([&] { return runs.of(plain.job_id).size() == 2; }));
    std::this_thread::sleep_for(quiet_window);
    thread.stop();

    EXPECT_EQ(runs.of(fire.job_id).size(), 2u) << "attempt 1 and its retry";
    EXPECT_EQ(runs.of(plain.job_id).size(), 2u);
    expect_counters(worker.counters(), {.succeeded = 3, .retried = 1});
}

TEST_P(WorkerBehaviour, HandlerThatThrowsIsARetryableError) {
    const QueueConfig q = declare();
    WorkerOptions options = options_for(q);
    options.default_retry = attempts(2);
    Worker &worker = make_worker(std::move(options));
    Runs runs;
    worker.register_handler(job_type, [&](const Job &job) -> JobOutcome {
        runs.record(job);
        throw std::runtime_error("kaput");
    });
    const Envelope env = enqueue(q.name);
    WorkerThread &thread = start(worker);
    const auto dead = wait_dead_letters(q.name, 1);
    thread.stop();

    ASSERT_EQ(dead.size(), 1u);
    EXPECT_EQ(dead[0].reason,
              "max attempts (2) exhausted after attempt 2: the handler threw: kaput");
    const auto seen = runs.of(env.job_id);
    ASSERT_EQ(seen.size(), 2u) << "retried like any retryable error";
    EXPECT_EQ(seen[1].attempt, 2u);
    expect_counters(worker.counters(), {.retried = 1, .dead_lettered_exhausted = 1});
}

TEST_P(WorkerBehaviour, RoutesEachJobToTheHandlerOfItsType) {
    const QueueConfig q = declare();
    Worker &worker = make_worker(options_for(q));
    Runs emails, invoices;
    worker.register_handler("send_email",
                            recording(emails, [](const Job &) { return JobOutcome::success(); }));
    worker.register_handler("make_invoice",
                            recording(invoices, [](const Job &) { return JobOutcome::success(); }));
    const Envelope email = enqueue(q.name, "send_email");
    const Envelope invoice = enqueue(q.name, "make_invoice");
    WorkerThread &thread = start(worker);
    ASSERT_TRUE(wait_until([&] { return worker.counters().succeeded == 2; }));
    thread.stop();
    ASSERT_EQ(emails.count(), 1u);
    ASSERT_EQ(invoices.count(), 1u);
    EXPECT_EQ(emails.all()[0].job_id, email.job_id);
    EXPECT_EQ(invoices.all()[0].job_id, invoice.job_id);
}

TEST_P(WorkerBehaviour, ExponentialBackoffWaitsBaseTimesFactorToTheFailedAttemptMinusOne) {
    // behaviour.md section 5: after failed attempt n the wait is base * factor^(n-1):
    // 60 ms after attempt 1, 120 ms after attempt 2 (no jitter).
    const QueueConfig q = declare();
    WorkerOptions options = options_for(q);
    RetryPolicy policy = attempts(3);
    policy.backoff = RetryPolicy::Backoff::exponential;
    policy.exponential = {60ms, 2.0, 10s, false};
    options.default_retry = policy;
    Worker &worker = make_worker(std::move(options));
    Runs runs;
    worker.register_handler(job_type, recording(runs, [](const Job &job) {
                                return job.envelope().attempt < 3 ? JobOutcome::retryable("again")
                                                                  : JobOutcome::success();
                            }));
    const Envelope env = enqueue(q.name);
    WorkerThread &thread = start(worker);
    ASSERT_TRUE(wait_until([&] { return worker.counters().succeeded == 1; }));
    thread.stop();

    const auto seen = runs.of(env.job_id);
    ASSERT_EQ(seen.size(), 3u);
    EXPECT_GE(ms_between(seen[0].at, seen[1].at), 60ms);
    EXPECT_GE(ms_between(seen[1].at, seen[2].at), 120ms);
    if (auto *mem = memory()) {  // memory: the delays are exact, so they can be read back
        const auto snapshot = mem->snapshot();
        ASSERT_EQ(snapshot.retried.size(), 2u);
        EXPECT_EQ(snapshot.retried[0].delay, 60ms);
        EXPECT_EQ(snapshot.retried[1].delay, 120ms);
    }
}

// ---- a lost worker (docs/worker.md, crash loops; across processes: crash_loop_test) ----

TEST_P(WorkerBehaviour, AJobWhoseWorkerWasLostRunsAgainAtTheSameAttempt) {
    // Memory: a Delivery dropped unsettled. RabbitMQ: another connection that took the
    // job and closed. Either way the job comes back marked redelivered.
    const QueueConfig q = declare();
    const Envelope env = enqueue(q.name);
    EXPECT_EQ(under_->lose_a_worker(q.name).job_id, env.job_id);

    Worker &worker = make_worker(options_for(q));  // the default: one attempt, 3 lost runs
    Runs runs;
    worker.register_handler(job_type,
                            recording(runs, [](const Job &) { return JobOutcome::success(); }));
    WorkerThread &thread = start(worker);
    ASSERT_TRUE(wait_until([&] { return worker.counters().succeeded == 1; }));
    thread.stop();

    const auto seen = runs.of(env.job_id);
    ASSERT_EQ(seen.size(), 1u) << "the republished copy runs, once";
    EXPECT_EQ(seen[0].attempt, 1u) << "a lost run spends no attempt";
    expect_counters(worker.counters(), {.succeeded = 1, .worker_lost = 1});
    EXPECT_TRUE(under_->dead_letters(q.name).empty());
}

// Loses the job in a worker that republished it once already: the delivery that then
// comes back carries one lost run and is redelivered (a second loss). The republish is
// done by another process, so that what its consumer held is not this one's own.
void lose_twice(BackendUnderTest &under, const QueueConfig &q) {
    under.lose_a_worker(q.name);
    {
        auto consumer = under.another_process(q)->consume(q.name);
        auto delivery = consumer->next(std::chrono::seconds(5));
        ASSERT_NE(delivery, nullptr);
        ASSERT_TRUE(delivery->redelivered());
        EXPECT_EQ(delivery->lost_runs(), 0u);
        delivery->requeue_lost(1);  // what a worker does with the first loss
    }
    under.lose_a_worker(q.name);
}

TEST_P(WorkerBehaviour, AJobLostAsOftenAsTheQueuesBudgetIsDeadLetteredWithoutRunning) {
    const QueueConfig q = declare([](QueueConfig &config) { config.max_lost_runs = 2; });
    const Envelope env = enqueue(q.name);
    lose_twice(*under_, q);
    if (HasFatalFailure()) return;

    Runs runs;
    const Started started = start_succeeding(q, 5, runs);
    Worker &worker = started.worker;
    WorkerThread &thread = started.thread;  // the queue's own budget wins
    const auto dead = wait_dead_letters(q.name, 1);
    thread.stop();

    ASSERT_EQ(dead.size(), 1u);
    EXPECT_EQ(dead[0].envelope.job_id, env.job_id);
    EXPECT_EQ(dead[0].envelope.attempt, 1u);
    EXPECT_EQ(dead[0].reason, "lost 2 times: the worker was lost while running the job");
    EXPECT_EQ(runs.count(), 0u);
    expect_counters(worker.counters(), {.worker_lost = 1, .dead_lettered_lost = 1});
}

TEST_P(WorkerBehaviour, OnAQuorumQueueReturnsBeforeAWorkerSawTheJobCostOneLostRunNotOneEach) {
    // RabbitMQ's x-delivery-count (the memory backend counts returns alike) says 2, but
    // nothing tells a lost run from a peek or a blink: one sighting, one lost run.
    const QueueConfig q = declare([](QueueConfig &config) {
        config.type = queuey::QueueType::quorum;
        config.max_lost_runs = 2;
    });
    const Envelope env = enqueue(q.name);
    under_->lose_a_worker(q.name);
    under_->lose_a_worker(q.name);

    Runs runs;
    const Started started = start_succeeding(q, 5, runs);
    ASSERT_TRUE(wait_until([&] { return started.worker.counters().succeeded == 1; }));
    started.thread.stop();
    EXPECT_TRUE(under_->dead_letters(q.name).empty());
    ASSERT_EQ(runs.of(env.job_id).size(), 1u);
    expect_counters(started.worker.counters(), {.succeeded = 1, .worker_lost = 1});
}

TEST_P(WorkerBehaviour, OnAQuorumQueueAJobLostOnceIsRequeuedAndRunsAtTheSameAttempt) {
    const QueueConfig q =
        declare([](QueueConfig &config) { config.type = queuey::QueueType::quorum; });
    const Envelope env = enqueue(q.name);
    under_->lose_a_worker(q.name);

    Runs runs;
    const Started started = start_succeeding(q, 3, runs);
    ASSERT_TRUE(wait_until([&] { return started.worker.counters().succeeded == 1; }));
    started.thread.stop();
    const auto seen = runs.of(env.job_id);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].attempt, 1u);
    expect_counters(started.worker.counters(), {.succeeded = 1, .worker_lost = 1});
    EXPECT_EQ(under_->ready_count(q.name), 0u);
}

TEST_P(WorkerBehaviour, OnAQuorumQueueAJobTakenBackOftenAtNoCostIsRepublishedAndRunsOnce) {
    // Returns this process caused itself cost no lost run, but a quorum queue counts each
    // towards its delivery limit: at half of it the worker republishes the job with a
    // fresh count before it runs it, so that the limit never takes it.
    const QueueConfig q = declare([](QueueConfig &config) {
        config.type = queuey::QueueType::quorum;
        config.prefetch = 1;
    });
    const Envelope env = enqueue(q.name);
    for (std::uint32_t i = 0; i < queuey::returns_before_republish(); ++i) {
        auto consumer = under_->backend()->consume(q.name);
        auto delivery = consumer->next(5s);
        ASSERT_TRUE(delivery) << "no delivery after " << i << " returns";
        EXPECT_FALSE(delivery->redelivered()) << "a return this process caused costs nothing";
        EXPECT_EQ(delivery->broker_returns(), i);
        consumer.reset();  // its channel closes: the job goes back, this process's return
        delivery.reset();
    }

    Warnings warnings;
    Runs runs;
    const Recorded recorded = succeeding_worker_recording(q, runs, warnings);
    Worker &worker = recorded.worker;  // not a structured binding: lambdas capture it
    const queuey::Logger &logger = recorded.logger;
    WorkerThread &thread = start(worker);
    ASSERT_TRUE(wait_until([&] { return worker.counters().succeeded == 1; }));
    thread.stop();
    logger.stop();

    ASSERT_EQ(runs.of(env.job_id).size(), 1u);
    EXPECT_EQ(runs.of(env.job_id)[0].attempt, 1u);
    expect_counters(worker.counters(), {.succeeded = 1});
    EXPECT_EQ(warnings
                  .containing("job " + env.job_id + " was taken back unsettled " +
                              std::to_string(queuey::returns_before_republish()) +
                              " times at no cost; republished")
                  .size(),
              1u);
    EXPECT_EQ(under_->ready_count(q.name), 0u);
    EXPECT_TRUE(under_->dead_letters(q.name).empty());
}

TEST_P(WorkerBehaviour, BelowTheWorkersBudgetALostJobIsRequeuedWithItsCountAndRuns) {
    const QueueConfig q = declare();
    const Envelope env = enqueue(q.name);
    lose_twice(*under_, q);
    if (HasFatalFailure()) return;

    Runs runs;
    const Started started = start_succeeding(q, 3, runs);
    Worker &worker = started.worker;
    WorkerThread &thread = started.thread;
    ASSERT_TRUE(wait_until([&] { return worker.counters().succeeded == 1; }));
    thread.stop();

    EXPECT_EQ(runs.of(env.job_id).size(), 1u);
    expect_counters(worker.counters(), {.succeeded = 1, .worker_lost = 1});
    EXPECT_TRUE(under_->dead_letters(q.name).empty());
}

TEST_P(WorkerBehaviour, AWorkersBudgetOfOneDeadLettersAtTheFirstLoss) {
    const QueueConfig q = declare();
    enqueue(q.name);
    under_->lose_a_worker(q.name);

    Runs runs;
    const Started started = start_succeeding(q, 1, runs);
    Worker &worker = started.worker;
    WorkerThread &thread = started.thread;
    const auto dead = wait_dead_letters(q.name, 1);
    thread.stop();

    ASSERT_EQ(dead.size(), 1u);
    EXPECT_EQ(dead[0].reason, "lost 1 times: the worker was lost while running the job");
    EXPECT_EQ(runs.count(), 0u);
    expect_counters(worker.counters(), {.worker_lost = 1, .dead_lettered_lost = 1});
}

TEST_P(WorkerBehaviour, ABudgetOfZeroIsRefused) {
    const QueueConfig q = declare();
    WorkerOptions options = options_for(q);
    options.max_lost_runs = 0;
    try {
        Worker worker(under_->backend(), std::move(options));
        ADD_FAILURE() << "a worker with max_lost_runs 0 was made";
    } catch (const queuey::Error &error) {
        EXPECT_EQ(error.status(), QY_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(error.field(), "max_lost_runs");
    }
}

// ---- 2. retry policy precedence (behaviour.md section 5) -------------------------------
// Each level is tested with every lower level present, each with its own max_attempts,
// so the runs before the dead letter show which one applied: handler 2, job-type
// override 5, queue override 3, registered 6, queue config 4, worker default 7.

TEST_P(WorkerBehaviour, PolicyChosenByTheHandlerBeatsEveryOther) {
    expect_effective_max_attempts({2, 5, 3, 6, 4, 7}, 2);
}

TEST_P(WorkerBehaviour, JobTypeOverrideBeatsQueueOverrideRegisteredQueueConfigAndDefault) {
    expect_effective_max_attempts({std::nullopt, 5, 3, 6, 4, 7}, 5);
}

TEST_P(WorkerBehaviour, QueueOverrideBeatsRegisteredQueueConfigAndDefault) {
    expect_effective_max_attempts({std::nullopt, std::nullopt, 3, 6, 4, 7}, 3);
}

TEST_P(WorkerBehaviour, RegisteredPolicyBeatsQueueConfigAndDefault) {
    expect_effective_max_attempts({std::nullopt, std::nullopt, std::nullopt, 6, 4, 7}, 6);
}

TEST_P(WorkerBehaviour, QueueConfigPolicyBeatsTheWorkerDefault) {
    expect_effective_max_attempts({std::nullopt, std::nullopt, std::nullopt, std::nullopt, 4, 7},
                                  4);
}

TEST_P(WorkerBehaviour, WorkerDefaultAppliesWhenNothingElseDoes) {
    expect_effective_max_attempts(
        {std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, 7}, 7);
}

TEST_P(WorkerBehaviour, WithoutAnyPolicyAJobHasOneAttempt) { expect_effective_max_attempts({}, 1); }

// ---- 3. job timeout ------------------------------------------------------------------

TEST_P(WorkerBehaviour, JobPastItsTimeoutIsSettledAsARetryableErrorAndItsLaterReturnIgnored) {
    const QueueConfig q = declare();
    WorkerOptions options = options_for(q);
    options.job_timeout = 200ms;
    options.default_retry = attempts(1);
    std::atomic<int> hook_calls{0};
    options.dead_letter_hook = [&](const Envelope &, const std::string &) { ++hook_calls; };
    Worker &worker = make_worker(std::move(options));
    std::atomic<bool> saw_cancelled{false}, handler_returned{false};
    std::atomic<long> cancelled_after_ms{-1};
    Runs runs;
    worker.register_handler(job_type, [&](const Job &job) {
        runs.record(job);
        const auto started = Clock::now();
        while (!job.cancelled() && Clock::now() - started < 5s) std::this_thread::sleep_for(5ms);
        saw_cancelled = job.cancelled();
        cancelled_after_ms = ms_between(started, Clock::now()).count();
        std::this_thread::sleep_for(100ms);
        handler_returned = true;
        return JobOutcome::success();  // must be ignored: the job was settled already
    });
    const Envelope env = enqueue(q.name);
    WorkerThread &thread = start(worker);

    const auto dead = wait_dead_letters(q.name, 1);
    ASSERT_TRUE(wait_until([&] { return handler_returned.load(); }));
    std::this_thread::sleep_for(quiet_window);  // room for a wrongful second settle
    thread.stop();

    ASSERT_EQ(dead.size(), 1u);
    EXPECT_EQ(dead[0].reason,
              "max attempts (1) exhausted after attempt 1: job timed out after 200ms");
    EXPECT_EQ(dead[0].envelope.job_id, env.job_id);
    EXPECT_TRUE(saw_cancelled.load()) << "Job::cancelled() tells the handler";
    EXPECT_GE(cancelled_after_ms.load(), 200);
    EXPECT_LT(cancelled_after_ms.load(), 1500);
    EXPECT_EQ(under_->dead_letters(q.name).size(), 1u) << "settled once";
    EXPECT_EQ(hook_calls.load(), 1);
    EXPECT_EQ(runs.count(), 1u);
    expect_counters(worker.counters(), {.dead_lettered_exhausted = 1, .timed_out = 1});
    EXPECT_EQ(under_->ready_count(q.name), 0u);
}

TEST_P(WorkerBehaviour, TimedOutJobIsRetriedWhenAttemptsRemain) {
    const QueueConfig q = declare();
    WorkerOptions options = options_for(q);
    options.job_timeout = 200ms;
    options.default_retry = attempts(2);
    Worker &worker = make_worker(std::move(options));
    Runs runs;
    worker.register_handler(job_type, recording(runs, [](const Job &job) {
                                if (job.envelope().attempt > 1) return JobOutcome::success();
                                while (!job.cancelled()) std::this_thread::sleep_for(5ms);
                                return JobOutcome::fatal("ignored after the timeout");
                            }));
    const Envelope env = enqueue(q.name);
    WorkerThread &thread = start(worker);
    ASSERT_TRUE(wait_until([&] { return worker.counters().succeeded == 1; }));
    std::this_thread::sleep_for(quiet_window);  // a settle of the late outcome would show
    thread.stop();

    const auto seen = runs.of(env.job_id);
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[1].attempt, 2u);
    EXPECT_TRUE(under_->dead_letters(q.name).empty())
        << "the fatal result after the timeout was ignored";
    expect_counters(worker.counters(), {.succeeded = 1, .retried = 1, .timed_out = 1});
}

TEST_P(WorkerBehaviour, TimeoutOfOneAndAHalfSecondsReadsAsOnePointFiveS) {
    const QueueConfig q = declare();
    WorkerOptions options = options_for(q);
    options.job_timeout = 1500ms;
    Worker &worker = make_worker(std::move(options));
    worker.register_handler(job_type, [](const Job &job) {
        while (!job.cancelled()) std::this_thread::sleep_for(5ms);
        return JobOutcome::success();
    });
    enqueue(q.name);
    WorkerThread &thread = start(worker);
    const auto dead = wait_dead_letters(q.name, 1);
    thread.stop();
    ASSERT_EQ(dead.size(), 1u);
    EXPECT_EQ(dead[0].reason,
              "max attempts (1) exhausted after attempt 1: job timed out after 1.5s");
}

// ---- 4. shutdown ------------------------------------------------------------------------

// 20 jobs of 300 ms, concurrency 4, shutdown() from another thread while the second wave
// runs. What the test saw, for the two tests below.
struct ShutdownMidway {
    QueueConfig queue;
    std::vector<Envelope> jobs;
    int running_at_shutdown = 0;
    int started = 0, finished = 0;
    WorkerCounters counters;
    std::size_t remaining = 0;
};

class WorkerShutdown : public WorkerBehaviour {
protected:
    // concurrency 0: the default, the queue's prefetch.
    ShutdownMidway shut_down_midway(std::size_t concurrency = 4, std::uint16_t prefetch = 16) {
        ShutdownMidway seen;
        seen.queue = declare([&](QueueConfig &config) { config.prefetch = prefetch; });
        WorkerOptions options = options_for(seen.queue);
        options.concurrency = concurrency;
        Worker &worker = make_worker(std::move(options));
        std::atomic<int> started{0}, finished{0}, running{0};
        worker.register_handler(job_type, [&](const Job &) {
            ++started;
            ++running;
            std::this_thread::sleep_for(300ms);
            --running;
            ++finished;
            return JobOutcome::success();
        });
        for (int i = 0; i < 20; ++i) seen.jobs.push_back(enqueue(seen.queue.name));
        WorkerThread &thread = start(worker);

        EXPECT_TRUE(wait_until([&] { return started.load() >= 6; }))
            << "the second wave never started";
        std::thread([&] {
            seen.running_at_shutdown = running.load();
            worker.shutdown();
        }).join();
        EXPECT_TRUE(thread.wait_returned(10s)) << "run() did not return after shutdown()";
        // run() returned: nothing may run any more, and what ran is settled.
        EXPECT_EQ(running.load(), 0) << "run() returned while handlers still ran";
        seen.started = started.load();
        seen.finished = finished.load();
        seen.counters = worker.counters();
        thread.stop();
        // RabbitMQ: the unstarted deliveries go back when the consumer's channel closes,
        // which may take a moment after run() returned.
        const std::size_t expected_remaining = 20 - seen.counters.succeeded;
        wait_until(
            [&] {
                return (seen.remaining = under_->ready_count(seen.queue.name)) ==
                       expected_remaining;
            },
            5s, 20ms);
        return seen;
    }

    void expect_next_worker_runs_the_rest(const ShutdownMidway &seen,
                                          std::shared_ptr<queuey::Backend> backend);
};

// behaviour.md section 6: a shutdown runs what was already received. With the prefetch
// equal to the concurrency a worker receives little beyond what it runs, so the shutdown
// still comes mid-way through the 20 jobs.
TEST_P(WorkerShutdown, ShutdownWhileJobsRunWaitsForThemAndLosesNothing) {
    const ShutdownMidway seen = shut_down_midway(4, 4);
    if (HasFatalFailure()) return;
    EXPECT_GT(seen.running_at_shutdown, 0) << "shutdown() came while jobs ran";
    EXPECT_EQ(seen.started, seen.finished) << "every started job finished before run() returned";
    EXPECT_EQ(seen.counters.succeeded, static_cast<std::uint64_t>(seen.finished))
        << "every finished job was settled before run() returned";
    EXPECT_LT(seen.counters.succeeded, 20u) << "shutdown came mid-way";
    EXPECT_EQ(seen.counters.in_flight, 0u);
    EXPECT_EQ(seen.counters.settle_failures, 0u);
    EXPECT_EQ(seen.counters.succeeded + seen.remaining, 20u)
        << "acked " << seen.counters.succeeded << " + still queued " << seen.remaining
        << ": nothing lost";
    if (const auto in_flight = under_->in_flight_count(seen.queue.name)) {
        EXPECT_EQ(*in_flight, 0u);
    }
    EXPECT_TRUE(under_->dead_letters(seen.queue.name).empty());
}

// The jobs a shutdown leaves in the queue were never received or were given back (the
// worker cancels its subscription, lets its running jobs end and republishes what it had
// not started), so they are not charged as lost runs: the next
// worker (default policy: one attempt) runs them, in the same process (a worker restarted
// on the same client) and in another one (a deployment's restart).

TEST_P(WorkerShutdown, JobsLeftByAShutdownRunNormallyOnTheNextWorkerInTheSameProcess) {
    const ShutdownMidway seen = shut_down_midway(4, 4);
    if (HasFatalFailure()) return;
    ASSERT_GT(seen.remaining, 0u);
    expect_next_worker_runs_the_rest(seen, under_->backend());
}

TEST_P(WorkerShutdown, JobsLeftByAShutdownRunNormallyOnTheNextWorkerInAnotherProcess) {
    const ShutdownMidway seen = shut_down_midway(4, 4);
    if (HasFatalFailure()) return;
    ASSERT_GT(seen.remaining, 0u);
    expect_next_worker_runs_the_rest(seen, under_->another_process(seen.queue));
}

TEST_P(WorkerShutdown, JobsLeftByAShutdownWithTheDefaultConcurrencyRunNormallyInAnotherProcess) {
    // The default concurrency (= the prefetch, 4): the worker "never holds jobs that it
    // is not running" (docs/worker.md), so nothing it gives back may be charged either.
    const ShutdownMidway seen = shut_down_midway(0, 4);
    if (HasFatalFailure()) return;
    ASSERT_GT(seen.remaining, 0u);
    expect_next_worker_runs_the_rest(seen, under_->another_process(seen.queue));
}

void WorkerShutdown::expect_next_worker_runs_the_rest(const ShutdownMidway &seen,
                                                      std::shared_ptr<queuey::Backend> backend) {
    Worker &next = make_worker(options_for(seen.queue), std::move(backend));
    Runs runs;
    next.register_handler(job_type,
                          recording(runs, [](const Job &) { return JobOutcome::success(); }));
    WorkerThread &thread = start(next);
    wait_until([&] {
        const auto c = next.counters();
        return c.succeeded + c.dead_lettered_exhausted >= seen.remaining;
    });
    thread.stop();

    expect_counters(next.counters(), {.succeeded = seen.remaining});
    EXPECT_EQ(runs.count(), seen.remaining);
    for (const auto &run : runs.all()) EXPECT_EQ(run.attempt, 1u) << "job " << run.job_id;
    const auto dead = under_->dead_letters(seen.queue.name);
    EXPECT_TRUE(dead.empty()) << dead.size() << " jobs dead-lettered, the first: "
                              << (dead.empty() ? "" : dead[0].reason);
}

// Handlers wait at the gate until the test opens it, or the gate goes out of scope (a
// failed assertion must not leave a worker's threads waiting for ever).
class Gate {
public:
    ~Gate() { open(); }
    void open() {
        std::lock_guard lock(mutex_);
        open_ = true;
        opened_.notify_all();
    }
    void pass() {
        std::unique_lock lock(mutex_);
        opened_.wait(lock, [this] { return open_; });
    }

private:
    std::mutex mutex_;
    std::condition_variable opened_;
    bool open_ = false;
};

// Issue 41: a shutdown ran every job the worker had received, the prefetched ones too,
// before it ended (six prefetched 5 s jobs: 13.7 s). The jobs received and not started go
// back to their queue at once, while the running ones still run, and cost nothing: the
// next worker, in another process, runs them at attempt 1 with no lost run charged.
TEST_P(WorkerShutdown, JobsReceivedAndNotStartedGoBackAtOnceAtNoCost) {
    const QueueConfig q = declare([](QueueConfig &config) { config.prefetch = 8; });
    WorkerOptions options = options_for(q);
    options.concurrency = 2;
    Worker &worker = make_worker(std::move(options));
    std::atomic<int> started{0};
    Gate gate;
    worker.register_handler(job_type, [&](const Job &) {
        ++started;
        gate.pass();
        return JobOutcome::success();
    });
    for (int i = 0; i < 12; ++i) enqueue(q.name);
    WorkerThread &thread = start(worker);
    std::size_t ready = 0;
    ASSERT_TRUE(wait_until([&] { return started.load() == 2; }));
    // The memory backend hands a job only to a thread that asks: it holds none unstarted.
    const std::size_t held = on_memory() ? 2 : 8;
    ASSERT_TRUE(wait_until([&] { return (ready = under_->ready_count(q.name)) == 12 - held; }))
        << ready << " ready: the worker holds other than " << held;

    worker.shutdown();
    EXPECT_TRUE(wait_until([&] { return (ready = under_->ready_count(q.name)) == 10; }, 5s))
        << ready << " ready while the two started jobs still run: the six received and not "
        << "started were not given back";
    EXPECT_EQ(started.load(), 2);
    gate.open();
    ASSERT_TRUE(thread.wait_returned(10s));
    thread.stop();
    EXPECT_EQ(started.load(), 2) << "a job received and not started ran after the shutdown";
    expect_counters(worker.counters(), {.succeeded = 2});

    ShutdownMidway seen;
    seen.queue = q;
    seen.remaining = 10;
    expect_next_worker_runs_the_rest(seen, under_->another_process(q));
}

TEST_P(WorkerBehaviour, ShutdownBeforeRunMakesRunReturnAtOnce) {
    const QueueConfig q = declare();
    Worker &worker = make_worker(options_for(q));
    Runs runs;
    worker.register_handler(job_type,
                            recording(runs, [](const Job &) { return JobOutcome::success(); }));
    enqueue(q.name);
    worker.shutdown();
    const auto before = Clock::now();
    WorkerThread &thread = start(worker);
    ASSERT_TRUE(thread.wait_returned(5s));
    EXPECT_LT(ms_between(before, thread.returned_at()), 500ms);
    thread.stop();
    EXPECT_EQ(runs.count(), 0u);
    EXPECT_EQ(under_->ready_count(q.name), 1u) << "the job was not touched";
}

TEST_P(WorkerBehaviour, ShutdownFromInsideAHandlerStopsTheWorker) {
    // Prefetch 1: the worker has received only the job it runs, so 4 stay in the queue.
    const QueueConfig q = declare([](QueueConfig &config) { config.prefetch = 1; });
    WorkerOptions options = options_for(q);
    options.concurrency = 1;
    Worker &worker = make_worker(std::move(options));
    Runs runs;
    worker.register_handler(job_type, recording(runs, [&](const Job &) {
                                worker.shutdown();
                                worker.shutdown();  // twice is fine
                                return JobOutcome::success();
                            }));
    for (int i = 0; i < 5; ++i) enqueue(q.name);
    WorkerThread &thread = start(worker);
    ASSERT_TRUE(thread.wait_returned(10s)) << "run() did not return after a handler's shutdown()";
    thread.stop();
    worker.shutdown();  // and after run() returned

    // RabbitMQ may have sent the next job in answer to the first ack before the
    // basic.cancel arrived: received and not started, it goes back.
    const std::size_t ran = runs.count();
    EXPECT_EQ(ran, 1u);
    expect_counters(worker.counters(), {.succeeded = ran});
    std::size_t remaining = 0;
    EXPECT_TRUE(
        wait_until([&] { return (remaining = under_->ready_count(q.name)) == 5 - ran; }, 5s))
        << remaining << " jobs left in the queue after " << ran << " ran";
}

// Issue 41: the cancel went out only once a worker thread looped back after acking its
// job, and that ack freed a prefetch slot that the broker filled: one more job ran in
// full (40 jobs of 5 s, concurrency 8, prefetch 8: 9 started). Now it goes out at once.
TEST_P(WorkerBehaviour, AShutdownWhileJobsRunTakesNoJobBeyondThoseReceived) {
    const QueueConfig q = declare([](QueueConfig &config) { config.prefetch = 2; });
    std::atomic<int> started{0};
    Worker &worker = two_thread_worker(q, started, 500ms);
    for (int i = 0; i < 6; ++i) enqueue(q.name);
    WorkerThread &thread = start(worker);
    ASSERT_TRUE(wait_until([&] { return started.load() == 2; }));
    worker.shutdown();
    ASSERT_TRUE(thread.wait_returned(10s));
    thread.stop();
    EXPECT_EQ(started.load(), 2) << "a job beyond the two received ran";
    expect_counters(worker.counters(), {.succeeded = 2});
    std::size_t remaining = 0;
    EXPECT_TRUE(wait_until([&] { return (remaining = under_->ready_count(q.name)) == 4; }, 5s))
        << remaining << " jobs left in the queue";
}

TEST_P(WorkerBehaviour, ShutdownTwiceFromTwoThreadsIsFine) {
    const QueueConfig q = declare();
    std::atomic<int> started{0};
    Worker &worker = two_thread_worker(q, started, 100ms);
    for (int i = 0; i < 6; ++i) enqueue(q.name);
    WorkerThread &thread = start(worker);
    ASSERT_TRUE(wait_until([&] { return started.load() >= 1; }));
    std::thread first([&] { worker.shutdown(); });
    std::thread second([&] { worker.shutdown(); });
    first.join();
    second.join();
    ASSERT_TRUE(thread.wait_returned(10s));
    thread.stop();
    const auto counters = worker.counters();
    EXPECT_EQ(counters.succeeded, static_cast<std::uint64_t>(started.load()));
    std::size_t remaining = 0;
    EXPECT_TRUE(wait_until(
        [&] { return (remaining = under_->ready_count(q.name)) == 6 - counters.succeeded; }, 5s))
        << "acked " << counters.succeeded << ", left " << remaining;
}

// ---- settle failures (behaviour.md section 6) ------------------------------------------
// "Settle failures (ack, retry, defer, dead-letter that failed) are counted and logged,
// never retried in a loop: the broker redelivers." (docs/broker.md: the original stays
// unacknowledged; queuey does not reject-and-requeue it at once, which would be a hot
// redelivery loop. The worker tries the same settle again after 1 s, 2 s, ...:
// docs/worker.md, settle failures, and tests/worker/parked_settles_test.cpp.)

TEST_P(WorkerBehaviour, ARetryWhoseDelayNoHoldCanExpressIsDeadLetteredNotLeftToLoop) {
    // A retry whose delay no hold can express (over 2147483647 ms, behaviour.md section 3)
    // is refused by both backends, and would be on every redelivery: the job goes to
    // the dead letters with the reason (issue 10) instead of staying unsettled.
    const QueueConfig q = declare();
    WorkerOptions options = options_for(q);
    options.default_retry = attempts(3);
    Worker &worker = make_worker(std::move(options));
    Runs runs;
    const RetryPolicy too_long = attempts(3, std::chrono::milliseconds(2147483648LL));
    worker.register_handler(job_type, recording(runs, [too_long](const Job &) {
                                return JobOutcome::retryable("later, much later", too_long);
                            }));
    const Envelope env = enqueue(q.name);
    WorkerThread &thread = start(worker);
    const auto dead = wait_dead_letters(q.name, 1);
    std::this_thread::sleep_for(500ms);  // a loop would run the job again by now
    const auto counters = worker.counters();
    thread.stop();

    ASSERT_EQ(dead.size(), 1u);
    EXPECT_EQ(dead[0].envelope.job_id, env.job_id);
    EXPECT_EQ(dead[0].reason.rfind("retry refused: ", 0), 0u) << dead[0].reason;
    EXPECT_NE(dead[0].reason.find("2147483647"), std::string::npos) << dead[0].reason;
    EXPECT_EQ(runs.count(), 1u) << "the job was run again";
    EXPECT_EQ(counters.settle_failures, 1u);
    EXPECT_EQ(counters.dead_lettered_fatal, 1u);
    EXPECT_EQ(counters.retried, 0u);
    EXPECT_EQ(counters.worker_lost, 0u);
    EXPECT_EQ(under_->ready_count(q.name), 0u);
}

TEST_P(WorkerBehaviour, FailedDeadLetterSettleIsCountedAndTriedAgainWithABackoffNotInALoop) {
    // docs/broker.md's own example: "a publish that keeps failing (a deleted dead-letter
    // queue, say) would then turn into a hot redelivery loop".
    const QueueConfig q = declare();
    if (!under_->remove_dead_letter_queue(q.name))
        GTEST_SKIP() << "the memory backend cannot remove a queue, so none of its dead-letter "
                        "settles can fail";
    Worker &worker = make_worker(options_for(q));
    Runs runs;
    worker.register_handler(job_type,
                            recording(runs, [](const Job &) { return JobOutcome::fatal("bad"); }));
    enqueue(q.name);
    WorkerThread &thread = start(worker);
    ASSERT_TRUE(wait_until([&] { return worker.counters().settle_failures >= 1; }));
    std::this_thread::sleep_for(2s);  // tried again after 1 s; the next try is 2 s later
    const auto counters = worker.counters();
    const auto runs_while_running = runs.count();
    thread.stop();

    EXPECT_EQ(runs_while_running, 1u)
        << "the job was run again after its dead-letter publish failed";
    EXPECT_EQ(counters.settle_failures, 2u);
    EXPECT_EQ(counters.parked, 1u);
    std::size_t remaining = 0;
    EXPECT_TRUE(wait_until([&] { return (remaining = under_->ready_count(q.name)) == 1; }, 5s))
        << remaining << " jobs in the queue";
}

// ---- 5. the dead-letter hook -----------------------------------------------------------

TEST_P(WorkerBehaviour, DeadLetterHookRunsBeforeTheDeadLetterWithTheEnvelopeAndReason) {
    const QueueConfig q = declare();
    WorkerOptions options = options_for(q);
    std::mutex hook_mutex;
    std::vector<HookCall> hooked;
    const std::string queue = q.name;
    options.dead_letter_hook = [&](const Envelope &env, const std::string &reason) {
        const std::size_t then = under_->dead_letters(queue).size();
        std::lock_guard lock(hook_mutex);
        hooked.push_back({env, reason, then});
    };
    Worker &worker = make_worker(std::move(options));
    worker.register_handler(job_type, [](const Job &) { return JobOutcome::fatal("nope"); });
    const Envelope env = enqueue(q.name, job_type, R"({"k":[1,2,3]})");
    WorkerThread &thread = start(worker);
    const auto dead = wait_dead_letters(q.name, 1);
    thread.stop();

    std::lock_guard lock(hook_mutex);
    ASSERT_EQ(hooked.size(), 1u);
    EXPECT_EQ(hooked[0].reason, "fatal error: nope");
    EXPECT_EQ(hooked[0].envelope, env) << "the hook sees the job's envelope";
    EXPECT_EQ(hooked[0].dead_letters_then, 0u) << "the hook runs before the job is dead-lettered";
    ASSERT_EQ(dead.size(), 1u);
    EXPECT_EQ(dead[0].reason, "fatal error: nope");
    EXPECT_EQ(dead[0].envelope, env);
}

TEST_P(WorkerBehaviour, DeadLetterHookThatThrowsDoesNotStopTheDeadLettering) {
    const QueueConfig q = declare();
    WorkerOptions options = options_for(q);
    std::atomic<int> hook_calls{0};
    options.dead_letter_hook = [&](const Envelope &env, const std::string &) {
        ++hook_calls;
        if (env.payload == R"({"throw":"std"})") throw std::runtime_error("the hook failed");
        throw 42;  // not even a std::exception
    };
    Worker &worker = make_worker(std::move(options));
    worker.register_handler(job_type, [](const Job &) { return JobOutcome::fatal("bad"); });
    const Envelope first = enqueue(q.name, job_type, R"({"throw":"std"})");
    const Envelope second = enqueue(q.name, job_type, R"({"throw":"int"})");
    WorkerThread &thread = start(worker);
    const auto dead = wait_dead_letters(q.name, 2);
    thread.stop();

    ASSERT_EQ(dead.size(), 2u);
    std::vector<std::string> ids = {dead[0].envelope.job_id, dead[1].envelope.job_id};
    std::sort(ids.begin(), ids.end());
    std::vector<std::string> expected = {first.job_id, second.job_id};
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(ids, expected);
    for (const auto &letter : dead) EXPECT_EQ(letter.reason, "fatal error: bad");
    EXPECT_EQ(hook_calls.load(), 2);
    expect_counters(worker.counters(), {.dead_lettered_fatal = 2});
}

// ---- 6. registration --------------------------------------------------------------------

TEST_P(WorkerBehaviour, RegisteringAJobTypeTwiceThrowsInvalidArgument) {
    const QueueConfig q = declare();
    Worker &worker = make_worker(options_for(q));
    Runs first, second;
    worker.register_handler(job_type,
                            recording(first, [](const Job &) { return JobOutcome::success(); }));
    try {
        worker.register_handler(
            job_type, recording(second, [](const Job &) { return JobOutcome::success(); }));
        ADD_FAILURE() << "a second handler for one job type was accepted";
    } catch (const queuey::Error &error) {
        EXPECT_EQ(error.status(), QY_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(error.field(), "job_type");
    }
    // The first registration stands.
    enqueue(q.name);
    WorkerThread &thread = start(worker);
    ASSERT_TRUE(wait_until([&] { return worker.counters().succeeded == 1; }));
    thread.stop();
    EXPECT_EQ(first.count(), 1u);
    EXPECT_EQ(second.count(), 0u);
}

// ---- 7. concurrency ---------------------------------------------------------------------

TEST_P(WorkerBehaviour, NeverMoreJobsRunThanTheConcurrency) {
    const QueueConfig q = declare();
    WorkerOptions options = options_for(q);
    options.concurrency = 3;
    Worker &worker = make_worker(std::move(options));
    std::atomic<int> running{0}, most_running{0};
    worker.register_handler(job_type, [&](const Job &) {
        const int now = ++running;
        for (int seen = most_running.load();
             now > seen && !most_running.compare_exchange_weak(seen, now);) {}
        std::this_thread::sleep_for(150ms);
        --running;
        return JobOutcome::success();
    });
    for (int i = 0; i < 10; ++i) enqueue(q.name);
    std::atomic<bool> watching{true};
    std::atomic<std::uint64_t> most_in_flight{0};
    std::thread watcher([&] {
        while (watching) {
            most_in_flight = std::max<std::uint64_t>(most_in_flight, worker.counters().in_flight);
            std::this_thread::sleep_for(2ms);
        }
    });
    WorkerThread &thread = start(worker);
    const bool all_done = wait_until([&] { return worker.counters().succeeded == 10; }, 15s);
    watching = false;
    watcher.join();
    thread.stop();

    ASSERT_TRUE(all_done);
    EXPECT_EQ(most_running.load(), 3)
        << "at most 3 at once, and 3 are reached with 10 jobs waiting";
    EXPECT_LE(most_in_flight.load(), 3u);
    EXPECT_GE(most_in_flight.load(), 1u);
    EXPECT_EQ(worker.counters().in_flight, 0u);
}

TEST_P(WorkerBehaviour, DefaultConcurrencyIsTheSumOfThePrefetch) {
    const QueueConfig a = declare([](QueueConfig &config) { config.prefetch = 2; });
    const QueueConfig b = declare([](QueueConfig &config) { config.prefetch = 3; });
    Worker &worker = make_worker(options_for(std::vector{a.name, b.name}));
    std::atomic<int> running{0}, most_running{0};
    worker.register_handler(job_type, [&](const Job &) {
        const int now = ++running;
        for (int seen = most_running.load();
             now > seen && !most_running.compare_exchange_weak(seen, now);) {}
        std::this_thread::sleep_for(200ms);
        --running;
        return JobOutcome::success();
    });
    for (int i = 0; i < 6; ++i) {
        enqueue(a.name);
        enqueue(b.name);
    }
    WorkerThread &thread = start(worker);
    ASSERT_TRUE(wait_until([&] { return worker.counters().succeeded == 12; }, 15s));
    thread.stop();
    EXPECT_EQ(most_running.load(), 5) << "prefetch 2 + 3";
}

INSTANTIATE_TEST_SUITE_P(Backends, WorkerBehaviour, ::testing::ValuesIn(each_backend),
                         backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, WorkerShutdown, ::testing::ValuesIn(each_backend), backend_name);

}  // namespace
}  // namespace queuey_wt

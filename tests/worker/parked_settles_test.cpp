// Parked deliveries are bounded and recover (issue 10, item 3; docs/worker.md, settle
// failures). A delivery whose settle failed is kept unsettled and its settle tried again
// after 1 s, 2 s, 4 s ... (at most every 30 s) with the outcome decided the first time;
// one gone stale is dropped, since the broker redelivers its job. Each test runs on the
// in-memory backend and on RabbitMQ; the settles fail through with_settle_faults().
#include "settle_faults.hpp"
#include "worker_harness.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdio>
#include <mutex>

namespace queuey_wt {
namespace {

using namespace std::chrono_literals;
using queuey::Envelope;
using queuey::Job;
using queuey::JobOutcome;
using queuey::QueueConfig;
using queuey::WorkerOptions;

constexpr const char *job_type = "wt.job";

// How long a test watches for what must not happen once what it waited for has: a job left
// unsettled coming back, a second successor or dead letter, a delivery parked twice. Each
// would follow within milliseconds of the settle or reconnect that caused it (a publish and
// a delivery on a local broker or in memory); 500 ms leaves room for a busy machine.
constexpr auto quiet_window = 500ms;
// Watching for a settle tried again, or a job taken, while settles fail: longer than the
// first try again (1 s after the failure, docs/worker.md), which would show it.
constexpr auto retry_window = 1500ms;

class ParkedSettles : public OnEachBackend {
protected:
    void TearDown() override {
        thread_.reset();  // shutdown + join, before the worker goes
        worker_.reset();
        OnEachBackend::TearDown();
    }

    QueueConfig declare(std::uint16_t prefetch) {
        return under_->declare_queue([&](QueueConfig &config) { config.prefetch = prefetch; });
    }

    Envelope enqueue(const QueueConfig &q, const std::string &payload = R"({"n":1})") {
        Envelope env = Envelope::create(job_type, q.name, payload);
        producer_->enqueue(env);
        return env;
    }

    // Starts a worker of q on the faulty backend; its handler records each run and answers
    // first_run for a job's first run (attempt 1, no deferral) when wanted(job) says so,
    // success otherwise.
    queuey::Worker &start(const QueueConfig &q, JobOutcome first_run,
                          std::function<bool(const Job &)> wanted = {}) {
        return start(q, [first_run, wanted](const Job &job) {
            const bool first = job.envelope().attempt == 1 && job.envelope().deferrals == 0;
            return first && (!wanted || wanted(job)) ? first_run : JobOutcome::success();
        });
    }
    // The same with a handler of the test's own. Retries wait no longer than the backend
    // makes them.
    queuey::Worker &start(const QueueConfig &q, queuey::Handler handler) {
        WorkerOptions options;
        options.queues = {q.name};
        options.default_retry = attempts(3);
        options.logger = queuey::Logger::dispatching_to([this](queuey::LogLevel level,
                                                               const std::string &message) {
            std::fprintf(stderr, "[worker log %d] %s\n", static_cast<int>(level), message.c_str());
            std::lock_guard lock(log_mutex_);
            log_.push_back(message);
        });
        worker_ = std::make_unique<queuey::Worker>(with_settle_faults(under_->backend(), faults_),
                                                   std::move(options));
        worker_->register_handler(job_type, [this, handler](const Job &job) {
            runs_.record(job);
            return handler(job);
        });
        thread_ = std::make_unique<WorkerThread>(*worker_);
        return *worker_;
    }

    // The log lines that name a job and contain text.
    std::size_t logged(const std::string &job_id, const std::string &text) {
        std::lock_guard lock(log_mutex_);
        std::size_t found = 0;
        for (const auto &line : log_)
            found += line.find(job_id) != std::string::npos && line.find(text) != std::string::npos;
        return found;
    }

    // Whose first settle fails twice: the job's tries must be 1 s, then 2 s apart, the
    // third goes through, and the handler ran once.
    void expect_settled_on_the_third_try(const QueueConfig &q, const Envelope &env,
                                         JobOutcome first_run) {
        faults_->fail_next(2);
        queuey::Worker &worker = start(q, std::move(first_run));
        std::vector<SettleTry> tries;
        EXPECT_TRUE(
            wait_until([&] { return (tries = faults_->tries_of(env.job_id)).size() >= 3; }, 15s))
            << "a failed settle was not tried again; tries: " << tries.size();
        ASSERT_GE(tries.size(), 3u);
        EXPECT_TRUE(tries[0].failed);
        EXPECT_TRUE(tries[1].failed);
        EXPECT_FALSE(tries[2].failed);
        const auto first_wait = tries[1].at - tries[0].at, second_wait = tries[2].at - tries[1].at;
        EXPECT_GE(first_wait, 1s);
        EXPECT_LT(first_wait, 2s);
        EXPECT_GE(second_wait, 2s);
        EXPECT_LT(second_wait, 3s);
        EXPECT_TRUE(wait_until([&] { return worker.counters().parked == 0; }, 5s));
        EXPECT_EQ(worker.counters().settle_failures, 2u);
        std::size_t first_runs = 0;
        for (const Seen &run : runs_.of(env.job_id))
            first_runs += run.attempt == 1 && run.deferrals == 0;
        EXPECT_EQ(first_runs, 1u) << "the handler ran again for a settle that failed";
    }

    std::shared_ptr<SettleFaults> faults_ = std::make_shared<SettleFaults>();
    Runs runs_;
    std::mutex log_mutex_;
    std::vector<std::string> log_;
    std::unique_ptr<queuey::Worker> worker_;
    std::unique_ptr<WorkerThread> thread_;
};

TEST_P(ParkedSettles, AnAckThatFailsTwiceIsTriedAgainAndTheJobIsAckedOnce) {
    const QueueConfig q = declare(4);
    const Envelope env = enqueue(q);
    expect_settled_on_the_third_try(q, env, JobOutcome::success());
    std::this_thread::sleep_for(quiet_window);  // a job left unsettled would come back
    EXPECT_EQ(worker_->counters().succeeded, 1u);
    EXPECT_EQ(runs_.count(), 1u);
    EXPECT_EQ(under_->ready_count(q.name), 0u);
}

TEST_P(ParkedSettles, ARetryThatFailsTwiceIsPublishedOnceWithTheSameSuccessor) {
    const QueueConfig q = declare(4);
    const Envelope env = enqueue(q);
    expect_settled_on_the_third_try(q, env, JobOutcome::retryable("boom"));
    ASSERT_TRUE(runs_.wait_for(2, 10s)) << "the retry never ran";
    ASSERT_TRUE(wait_until([&] { return worker_->counters().succeeded == 1; }, 5s));
    std::this_thread::sleep_for(quiet_window);  // a second successor would run
    const auto runs = runs_.of(env.job_id);
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[1].attempt, 2u);
    EXPECT_EQ(worker_->counters().retried, 1u);
    EXPECT_TRUE(under_->dead_letters(q.name).empty());
}

TEST_P(ParkedSettles, ADeferralThatFailsTwiceIsPublishedOnceWithTheSameSuccessor) {
    const QueueConfig q = declare(4);
    const Envelope env = enqueue(q);
    expect_settled_on_the_third_try(q, env, JobOutcome::deferred(0ms, "later"));
    ASSERT_TRUE(runs_.wait_for(2, 10s)) << "the deferred job never ran";
    ASSERT_TRUE(wait_until([&] { return worker_->counters().succeeded == 1; }, 5s));
    std::this_thread::sleep_for(quiet_window);  // a second successor would run
    const auto runs = runs_.of(env.job_id);
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[1].attempt, 1u);
    EXPECT_EQ(runs[1].deferrals, 1u);
    EXPECT_EQ(worker_->counters().deferred, 1u);
}

TEST_P(ParkedSettles, ADeadLetterThatFailsTwiceIsDeadLetteredOnceWithItsReason) {
    const QueueConfig q = declare(4);
    const Envelope env = enqueue(q);
    expect_settled_on_the_third_try(q, env, JobOutcome::fatal("bad"));
    std::vector<DeadLetter> dead;
    EXPECT_TRUE(wait_until([&] { return !(dead = under_->dead_letters(q.name)).empty(); }, 5s));
    std::this_thread::sleep_for(quiet_window);  // a second dead letter would arrive
    dead = under_->dead_letters(q.name);
    ASSERT_EQ(dead.size(), 1u);
    EXPECT_EQ(dead[0].envelope.job_id, env.job_id);
    EXPECT_EQ(dead[0].reason, "fatal error: bad");
    EXPECT_EQ(worker_->counters().dead_lettered_fatal, 1u);
    EXPECT_EQ(runs_.count(), 1u);
    EXPECT_EQ(under_->ready_count(q.name), 0u);
}

TEST_P(ParkedSettles, ParkedJobsHoldNoPrefetchSlotSoTheJobsBehindThemRun) {
    // The issue's case: 16 parked jobs filled the prefetch and 20 jobs behind them never
    // ran. Here 4 retries fail to publish in a prefetch of 4: set aside, they leave the
    // prefetch to the good jobs, which run while the retries wait.
    constexpr std::size_t prefetch = 4, good = 20;
    const QueueConfig q = declare(prefetch);
    for (std::size_t i = 0; i < prefetch; ++i) enqueue(q, R"({"bad":true})");
    faults_->fail_all(true);
    queuey::Worker &worker = start(q, JobOutcome::retryable("boom"), [](const Job &job) {
        return job.envelope().payload == R"({"bad":true})";
    });
    ASSERT_TRUE(wait_until([&] { return worker.counters().parked == prefetch; }, 10s))
        << "parked: " << worker.counters().parked;
    for (std::size_t i = 0; i < good; ++i) enqueue(q, R"({"good":true})");
    EXPECT_TRUE(wait_until([&] { return runs_.count() == good + prefetch; }, 10s))
        << "runs: " << runs_.count() << "; the parked jobs kept the good ones from coming";
    EXPECT_EQ(worker.counters().succeeded, 0u) << "an ack went through while settles failed";
    // A run is counted as its handler starts, its ack tried after it returns: the faults
    // stay on until the last one has failed.
    EXPECT_TRUE(
        wait_until([&] { return worker.counters().settle_failures >= good + prefetch; }, 10s))
        << "settle failures: " << worker.counters().settle_failures;

    faults_->fail_all(false);
    EXPECT_TRUE(wait_until([&] { return worker.counters().succeeded == good + prefetch; }, 30s))
        << "succeeded: " << worker.counters().succeeded;
    const auto counters = worker.counters();
    EXPECT_EQ(counters.retried, prefetch);
    EXPECT_EQ(counters.parked, 0u);
    EXPECT_GE(counters.settle_failures, good + prefetch);
    EXPECT_EQ(runs_.count(), good + 2 * prefetch) << "each bad job runs twice, each good once";
    EXPECT_EQ(under_->ready_count(q.name), 0u);
}

TEST_P(ParkedSettles, ParkedJobsFillThePrefetchOnceSixteenPrefetchesAreUnsettled) {
    // The bound on what a worker holds: parked jobs stop making room at 16 prefetches.
    constexpr std::size_t jobs = 20;
    const QueueConfig q = declare(1);
    for (std::size_t i = 0; i < jobs; ++i) enqueue(q);
    faults_->fail_all(true);
    queuey::Worker &worker = start(q, JobOutcome::success());
    ASSERT_TRUE(
        wait_until([&] { return worker.counters().parked == queuey::max_set_aside_windows; }, 15s))
        << "parked: " << worker.counters().parked;
    std::this_thread::sleep_for(retry_window);  // a job taken past the bound would run
    EXPECT_EQ(runs_.count(), queuey::max_set_aside_windows) << "a job ran past the bound";
    EXPECT_EQ(under_->ready_count(q.name), jobs - queuey::max_set_aside_windows);

    faults_->fail_all(false);
    EXPECT_TRUE(wait_until([&] { return worker.counters().succeeded == jobs; }, 60s))
        << "succeeded: " << worker.counters().succeeded;
    EXPECT_EQ(runs_.count(), jobs);
}

TEST_P(ParkedSettles,
       WhileTheBrokerBlocksPublishingARetryWaitsUntriedAndGoesThroughOnceItUnblocks) {
    // A memory alarm: a try would hold the worker's thread for the whole publish timeout.
    // The retry is parked without trying (no settle failure) while acks go on, and is
    // tried within a moment of the unblock, not after a backoff.
    const QueueConfig q = declare(4);
    const Envelope bad = enqueue(q, R"({"bad":true})");
    faults_->block_publishing(true);
    queuey::Worker &worker = start(q, JobOutcome::retryable("boom"), [](const Job &job) {
        return job.envelope().payload == R"({"bad":true})";
    });
    ASSERT_TRUE(wait_until([&] { return worker.counters().parked == 1; }, 10s));
    for (int i = 0; i < 3; ++i) enqueue(q);
    EXPECT_TRUE(wait_until([&] { return worker.counters().succeeded == 3; }, 10s))
        << "acks stopped while publishing was blocked";
    std::this_thread::sleep_for(retry_window);  // a settle tried while blocked would show
    EXPECT_TRUE(faults_->tries_of(bad.job_id).empty()) << "a settle was tried while blocked";
    EXPECT_EQ(worker.counters().settle_failures, 0u);
    EXPECT_EQ(logged(bad.job_id, "the broker blocks publishing"), 1u);

    faults_->block_publishing(false);
    const auto unblocked = std::chrono::steady_clock::now();
    std::vector<SettleTry> tries;
    ASSERT_TRUE(wait_until([&] { return !(tries = faults_->tries_of(bad.job_id)).empty(); }, 5s));
    EXPECT_FALSE(tries[0].failed);
    EXPECT_LT(tries[0].at - unblocked, 1s) << "the retry waited for a backoff after the unblock";
    EXPECT_TRUE(wait_until([&] { return worker.counters().succeeded == 4; }, 10s));
    // The settle leaves the parked ones after its publish returns: the successor it published
    // may have run first (the memory backend delivers at once).
    EXPECT_TRUE(wait_until([&] { return worker.counters().parked == 0; }, 5s))
        << "parked: " << worker.counters().parked;
    const auto counters = worker.counters();
    EXPECT_EQ(counters.retried, 1u);
    EXPECT_EQ(runs_.of(bad.job_id).size(), 2u);
}

TEST_P(ParkedSettles, ParkedDeliveriesOfAReplacedConnectionAreDroppedAndTheirJobsRunAgain) {
    if (under_->kind() == BackendKind::memory)
        GTEST_SKIP() << "the memory backend has no connection to lose";
    const QueueConfig q = declare(4);
    std::vector<Envelope> jobs;
    for (int i = 0; i < 4; ++i) jobs.push_back(enqueue(q));
    faults_->fail_all(true);
    queuey::Worker &worker = start(q, JobOutcome::success());
    ASSERT_TRUE(wait_until([&] { return worker.counters().parked == 4; }, 10s));

    ASSERT_TRUE(under_->close_connection());
    // The broker redelivers the 4 jobs; they run again, fail to settle again and are
    // parked in place of the 4 deliveries of the old connection, not beside them.
    ASSERT_TRUE(
        wait_until([&] { return runs_.count() == 8 && worker.counters().parked == 4; }, 15s))
        << "runs: " << runs_.count() << ", parked: " << worker.counters().parked;
    std::this_thread::sleep_for(quiet_window);  // a delivery parked beside them would show
    EXPECT_EQ(worker.counters().parked, 4u);
    for (const Envelope &env : jobs)
        EXPECT_EQ(logged(env.job_id, "the broker redelivers"), 1u)
            << "no drop logged for " << env.job_id;

    faults_->fail_all(false);
    EXPECT_TRUE(wait_until([&] { return worker.counters().succeeded == 4; }, 15s));
    std::this_thread::sleep_for(quiet_window);  // a fifth run or a lost run would show
    const auto counters = worker.counters();
    EXPECT_EQ(counters.succeeded, 4u);
    EXPECT_EQ(counters.parked, 0u);
    EXPECT_EQ(counters.worker_lost, 0u) << "the process's own redeliveries count as lost runs";
    EXPECT_EQ(runs_.count(), 8u);
    EXPECT_EQ(under_->ready_count(q.name), 0u);
}

TEST_P(ParkedSettles, ASettleThatFailsAsStaleIsNotKept) {
    // A job running when the connection is replaced: the broker redelivers it, the copy
    // runs and is acked; the first run's ack, refused as stale, must not park the
    // delivery of the old connection.
    if (under_->kind() == BackendKind::memory)
        GTEST_SKIP() << "the memory backend has no connection to lose";
    const QueueConfig q = declare(2);  // a second thread for the redelivered copy
    const Envelope env = enqueue(q);
    std::mutex mutex;
    std::condition_variable changed;
    bool first_started = false, release_first = false;
    queuey::Worker &worker = start(q, [&](const Job &) {
        std::unique_lock lock(mutex);
        if (!first_started) {
            first_started = true;
            changed.notify_all();
            changed.wait(lock, [&] { return release_first; });
        }
        return JobOutcome::success();
    });
    const auto release = [&] {
        {
            std::lock_guard lock(mutex);
            release_first = true;
        }
        changed.notify_all();
    };
    struct Released {  // however the test ends, or the worker never stops
        std::function<void()> release;
        ~Released() { release(); }
    } released{release};
    {
        std::unique_lock lock(mutex);
        ASSERT_TRUE(changed.wait_for(lock, 10s, [&] { return first_started; }));
    }
    ASSERT_TRUE(under_->close_connection());
    EXPECT_TRUE(wait_until([&] { return worker.counters().succeeded == 1; }, 15s))
        << "the redelivered copy did not run";
    release();
    EXPECT_TRUE(wait_until([&] { return worker.counters().settle_failures == 1; }, 5s));
    std::this_thread::sleep_for(quiet_window);  // a delivery kept from the old connection
    const auto counters = worker.counters();
    EXPECT_EQ(counters.parked, 0u) << "a delivery of the replaced connection was kept";
    EXPECT_EQ(counters.succeeded, 1u);
    EXPECT_EQ(runs_.of(env.job_id).size(), 2u);
    EXPECT_EQ(logged(env.job_id, "not kept"), 1u);
    EXPECT_EQ(under_->ready_count(q.name), 0u);
}

INSTANTIATE_TEST_SUITE_P(Backends, ParkedSettles, ::testing::ValuesIn(each_backend), backend_name);

}  // namespace
}  // namespace queuey_wt

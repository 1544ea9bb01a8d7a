// queuey's demo, run by scripts/demo: a producer and a worker in one process, on the
// queues demo.emails and demo.reports of the broker at argv[1] or $QUEUEY_URL.
//
// It enqueues 300 jobs of three types in one batch. Some fail transiently and succeed
// on a later attempt (4 attempts at most, exponential backoff from 150 ms), one is
// deferred once by its handler and then succeeds, and one poison job fails on every
// attempt and ends dead-lettered. A worker with 8 threads runs until every job of this
// run is settled, then the demo prints a summary and the worker's Prometheus metrics.
// Exit status 0 only if the numbers add up: every job settled once, as planned, and
// queuey's own counters agree.
//
// Re-runnable on the same broker without purging anything: the demo knows its jobs by
// id, so jobs left over from an earlier, interrupted run are acknowledged and reported
// apart. Dead letters stay in demo.emails.dead, one more per run.
#include <queuey/queuey.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

constexpr uint32_t max_attempts = 4;
constexpr auto backoff = 150ms;  // then 300, 600 ms
constexpr auto defer_for = 1s;
constexpr uint32_t threads = 8;
constexpr auto hard_timeout = 60s;

struct JobType {
    const char *name, *queue;
    int count;
    const char *error;  // its transient failure
    const char *payload_format;
};
const JobType job_types[] = {
    {"send_email", "demo.emails", 150, "smtp: 421 mail.example.com busy, try again later",
     R"({"run":"%s","to":"user%d@example.com","template":"welcome"})"},
    {"render_report", "demo.reports", 100, "database: connection reset by peer",
     R"({"run":"%s","report":"sales-%d","format":"pdf"})"},
    {"resize_image", "demo.reports", 50, "storage: 503 slow down",
     R"({"run":"%s","image":"img-%d.jpg","width":320})"},
};

enum Outcome { first_try, after_retry, after_deferral, dead_lettered, outcome_count };

// What the demo makes a job do; a real handler would not know in advance.
struct Plan {
    const JobType *type;
    uint32_t failures = 0;  // its first attempts fail transiently; max_attempts: poison
    bool defer = false;     // deferred once by its handler before it succeeds
    Outcome outcome() const {
        return failures >= max_attempts ? dead_lettered
               : failures > 0           ? after_retry
               : defer                  ? after_deferral
                                        : first_try;
    }
};

// The jobs of this run, planned and ready to enqueue.
struct Run {
    std::string id;
    std::vector<queuey::Envelope> jobs;
    std::map<std::string, Plan> plans;  // by job id
};

Run plan_run() {
    Run run;
    char id[9];
    std::snprintf(id, sizeof id, "%08x", static_cast<unsigned>(std::random_device{}()));
    run.id = id;
    for (const JobType &type : job_types)
        for (int n = 0; n < type.count; ++n) {
            Plan plan{&type};
            if (n % 10 == 9) plan.failures = 1;
            if (n % 50 == 24) plan.failures = 2;
            if (n == 0 && &type == &job_types[0]) plan.failures = max_attempts;  // the poison job
            if (n == 0 && &type == &job_types[1]) plan.defer = true;
            char payload[160];
            std::snprintf(payload, sizeof payload, type.payload_format, id, n);
            run.jobs.emplace_back(type.name, type.queue, payload);
            run.plans.emplace(std::string(run.jobs.back().job_id()), plan);
        }
    return run;
}

struct Settled {
    Outcome outcome;
    uint32_t attempts, deferrals;
};
struct DeadLetter {
    std::string job_id, type, queue, reason;
    uint32_t attempts;
    std::vector<std::string> headers;  // "name = value"
};

// What the handlers and the dead-letter hook saw; they run on the worker's threads.
struct Tally {
    std::mutex mutex;
    std::map<std::string, Settled> settled;  // this run's jobs by id, last outcome
    std::map<std::string, DeadLetter> dead;  // this run's, by job id
    uint64_t dead_letter_calls = 0;          // more than dead.size(): dead-lettered again
    std::atomic<uint64_t> leftovers{0};      // jobs of earlier runs, settled as they came
    void record(std::string_view id, Settled outcome) {
        std::lock_guard lock(mutex);
        settled.insert_or_assign(std::string(id), outcome);
    }
    size_t count() {
        std::lock_guard lock(mutex);
        return settled.size();
    }
};

// The dead-letter headers queuey publishes for env, computed by the library itself.
std::vector<std::string> dead_letter_headers(queuey::EnvelopeView env, const std::string &reason) {
    qy_properties *props = nullptr;
    if (qy_envelope_dead_letter_properties(env.get(), reason.c_str(), &props, nullptr) != QY_OK)
        return {"?"};
    std::vector<std::string> out;
    for (size_t i = 0; i < qy_properties_header_count(props); ++i) {
        const std::string name = qy_properties_header_name(props, i);
        if (name != "x-death-reason" && name != "x-original-queue" && name != "x-attempts")
            continue;
        std::string value = qy_properties_header_kind(props, i) == QY_FIELD_U32
                                ? std::to_string(qy_properties_header_u32(props, i))
                                : qy_properties_header_string(props, i);
        if (name == "x-death-reason") value = value == reason ? "the reason" : '"' + value + '"';
        out.push_back(name + " = " + value);
    }
    qy_properties_free(props);
    return out;
}

void add_handlers(queuey::Worker &worker, const Run &run, Tally &tally) {
    for (const JobType &type : job_types)
        worker.handle(type.name, [&run, &tally, error = type.error](queuey::Job &job) {
            const auto found = run.plans.find(std::string(job.job_id()));
            if (found == run.plans.end()) {  // an earlier run's job: settle it, count it apart
                ++tally.leftovers;
                return queuey::Outcome::success;
            }
            const Plan &plan = found->second;
            std::this_thread::sleep_for(2ms);  // the work
            if (job.attempt() <= plan.failures) return job.retry(error);
            if (plan.defer && job.deferrals() == 0)
                return job.defer(defer_for, "the report's data is not ready yet");
            tally.record(job.job_id(), {job.attempt() > 1     ? after_retry
                                        : job.deferrals() > 0 ? after_deferral
                                                              : first_try,
                                        job.attempt(), job.deferrals()});
            return queuey::Outcome::success;
        });
    worker.on_dead_letter([&run, &tally](queuey::EnvelopeView env, std::string_view why) {
        const std::string id(env.job_id()), reason(why);
        const auto found = run.plans.find(id);
        if (found == run.plans.end()) {
            ++tally.leftovers;
            return;
        }
        tally.record(id, {dead_lettered, env.attempt(), env.deferrals()});
        DeadLetter dead{id,
                        found->second.type->name,
                        std::string(env.queue()),
                        reason,
                        env.attempt(),
                        dead_letter_headers(env, reason)};
        std::lock_guard lock(tally.mutex);
        ++tally.dead_letter_calls;
        tally.dead.insert_or_assign(id, std::move(dead));
    });
}

uint64_t dead_total(const queuey::Worker &worker) {
    return worker.counter(queuey::Counter::dead_lettered_fatal) +
           worker.counter(queuey::Counter::dead_lettered_exhausted) +
           worker.counter(queuey::Counter::dead_lettered_unknown_type) +
           worker.counter(queuey::Counter::dead_lettered_undecodable);
}

// Waits until queuey has settled as many jobs as were enqueued (plus leftovers) and every
// job of this run is among them; false after the hard timeout. The handlers and the hook
// record a job before queuey settles it, so the counters can only lag behind the tally.
bool wait_until_settled(const queuey::Worker &worker, const Run &run, Tally &tally,
                        const std::atomic<bool> &worker_returned) {
    const auto deadline = Clock::now() + hard_timeout;
    while (!worker_returned && Clock::now() < deadline) {
        const uint64_t settled = worker.counter(queuey::Counter::succeeded) + dead_total(worker);
        if (settled >= run.jobs.size() + tally.leftovers && tally.count() == run.jobs.size())
            return true;
        std::this_thread::sleep_for(20ms);
    }
    return false;
}

struct Totals {
    int outcomes[outcome_count] = {};
    uint64_t retries = 0, deferrals = 0;
};

// One row per job type, then the totals; the caller holds tally.mutex.
Totals print_table(const Run &run, const Tally &tally) {
    Totals totals;
    const char *const row_format = "%-15s %8d %10d %12d %15d %14d\n";
    std::printf("\n%-15s %8s %10s %12s %15s %14s\n", "", "enqueued", "first try", "after retry",
                "after deferral", "dead-lettered");
    for (const JobType &type : job_types) {
        int row[outcome_count] = {};
        for (const auto &[id, settled] : tally.settled) {
            if (run.plans.at(id).type != &type) continue;
            ++row[settled.outcome];
            ++totals.outcomes[settled.outcome];
            totals.retries += settled.attempts - 1;
            totals.deferrals += settled.deferrals;
        }
        std::printf(row_format, type.name, type.count, row[first_try], row[after_retry],
                    row[after_deferral], row[dead_lettered]);
    }
    const int *all = totals.outcomes;
    std::printf(row_format, "total", static_cast<int>(run.jobs.size()), all[first_try],
                all[after_retry], all[after_deferral], all[dead_lettered]);
    return totals;
}

void print_dead_letters(const Tally &tally, bool in_memory) {
    for (const auto &[id, dead] : tally.dead) {
        std::printf("dead letter: job %s (%s), after %u attempts\n  reason:  %s\n",
                    dead.job_id.c_str(), dead.type.c_str(), dead.attempts, dead.reason.c_str());
        if (in_memory) {
            std::printf("  now in:  %s.dead of the in-memory backend, gone when the demo exits\n",
                        dead.queue.c_str());
            continue;
        }
        std::printf("  now in:  %s.dead on the broker, with headers", dead.queue.c_str());
        for (size_t i = 0; i < dead.headers.size(); ++i)
            std::printf("%s%s", i == 0 ? "\n           " : ", ", dead.headers[i].c_str());
        std::printf("\n");
    }
}

// What does not add up (problems: exit 1), and what is worth knowing (notes).
struct Check {
    std::vector<std::string> problems, notes;
    bool counters_compared = false;
};

Check check(const queuey::Worker &worker, const Run &run, const Tally &tally,
            const Totals &totals) {
    Check result;
    int planned[outcome_count] = {};
    uint64_t planned_retries = 0;
    std::map<std::string, int> missing;  // by type
    for (const auto &[id, plan] : run.plans) {
        ++planned[plan.outcome()];
        planned_retries += std::min(plan.failures, max_attempts - 1);
        if (!tally.settled.count(id)) ++missing[plan.type->name];
    }
    if (!missing.empty()) {  // nothing else can be judged then
        std::string list;
        for (const auto &[type, count] : missing)
            list += (list.empty() ? "" : ", ") + type + " " + std::to_string(count);
        result.problems.push_back("jobs not settled: " + list);
        return result;
    }
    // A job that comes back after a lost connection runs again (at-least-once delivery),
    // and queuey charges it an attempt (its crash-loop guard): the plan no longer holds,
    // nor do queuey's counters match the handlers' view. The same for leftover jobs.
    const uint64_t lost = worker.counter(queuey::Counter::worker_lost);
    const bool as_planned = std::equal(planned, planned + outcome_count, totals.outcomes) &&
                            totals.retries == planned_retries && totals.deferrals == 1;
    if (lost > 0)
        result.notes.push_back(
            "jobs that came back after a lost run and were charged an attempt: " +
            std::to_string(lost) + " (retries planned " + std::to_string(planned_retries) +
            ", seen " + std::to_string(totals.retries) + ")");
    if (tally.dead_letter_calls > tally.dead.size())
        result.notes.push_back("dead letters published again after a lost connection: " +
                               std::to_string(tally.dead_letter_calls - tally.dead.size()) +
                               " (at-least-once; the dead-letter queue holds the copies)");
    if (!as_planned && lost == 0)
        result.problems.push_back("the outcomes, retries or deferrals differ from the plan");
    if (lost > 0 || tally.leftovers > 0) return result;
    result.counters_compared = true;
    const uint64_t succeeded = worker.counter(queuey::Counter::succeeded);
    const uint64_t retried = worker.counter(queuey::Counter::retried);
    const uint64_t deferred = worker.counter(queuey::Counter::deferred);
    if (succeeded + tally.dead.size() != run.jobs.size() ||
        dead_total(worker) != tally.dead.size() || retried != totals.retries ||
        deferred != totals.deferrals)
        result.problems.push_back(
            "queuey's counters disagree: succeeded " + std::to_string(succeeded) + ", retried " +
            std::to_string(retried) + ", deferred " + std::to_string(deferred) +
            ", dead-lettered " + std::to_string(dead_total(worker)));
    return result;
}

// amqp://user:***@host/: never print a password.
std::string redacted(std::string url) {
    const auto scheme = url.find("://"), at = url.rfind('@');
    if (scheme == std::string::npos || at == std::string::npos) return url;
    const auto colon = url.find(':', scheme + 3);
    if (colon < at) url.replace(colon + 1, at - colon - 1, "***");
    return url;
}

// The worker's metrics as a Prometheus scrape reads them (Worker::metrics_text()), cut to
// what reads well here: no # lines, no samples at 0, and buckets only of send_email:
// where its cumulative count grows, and +Inf.
void print_metrics(const std::string &text) {
    std::printf("\nmetrics (Prometheus text format; # lines, zeros and most buckets left out):\n");
    std::istringstream lines(text);
    std::string bucket_count;
    for (std::string line; std::getline(lines, line);) {
        const std::string value = line.substr(line.rfind(' ') + 1);
        if (line.empty() || line[0] == '#' || value == "0") continue;
        if (line.find("_bucket{") != std::string::npos) {
            if (line.find("job_type=\"send_email\"") == std::string::npos ||
                (value == bucket_count && line.find("+Inf") == std::string::npos))
                continue;
            bucket_count = value;
        }
        std::printf("  %s\n", line.c_str());
    }
}

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

int demo(const std::string &url) {
    const auto start = Clock::now();
    Run run = plan_run();
    std::printf("queuey demo, run %s, on %s\n", run.id.c_str(), redacted(url).c_str());

    queuey::ClientOptions options;
    options.connection_name("queuey-demo")
        .publish_timeout(5s)
        .log([](qy_log_level level, std::string_view message) {
            if (level >= QY_LOG_WARN)  // reconnects, settle failures, a blocked broker, ...
                std::fprintf(stderr, "  [queuey %s] %.*s\n",
                             level == QY_LOG_WARN ? "warning" : "error",
                             static_cast<int>(message.size()), message.data());
        });
    queuey::Client client(url, options);
    queuey::RetryPolicy retry(max_attempts);
    retry.exponential(backoff, 2.0, 2s, false);
    for (const char *queue : {"demo.emails", "demo.reports"})
        client.declare(queuey::QueueConfig(queue).delay_granularity(50ms).retry_policy(retry));
    std::printf("queues demo.emails, demo.reports: %u attempts, backoff from %lld ms doubling\n",
                max_attempts, static_cast<long long>(backoff.count()));

    queuey::Producer(client).enqueue_batch(run.jobs);
    std::printf("enqueued %zu jobs in one batch:", run.jobs.size());
    for (const JobType &type : job_types)
        std::printf("%s %s %d", &type == job_types ? "" : ",", type.name, type.count);

    Tally tally;
    queuey::Worker worker(client, {"demo.emails", "demo.reports"});
    worker.concurrency(threads).shutdown_on_signals();  // Ctrl-C: a graceful stop
    add_handlers(worker, run, tally);
    std::printf("\nworker: %u threads on both queues, running...\n", threads);
    const auto work_start = Clock::now();
    std::string run_error;
    std::atomic<bool> returned{false};
    std::thread runner([&] {
        try {
            worker.run();
        } catch (const queuey::Error &e) {
            run_error = std::string(e.status_name()) + ": " + e.what();
        }
        returned = true;
    });
    const bool settled = wait_until_settled(worker, run, tally, returned);
    worker.shutdown();
    runner.join();
    const auto work_time = Clock::now() - work_start;

    std::lock_guard lock(tally.mutex);
    const Totals totals = print_table(run, tally);
    std::printf("\nretries %llu, deferrals %llu (for %.0f s), dead letters %zu\n",
                static_cast<unsigned long long>(totals.retries),
                static_cast<unsigned long long>(totals.deferrals), seconds(defer_for),
                tally.dead.size());
    print_dead_letters(tally, url.rfind("memory:", 0) == 0);
    if (tally.leftovers > 0)
        std::printf("also settled %llu jobs left over from an earlier run (not counted above)\n",
                    static_cast<unsigned long long>(tally.leftovers.load()));
    std::printf("took %.2f s: %.2f s to connect, declare and enqueue, %.2f s to run the jobs\n",
                seconds(Clock::now() - start), seconds(work_start - start), seconds(work_time));
    print_metrics(worker.metrics_text());

    Check result = check(worker, run, tally, totals);
    auto &problems = result.problems;
    if (!run_error.empty()) problems.insert(problems.begin(), "the worker stopped: " + run_error);
    if (!settled && run_error.empty())
        problems.insert(problems.begin(),
                        "timed out after " + std::to_string(hard_timeout.count()) + " s");
    for (const std::string &note : result.notes) std::printf("note: %s\n", note.c_str());
    for (const std::string &problem : problems) std::printf("FAILED: %s\n", problem.c_str());
    if (!problems.empty()) return 1;
    std::printf("OK: all %zu jobs of this run settled%s\n", run.jobs.size(),
                result.counters_compared ? " as planned; queuey's counters agree" : "");
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // queuey's warnings (stderr) stay in order
    const char *url = argc > 1 ? argv[1] : std::getenv("QUEUEY_URL");
    if (url == nullptr || *url == '\0') {
        std::fprintf(stderr, "usage: demo [URL]  (or set QUEUEY_URL; scripts/demo does it all)\n");
        return 2;
    }
    try {
        return demo(url);
    } catch (const queuey::Error &e) {
        std::fprintf(stderr, "demo: %s: %s\n", e.status_name(), e.what());
        return 1;
    }
}

// The worker: threads that take deliveries, route them on job_type to handlers, and
// settle each by its outcome (behaviour.md section 6; docs/worker.md).
#pragma once

#include "../backend.hpp"
#include "../error.hpp"
#include "../log.hpp"
#include "../metrics_text.hpp"
#include "../mutex.hpp"
#include "job.hpp"
#include "job_metrics.hpp"
#include "parked_deliveries.hpp"
#include "settle_action.hpp"
#include "settled_fires.hpp"
#include "worker_counters.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace queuey {

struct WorkerOptions {
    std::vector<std::string> queues;  // declared on the backend beforehand
    // Jobs run at once (one thread each); 0: the sum of the queues' prefetch.
    std::size_t concurrency = 0;
    // A run longer than this counts as a retryable error "job timed out after {limit}".
    std::optional<std::chrono::milliseconds> job_timeout;
    RetryPolicy default_retry;                          // lowest precedence
    std::map<std::string, RetryPolicy> job_type_retry;  // overrides, per job type
    std::map<std::string, RetryPolicy> queue_retry;     // overrides, per queue
    // Lost runs a job may have before it is dead-lettered, for the queues that set none.
    std::uint32_t max_lost_runs = default_max_lost_runs;
    // Called before a job is dead-lettered (at least once per dead letter); it cannot
    // stop the dead-lettering. Runs on the thread that settles the job.
    std::function<void(const Envelope &, const std::string &reason)> dead_letter_hook;
    Logger logger;
    // When set, setting it asks for a shutdown() from anywhere, a signal handler included
    // (a lock-free store, see StopSignals): the worker's threads look at it at least
    // every 100 ms.
    std::shared_ptr<const std::atomic<bool>> stop_requested;
    // The counts of the queues the worker consumes, for metrics_text(); none when empty.
    // Called on the thread that asks for the metrics.
    std::function<std::vector<QueueDepth>()> queue_depths;
};

// The job_type label of the jobs whose type has no handler: their types come from the
// producers, and a label per unknown type could grow without bound.
inline constexpr std::string_view unregistered_job_type_label = "(no handler)";

// How long, and for how many fires at most, a worker remembers the fires it settled, to
// drop a second copy (settled_fires.hpp): a second leader fires within seconds of the
// first, and a day of a one-second schedule is 86,400 ids of a few dozen bytes each.
inline constexpr std::chrono::hours duplicate_fire_window{1};
inline constexpr std::size_t duplicate_fire_capacity = 100'000;

class Worker {
public:
    Worker(std::shared_ptr<Backend> backend, WorkerOptions options);
    ~Worker();
    Worker(const Worker &) = delete;
    Worker &operator=(const Worker &) = delete;

    // Throws Error(QY_ERR_INVALID_ARGUMENT, "job_type") for a second handler of a type.
    // Register before run().
    void register_handler(const std::string &job_type, Handler handler,
                          std::optional<RetryPolicy> policy = std::nullopt);

    // Consumes until shutdown(): returns once nothing runs any more. Throws Error when
    // it cannot consume (a queue not declared, the connection closed, ...).
    void run();
    // Stops the flow of deliveries, lets the running jobs end and settles them, gives the
    // jobs received and not started back to their queue, then run() returns.
    // Idempotent; callable from any thread, a handler included, and
    // before run() (run() then returns at once).
    void shutdown();

    WorkerCounters counters() const { return counters_.snapshot(); }
    // The job metrics and the counters (and the queue depths, when options.queue_depths
    // is set and does not throw) in the Prometheus text format (metrics_text.hpp). From
    // any thread, while run() runs too.
    std::string metrics_text() const;

private:
    struct Registration {
        Handler handler;
        std::optional<RetryPolicy> policy;
    };
    struct RunningJob;

    void work(Consumer &consumer, std::once_flag &stopped);
    bool stop_requested() const {
        return options_.stop_requested && options_.stop_requested->load();
    }
    // The thread of run() waits here until shutdown() or a stop signal.
    void wait_for_shutdown();
    // Runs a delivery and settles it by its outcome; during a shutdown, gives it back.
    void handle(std::shared_ptr<Delivery> delivery);
    bool stopping() const;
    // Hands a job received and not started back to its queue at no cost (a shutdown).
    void give_back(std::shared_ptr<Delivery> delivery);
    void watch_timeouts();

    // What settles a job, decided once. decide() follows the outcome table, lost_run()
    // asks the lost-run rule (worker/lost_runs.hpp) whether a delivery must be requeued
    // or dead-lettered before it runs (nullopt: run it), dead_letter() calls the
    // dead-letter hook.
    SettleAction decide(const Delivery &delivery, const JobOutcome &outcome,
                        const Registration *registration);
    SettleAction retry_or_give_up(const Delivery &delivery, const JobOutcome &outcome,
                                  const RetryPolicy &policy);
    std::optional<SettleAction> lost_run(const Delivery &delivery);
    SettleAction dead_letter(const Envelope &envelope, DeadLetterCause why,
                             std::atomic<std::uint64_t> &cause);
    // Settles by action, never throwing. A settle that fails is counted, logged and
    // parked to be tried again, unless the delivery went stale.
    void settle(std::shared_ptr<Delivery> delivery, SettleAction action);
    // The same for a settle tried again (parked.kept) or for the first time. A settle that
    // publishes is not tried while the broker blocks publishing: it would hold this
    // thread for the whole publish timeout.
    void settle(ParkedDeliveries::Parked parked);
    // Parks until due; the first time, counts it and sets the delivery aside.
    void keep(ParkedDeliveries::Parked parked, std::chrono::steady_clock::time_point due);
    // One loop turn's share of the parked deliveries: drops those gone stale and tries
    // again the settle of one that is due.
    void retry_parked();
    // Tries action once and counts it: its counter when it went through, else a settle
    // failure, which it returns. A hold refused for good turns action into a dead letter
    // "{what} refused: {error}": every redelivery would fail the same way.
    std::optional<Error> perform(Delivery &delivery, SettleAction &action);
    void log_unsettled(const SettleAction &action, const Envelope &envelope,
                       const std::string &why);
    // One run of a handler, timed into job_metrics_.
    JobOutcome run_handler(const Delivery &delivery, const Registration &registration,
                           const std::atomic<bool> &cancelled);
    // Counts in job_metrics_ the outcome of a settle that went through.
    void count_outcome(const Delivery &delivery, const SettleAction &action);
    // The job_type label of envelope's series: its type, or unregistered_job_type_label.
    std::string_view job_type_label(const Envelope &envelope) const;
    const RetryPolicy &policy_for(const Delivery &delivery, const Registration *registration,
                                  const JobOutcome *outcome) const;

    std::shared_ptr<Backend> backend_;
    const WorkerOptions options_;
    std::map<std::string, Registration, std::less<>> handlers_;
    AtomicWorkerCounters counters_;
    JobMetrics job_metrics_;  // thread-safe itself

    std::atomic<std::uint64_t> given_back_{0};  // by the shutdown under way
    Mutex mutex_;  // guards the fields below; stopping_ is written under it
    std::condition_variable changed_;
    // Atomic as well: handle() reads it for every job without the lock.
    std::atomic<bool> stopping_{false};
    bool running_ QY_GUARDED_BY(mutex_) = false;
    // For the timeout watchdog.
    std::vector<std::shared_ptr<RunningJob>> running_jobs_ QY_GUARDED_BY(mutex_);

    ParkedDeliveries parked_;  // thread-safe itself
    SettledFires settled_fires_{duplicate_fire_window, duplicate_fire_capacity};  // likewise
};

}  // namespace queuey

// queuey's worker through the C API, as a program linked with libqueuey runs it.
#include "jobs.hpp"
#include "workload.hpp"

#include <queuey/queuey.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace {

// A run that makes no progress this long is stuck (a lost or unsettled job).
constexpr std::chrono::seconds stall_limit{30};

// What the handler shares with the thread that times the run.
struct Progress {
    Progress(std::size_t target, bool fail_once, const std::function<void()> &after_success)
        : target(target), fail_once(fail_once), after_success(after_success) {}

    std::size_t target;
    bool fail_once;
    const std::function<void()> &after_success;
    std::atomic<std::size_t> succeeded{0};  // handler calls that returned success
    std::mutex mutex;
    std::condition_variable changed;
    bool finished = false;  // the target-th success came, or qy_worker_run() returned
    qy_status run_status = QY_OK;
    std::string run_error;

    void finish() {
        {
            std::lock_guard lock(mutex);
            finished = true;
        }
        changed.notify_all();
    }
};

qy_job_result no_op(qy_job *job, void *user_data) {
    auto &progress = *static_cast<Progress *>(user_data);
    if (progress.fail_once && qy_envelope_attempt(qy_job_envelope(job)) == 1) return QY_JOB_RETRY;
    if (progress.after_success) progress.after_success();
    if (++progress.succeeded == progress.target) progress.finish();
    return QY_JOB_SUCCESS;
}

Owned<qy_client> connect(const WorkerWorkload &w) {
    return connect_declared(w.url, w.queue, w.prefetch, hold_ttl_ms, w.shape);
}

Owned<qy_worker> new_worker(qy_client *client, const WorkerWorkload &w, Progress &progress) {
    qy_error *err = nullptr;
    qy_worker *worker = nullptr;
    const char *queues[] = {w.queue.c_str()};
    check_qy(qy_worker_new(client, queues, 1, &worker, &err), err, "creating a worker");
    Owned<qy_worker> owned(worker, qy_worker_free);
    check_qy(qy_worker_set_concurrency(worker, w.concurrency, &err), err,
             "setting the concurrency");
    if (w.fail_once) {  // two attempts, 0 ms apart: one hold step (hold_ttl_ms)
        qy_retry_policy *policy = nullptr;
        check_qy(qy_retry_policy_new(2, &policy, &err), err, "creating a retry policy");
        const Owned<qy_retry_policy> owned_policy(policy, qy_retry_policy_free);
        check_qy(qy_retry_policy_set_fixed(policy, 0, &err), err, "setting a fixed delay");
        check_qy(qy_worker_set_default_retry(worker, policy, &err), err,
                 "setting the retry policy");
    }
    check_qy(qy_worker_register(worker, qy_envelope_job_type((*w.jobs)[0].envelope.get()), no_op,
                                &progress, nullptr, nullptr, &err),
             err, "registering the handler");
    return owned;
}

// Waits until every job is acked: for the handler's last success, then for the counter
// (the worker counts a success once its ack is on its way, like raw's basic.ack). Gives
// up after stall_limit without progress; the caller's checks then say what is missing.
void await_acks(qy_worker *worker, Progress &progress) {
    std::unique_lock lock(progress.mutex);
    for (std::size_t seen = SIZE_MAX; !progress.finished && progress.succeeded != seen;) {
        seen = progress.succeeded;
        progress.changed.wait_for(lock, stall_limit, [&] { return progress.finished; });
    }
    const auto stalled = std::chrono::steady_clock::now() + stall_limit;
    while (progress.run_status == QY_OK &&
           qy_worker_counter(worker, QY_COUNTER_SUCCEEDED) < progress.target &&
           std::chrono::steady_clock::now() < stalled) {
        lock.unlock();
        std::this_thread::sleep_for(std::chrono::microseconds(20));
        lock.lock();
    }
}

}  // namespace

std::string hold_queue_of(const std::string &queue) {
    return queue + ".deferred." + std::to_string(hold_ttl_ms);
}

Timing queuey_run(const WorkerWorkload &w) {
    const auto client = connect(w);
    Progress progress(w.count, w.fail_once, w.after_job);
    const auto worker = new_worker(client.get(), w, progress);

    const Stopwatch stopwatch;
    std::thread runner([&] {
        qy_error *err = nullptr;
        const qy_status status = qy_worker_run(worker.get(), &err);
        {
            std::lock_guard lock(progress.mutex);
            progress.run_status = status;
            if (status != QY_OK) progress.run_error = qy_error_message(err);
        }
        qy_error_free(err);
        progress.finish();
    });
    await_acks(worker.get(), progress);
    const Timing timing = stopwatch.elapsed();
    qy_worker_shutdown(worker.get());
    runner.join();

    if (progress.run_status != QY_OK)
        throw std::runtime_error(std::string("queuey: running the worker: ") +
                                 qy_status_name(progress.run_status) + ": " + progress.run_error);
    const auto counter = [&](qy_counter which) { return qy_worker_counter(worker.get(), which); };
    if (counter(QY_COUNTER_SUCCEEDED) != w.count ||
        counter(QY_COUNTER_RETRIED) != (w.fail_once ? w.count : 0))
        throw std::runtime_error(
            "queuey: the worker acked " + std::to_string(counter(QY_COUNTER_SUCCEEDED)) +
            " and retried " + std::to_string(counter(QY_COUNTER_RETRIED)) + " of " +
            std::to_string(w.count) +
            " jobs (settle failures: " + std::to_string(counter(QY_COUNTER_SETTLE_FAILURES)) +
            ", dead-lettered: " + std::to_string(counter(QY_COUNTER_DEAD_LETTERED_EXHAUSTED)) +
            ")");
    return timing;
}

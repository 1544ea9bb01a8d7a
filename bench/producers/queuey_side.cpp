// queuey through its C API: one client and one producer (thread-safe) shared by all
// threads, as a program with many request threads would use it.
#include "jobs.hpp"
#include "sides.hpp"

#include <queuey/queuey.h>

#include <chrono>
#include <exception>
#include <latch>
#include <thread>

namespace {

using Clock = std::chrono::steady_clock;

// Enqueues jobs [first, end) one by one, appending each call's time to latencies_us.
void enqueue_share(qy_producer *producer, const JobSet &jobs, std::size_t first, std::size_t end,
                   std::vector<double> &latencies_us) {
    for (std::size_t i = first; i < end; ++i) {
        qy_error *err = nullptr;
        const Clock::time_point start = Clock::now();
        const qy_status status = qy_producer_enqueue(producer, jobs[i].envelope.get(), &err);
        latencies_us.push_back(
            std::chrono::duration<double, std::micro>(Clock::now() - start).count());
        check_qy(status, err, "enqueueing");
    }
}

}  // namespace

ProducerRun queuey_run(const Workload &w, std::size_t threads) {
    // queuey's default prefetch (16) and delay granularity (1000 ms): unused here.
    const auto client = connect_declared(w.url, w.queue, 16, 1000, w.shape);
    qy_error *err = nullptr;
    qy_producer *raw_producer = nullptr;
    check_qy(qy_producer_new(client.get(), &raw_producer, &err), err, "creating a producer");
    const Owned<qy_producer> producer(raw_producer, qy_producer_free);

    std::vector<std::vector<double>> latencies(threads);
    std::vector<std::exception_ptr> failures(threads);
    std::latch ready(static_cast<std::ptrdiff_t>(threads)), go(1);
    std::vector<std::thread> callers;
    for (std::size_t t = 0; t < threads; ++t) {
        const std::size_t first = w.count * t / threads, end = w.count * (t + 1) / threads;
        latencies[t].reserve(end - first);
        callers.emplace_back([&, t, first, end] {
            ready.count_down();
            go.wait();
            try {
                enqueue_share(producer.get(), *w.jobs, first, end, latencies[t]);
            } catch (...) {
                failures[t] = std::current_exception();
            }
        });
    }
    ready.wait();  // every thread started: their start-up is not timed
    const Stopwatch stopwatch;
    go.count_down();
    for (std::thread &caller : callers) caller.join();
    ProducerRun run{stopwatch.elapsed(), {}};
    for (const std::exception_ptr &failure : failures)
        if (failure) std::rethrow_exception(failure);
    for (const auto &share : latencies)
        run.latencies_us.insert(run.latencies_us.end(), share.begin(), share.end());
    return run;
}

// queuey through its C API: one client and one producer (thread-safe) shared by all
// threads, as a program with many request threads would use it.
#include "jobs.hpp"
#include "sides.hpp"
#include "threads.hpp"

#include <queuey/queuey.h>

#include <chrono>

namespace {

// Enqueues jobs [first, end) one by one, appending each call's time to latencies_us.
void enqueue_share(qy_producer *producer, const JobSet &jobs, std::size_t first, std::size_t end,
                   std::vector<double> &latencies_us) {
    for (std::size_t i = first; i < end; ++i) {
        qy_error *err = nullptr;
        const auto start = std::chrono::steady_clock::now();
        const qy_status status = qy_producer_enqueue(producer, jobs[i].envelope.get(), &err);
        latencies_us.push_back(us_since(start));
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

    return run_on_threads(threads, w.count,
                          [&](std::size_t, std::size_t first, std::size_t end,
                              std::vector<double> &latencies_us) {
                              enqueue_share(producer.get(), *w.jobs, first, end, latencies_us);
                          });
}

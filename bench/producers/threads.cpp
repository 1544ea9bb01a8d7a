#include "threads.hpp"

#include <exception>
#include <latch>
#include <thread>

ProducerRun run_on_threads(std::size_t threads, std::size_t count, const Share &share) {
    std::vector<std::vector<double>> latencies(threads);
    std::vector<std::exception_ptr> failures(threads);
    std::latch ready(static_cast<std::ptrdiff_t>(threads)), go(1);
    std::vector<std::thread> callers;
    for (std::size_t t = 0; t < threads; ++t) {
        const std::size_t first = count * t / threads, end = count * (t + 1) / threads;
        latencies[t].reserve(end - first);
        callers.emplace_back([&, t, first, end] {
            ready.count_down();
            go.wait();
            try {
                share(t, first, end, latencies[t]);
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
    for (const auto &slice : latencies)
        run.latencies_us.insert(run.latencies_us.end(), slice.begin(), slice.end());
    return run;
}

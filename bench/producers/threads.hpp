// T threads started together on shares of one workload, timed from the start barrier to
// the last thread's end: the harness of every many-threads side of producers_bench.
#pragma once

#include "sides.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <vector>

// Microseconds from start to now: one job's latency.
inline double us_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
        .count();
}

// Publishes jobs [first, end) on behalf of thread `thread`, appending each job's latency
// (microseconds) to latencies_us.
using Share = std::function<void(std::size_t thread, std::size_t first, std::size_t end,
                                 std::vector<double> &latencies_us)>;

// Runs share on `threads` threads, each with its slice of jobs [0, count); rethrows the
// first failure of any.
ProducerRun run_on_threads(std::size_t threads, std::size_t count, const Share &share);

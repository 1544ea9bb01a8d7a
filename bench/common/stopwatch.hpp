// Timing a benchmark run: wall clock, and the whole process's CPU time and voluntary
// context switches (every thread: queuey's I/O and worker threads count).
#pragma once

#include <sys/resource.h>

#include <chrono>

// What a timed part took.
struct Timing {
    double seconds;
    double cpu_seconds;
    double user_seconds;  // the user-space share of cpu_seconds (the rest is the kernel's)
    long switches;
};

// Measures from its construction to elapsed().
class Stopwatch {
public:
    Stopwatch() { getrusage(RUSAGE_SELF, &usage_); }

    Timing elapsed() const {
        const auto wall = std::chrono::steady_clock::now() - start_;
        rusage now;
        getrusage(RUSAGE_SELF, &now);
        return {std::chrono::duration<double>(wall).count(), cpu_seconds(now) - cpu_seconds(usage_),
                seconds(now.ru_utime) - seconds(usage_.ru_utime), now.ru_nvcsw - usage_.ru_nvcsw};
    }

private:
    static double seconds(const timeval &t) {
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    }
    static double cpu_seconds(const rusage &u) { return seconds(u.ru_utime) + seconds(u.ru_stime); }

    rusage usage_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

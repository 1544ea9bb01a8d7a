// What one timed run gets, and the two contenders that run it: raw rabbitmq-c and queuey.
// Each run connects on its own, untimed, and returns what its timed part took.
#pragma once

#include <sys/resource.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

class JobSet;

struct Workload {
    std::string url;     // amqp://user:pass@host:port/vhost
    std::string queue;   // declared (durable, x-max-priority 10) and empty, or preloaded
    const JobSet *jobs;  // the first `count` are published or, preloaded, consumed
    std::size_t count;
    std::size_t batch;  // publishes in flight at once in enqueue_batch
    std::uint16_t prefetch;
};

// What a timed part took: wall-clock time, and the CPU time and voluntary context
// switches of the whole process (every thread: queuey's I/O thread counts).
struct Timing {
    double seconds;
    double cpu_seconds;
    long switches;
};

using RunFn = Timing (*)(const Workload &);

struct Contender {
    const char *name;
    RunFn enqueue_single;  // publish, wait for the confirm, next
    RunFn enqueue_batch;   // publish `batch`, wait for all their confirms, next batch
    RunFn consume_ack;     // receive and ack `count` preloaded jobs
};

extern const Contender raw_contender;
extern const Contender queuey_contender;

// Publishes the workload's jobs the raw way (pipelined), untimed: consume_ack's setup.
void preload(const Workload &w);

// Measures from its construction to elapsed().
class Stopwatch {
public:
    Stopwatch() { getrusage(RUSAGE_SELF, &usage_); }

    Timing elapsed() const {
        const auto wall = std::chrono::steady_clock::now() - start_;
        rusage now;
        getrusage(RUSAGE_SELF, &now);
        return {std::chrono::duration<double>(wall).count(), cpu_seconds(now) - cpu_seconds(usage_),
                now.ru_nvcsw - usage_.ru_nvcsw};
    }

private:
    static double cpu_seconds(const rusage &u) {
        return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
               static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
    }

    rusage usage_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// The baseline: the same jobs published with rabbitmq-c directly, on one thread and one
// connection, with a sliding window of publisher confirms.
#include "jobs.hpp"
#include "sides.hpp"
#include "windowed_publisher.hpp"

ProducerRun raw_run(const Workload &w, std::size_t window) {
    WindowedPublisher publisher(w.url);
    const Stopwatch stopwatch;
    for (std::size_t i = 0; i < w.count; ++i)
        publisher.publish(w.queue, (*w.jobs)[i].message, window);
    publisher.await_all();
    return {stopwatch.elapsed(), publisher.latencies_us()};
}

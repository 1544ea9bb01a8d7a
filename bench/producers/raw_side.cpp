// The baselines: the same jobs published with rabbitmq-c directly, on one thread and one
// connection with a sliding window of publisher confirms (the next publish goes out as
// soon as fewer than `window` are unconfirmed, not after a whole batch), and on T blocking
// threads with a connection each.
#include "jobs.hpp"
#include "raw_amqp.hpp"
#include "sides.hpp"
#include "threads.hpp"

#include <chrono>
#include <memory>

ProducerRun raw_run(const Workload &w, std::size_t window) {
    using Clock = std::chrono::steady_clock;
    RawConnection connection(w.url);
    connection.confirm_select();
    std::vector<Clock::time_point> published_at;  // by delivery tag - 1
    published_at.reserve(w.count);
    ProducerRun run{{}, {}};
    run.latencies_us.reserve(w.count);
    connection.on_confirmed = [&](std::uint64_t tag) {
        run.latencies_us.push_back(us_since(published_at.at(tag - 1)));
    };
    const Stopwatch stopwatch;
    for (std::size_t i = 0; i < w.count; ++i) {
        connection.await_confirms(window - 1);  // room for one more
        published_at.push_back(Clock::now());
        connection.publish(w.queue, (*w.jobs)[i].message);
    }
    connection.await_confirms();
    run.timing = stopwatch.elapsed();
    return run;
}

namespace {

// Publishes jobs [first, end) one by one, each awaiting its confirm, appending each one's
// time to latencies_us.
void publish_share_blocking(RawConnection &connection, const Workload &w, std::size_t first,
                            std::size_t end, std::vector<double> &latencies_us) {
    for (std::size_t i = first; i < end; ++i) {
        const auto start = std::chrono::steady_clock::now();
        connection.publish(w.queue, (*w.jobs)[i].message);
        connection.await_confirms();
        latencies_us.push_back(us_since(start));
    }
}

}  // namespace

ProducerRun raw_blocking_run(const Workload &w, std::size_t threads) {
    std::vector<std::unique_ptr<RawConnection>> connections;  // connected untimed
    for (std::size_t t = 0; t < threads; ++t) {
        connections.push_back(std::make_unique<RawConnection>(w.url));
        connections.back()->confirm_select();
    }
    return run_on_threads(threads, w.count,
                          [&](std::size_t thread, std::size_t first, std::size_t end,
                              std::vector<double> &latencies_us) {
                              publish_share_blocking(*connections[thread], w, first, end,
                                                     latencies_us);
                          });
}

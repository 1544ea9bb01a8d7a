// Raw rabbitmq-c publishing with a sliding window of publisher confirms: the next
// publish goes out as soon as fewer than `window` are unconfirmed, not after a whole
// batch (bench/common's publish_pipelined), and each publish's confirm time is kept.
// Its own connection: RawConnection (bench/common) hands out no confirm before all are
// in. Every failure throws std::runtime_error.
#pragma once

#include "raw_amqp.hpp"

#include <amqp.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

class WindowedPublisher {
public:
    // Connects to the first URL of url (frame max 131072 as queuey, no heartbeats), opens
    // channel 1 in confirm mode.
    explicit WindowedPublisher(const std::string &url);
    ~WindowedPublisher();
    WindowedPublisher(const WindowedPublisher &) = delete;
    WindowedPublisher &operator=(const WindowedPublisher &) = delete;

    // Publishes message (mandatory, default exchange) once fewer than window publishes
    // are unconfirmed.
    void publish(const std::string &queue, const RawMessage &message, std::size_t window);
    // Waits until the broker confirmed every publish.
    void await_all();
    // Per confirmed publish, from its publish to the read of its confirm.
    const std::vector<double> &latencies_us() const { return latencies_us_; }

private:
    using Clock = std::chrono::steady_clock;

    void await_one();  // reads frames until at least one more publish is confirmed
    void confirm(std::uint64_t tag, bool multiple, Clock::time_point now);
    void check(int status, const char *doing);
    void check(amqp_rpc_reply_t reply, const char *doing);

    amqp_connection_state_t state_;
    std::vector<Clock::time_point> published_at_;  // by delivery tag - 1
    std::vector<bool> confirmed_;                  // by delivery tag - 1
    std::size_t first_unconfirmed_ = 0;            // below it every publish is confirmed
    std::size_t unconfirmed_ = 0;
    std::vector<double> latencies_us_;
};

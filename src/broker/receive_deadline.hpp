// rabbitmq-c 0.11's receive deadline, kept from outside (docs/broker.md, "Stalled
// sockets"). Before it writes, amqp_basic_publish checks whether two heartbeats have
// passed since the last receive and, if so, waits for input with no time limit
// (amqp_try_recv takes amqp_time_s_from_now(0), which means "never"; fixed upstream in
// 0.14.0). A broker that goes silent but keeps the TCP connection (hung, or behind a
// path that still answers TCP) then holds the I/O thread for good, keepalive or not.
//
// This keeps a time no later than rabbitmq-c's last receive. Before a publish, the
// deadline is then either a heartbeat away, or input is waiting (rabbitmq-c reads it at
// once), or nothing arrived for two heartbeats and the connection is to be given up, as
// rabbitmq-c itself does on a read.
#pragma once

#include <chrono>

namespace queuey {

class ReceiveDeadline {
public:
    using Clock = std::chrono::steady_clock;

    ReceiveDeadline() = default;  // heartbeats off: rabbitmq-c never waits so
    // heartbeat: the negotiated one; since: a time before the handshake's last receive.
    ReceiveDeadline(int fd, std::chrono::seconds heartbeat, Clock::time_point since);

    // rabbitmq-c received after started (an RPC's reply came).
    void received_after(Clock::time_point started);
    // Before rabbitmq-c reads with nothing buffered: with input waiting, it receives now.
    void before_read();
    // True when amqp_basic_publish cannot reach the unbounded wait and before_write()
    // would not wait either: the last receive is within a heartbeat.
    bool recent() const;
    // Before amqp_basic_publish: true when the publish cannot reach the unbounded wait,
    // after waiting up to one heartbeat for input if need be; false when nothing arrived
    // for two heartbeats.
    bool before_write() const;

private:
    bool input_within(std::chrono::milliseconds wait) const;

    int fd_ = -1;
    std::chrono::seconds heartbeat_{0};
    Clock::time_point received_;  // no later than rabbitmq-c's last receive
};

}  // namespace queuey

// The kernel's time limits on a broker socket. rabbitmq-c 0.11 makes its socket
// non-blocking and waits for it with poll() and no time limit while it writes (so
// SO_SNDTIMEO would change nothing); these limits are what ends such a wait when the
// broker died or stopped reading (docs/broker.md, "Stalled sockets").
#pragma once

#include <chrono>

namespace queuey {

struct SocketTimeouts {
    std::chrono::seconds keepalive_idle;      // TCP_KEEPIDLE: silence before the first probe
    std::chrono::seconds keepalive_interval;  // TCP_KEEPINTVL
    int keepalive_count = 3;                  // TCP_KEEPCNT
    // TCP_USER_TIMEOUT: how long written data may stay unacknowledged, or unsent behind a
    // zero window, before the kernel fails the socket; with keepalive, also how long
    // probes may go unanswered.
    std::chrono::milliseconds user_timeout;
};

// No progress for two heartbeats ends a connection, in either direction: the bound that
// rabbitmq-c and RabbitMQ already apply to a silent peer. Without heartbeats, the RPC
// timeout, but at least 10 s so that ordinary retransmissions never end one.
SocketTimeouts socket_timeouts_for(std::chrono::seconds heartbeat,
                                   std::chrono::milliseconds rpc_timeout);

// Sets SO_KEEPALIVE and the timeouts on a connected TCP socket. Throws Error
// (QY_ERR_CONNECTION) naming the option the kernel refused.
void apply_socket_timeouts(int fd, const SocketTimeouts &timeouts);

}  // namespace queuey

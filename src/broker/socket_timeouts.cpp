#include "socket_timeouts.hpp"

#include "../error.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

namespace queuey {

namespace {

using std::chrono::duration_cast;
using std::chrono::milliseconds;
using std::chrono::seconds;

void set_option(int fd, int level, int name, int value, const char *what) {
    if (setsockopt(fd, level, name, &value, sizeof value) != 0)
        throw Error(
            QY_ERR_CONNECTION, "",
            std::string("cannot set ") + what + " on the broker socket: " + std::strerror(errno));
}

}  // namespace

SocketTimeouts socket_timeouts_for(seconds heartbeat, milliseconds rpc_timeout) {
    const milliseconds bound = heartbeat.count() > 0
                                   ? duration_cast<milliseconds>(2 * heartbeat)
                                   : std::max<milliseconds>(rpc_timeout, seconds(10));
    // Probes start after half the bound and three fit in the other half; with
    // TCP_USER_TIMEOUT set, the kernel gives up when the bound passes without an answer.
    const auto at_least_1s = [](milliseconds d) {
        return std::max(seconds(1), duration_cast<seconds>(d));
    };
    return {at_least_1s(bound / 2), at_least_1s(bound / 6), 3, bound};
}

void apply_socket_timeouts(int fd, const SocketTimeouts &timeouts) {
    set_option(fd, SOL_SOCKET, SO_KEEPALIVE, 1, "SO_KEEPALIVE");
    set_option(fd, IPPROTO_TCP, TCP_KEEPIDLE, static_cast<int>(timeouts.keepalive_idle.count()),
               "TCP_KEEPIDLE");
    set_option(fd, IPPROTO_TCP, TCP_KEEPINTVL,
               static_cast<int>(timeouts.keepalive_interval.count()), "TCP_KEEPINTVL");
    set_option(fd, IPPROTO_TCP, TCP_KEEPCNT, timeouts.keepalive_count, "TCP_KEEPCNT");
    set_option(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, static_cast<int>(timeouts.user_timeout.count()),
               "TCP_USER_TIMEOUT");
}

}  // namespace queuey

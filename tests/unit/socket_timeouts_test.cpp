// The kernel's limits on a broker socket (docs/broker.md, "Stalled sockets"): the values
// derived from the heartbeat, and that a write to a peer that stopped reading fails
// within TCP_USER_TIMEOUT even while the writer waits in poll() without a limit, as
// rabbitmq-c 0.11 does.
#include "broker/socket_timeouts.hpp"
#include "error.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <vector>

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace queuey {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

void expect_timeouts(const SocketTimeouts &t, std::chrono::seconds idle,
                     std::chrono::seconds interval, std::chrono::milliseconds user_timeout) {
    EXPECT_EQ(t.keepalive_idle, idle);
    EXPECT_EQ(t.keepalive_interval, interval);
    EXPECT_EQ(t.keepalive_count, 3);
    EXPECT_EQ(t.user_timeout, user_timeout);
}

TEST(SocketTimeouts, TwoHeartbeatsWithoutProgressEndAConnection) {
    expect_timeouts(socket_timeouts_for(30s, 30000ms), 30s, 10s, 60000ms);
    expect_timeouts(socket_timeouts_for(2s, 3000ms), 2s, 1s, 4000ms);
}

TEST(SocketTimeouts, WithoutHeartbeatsTheRpcTimeoutOfAtLeast10s) {
    expect_timeouts(socket_timeouts_for(0s, 30000ms), 15s, 5s, 30000ms);
    expect_timeouts(socket_timeouts_for(0s, 300ms), 5s, 1s, 10000ms);
}

// A connected loopback pair; the accepted end never reads.
struct Connection {
    int client = -1, server = -1;
    Connection() {
        const int listener = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        bind(listener, reinterpret_cast<sockaddr *>(&address), sizeof address);
        listen(listener, 1);
        getsockname(listener, reinterpret_cast<sockaddr *>(&address), &length);
        client = socket(AF_INET, SOCK_STREAM, 0);
        connect(client, reinterpret_cast<sockaddr *>(&address), sizeof address);
        server = accept(listener, nullptr, nullptr);
        close(listener);
    }
    ~Connection() {
        close(client);
        close(server);
    }
};

int int_option(int fd, int level, int name) {
    int value = -1;
    socklen_t length = sizeof value;
    getsockopt(fd, level, name, &value, &length);
    return value;
}

TEST(SocketTimeouts, AppliedToTheSocket) {
    Connection connection;
    ASSERT_GE(connection.server, 0);
    apply_socket_timeouts(connection.client, socket_timeouts_for(30s, 30000ms));
    EXPECT_EQ(int_option(connection.client, SOL_SOCKET, SO_KEEPALIVE), 1);
    EXPECT_EQ(int_option(connection.client, IPPROTO_TCP, TCP_KEEPIDLE), 30);
    EXPECT_EQ(int_option(connection.client, IPPROTO_TCP, TCP_KEEPINTVL), 10);
    EXPECT_EQ(int_option(connection.client, IPPROTO_TCP, TCP_KEEPCNT), 3);
    EXPECT_EQ(int_option(connection.client, IPPROTO_TCP, TCP_USER_TIMEOUT), 60000);
}

TEST(SocketTimeouts, RefusedOptionThrows) {
    EXPECT_THROW(apply_socket_timeouts(-1, socket_timeouts_for(30s, 30000ms)), Error);
}

// The peer's window stays zero: without TCP_USER_TIMEOUT the kernel probes it forever
// (every probe is answered), and a writer in poll() waits forever.
TEST(SocketTimeouts, WriteToAPeerThatStoppedReadingFailsWithinTheUserTimeout) {
    Connection connection;
    ASSERT_GE(connection.server, 0);
    apply_socket_timeouts(connection.client, {1s, 1s, 3, 1000ms});
    fcntl(connection.client, F_SETFL, fcntl(connection.client, F_GETFL) | O_NONBLOCK);
    const std::vector<char> chunk(1 << 16, 'x');
    while (send(connection.client, chunk.data(), chunk.size(), MSG_NOSIGNAL) > 0) {}
    const auto stalled = Clock::now();
    pollfd writable{connection.client, POLLOUT, 0};
    ASSERT_EQ(poll(&writable, 1, 20000), 1);  // what rabbitmq-c 0.11 waits in, with -1
    EXPECT_LT(Clock::now() - stalled, 5s);    // 1 s and the probe timer's granularity
    EXPECT_NE(writable.revents & POLLERR, 0);
    EXPECT_EQ(int_option(connection.client, SOL_SOCKET, SO_ERROR), ETIMEDOUT);
}

}  // namespace
}  // namespace queuey

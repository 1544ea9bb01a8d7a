// rabbitmq-c 0.11's receive deadline kept from outside (docs/broker.md, "Stalled
// sockets"): before a publish, either the deadline is a heartbeat away, or input is
// waiting, or nothing came for two heartbeats and the connection is given up.
#include "broker/receive_deadline.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <sys/socket.h>
#include <unistd.h>

namespace queuey {
namespace {

using namespace std::chrono_literals;
using Clock = ReceiveDeadline::Clock;

// The connection's fd is the reading end; the test plays the broker on the other.
struct Link {
    int ends[2] = {-1, -1};
    Link() { socketpair(AF_UNIX, SOCK_STREAM, 0, ends); }
    ~Link() {
        close(ends[0]);
        close(ends[1]);
    }
    int fd() const { return ends[0]; }
    void broker_sends() const { [[maybe_unused]] auto n = write(ends[1], "x", 1); }
    void drained() const {
        char byte;
        [[maybe_unused]] auto n = read(ends[0], &byte, 1);
    }
};

// Runs before_write() and says how long it took.
std::chrono::milliseconds timed_write_check(const ReceiveDeadline &deadline, bool &allowed) {
    const auto start = Clock::now();
    allowed = deadline.before_write();
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
}

TEST(ReceiveDeadline, WithoutHeartbeatsAWriteNeverWaits) {
    bool allowed = false;
    EXPECT_LT(timed_write_check(ReceiveDeadline(), allowed), 100ms);
    EXPECT_TRUE(allowed);
}

TEST(ReceiveDeadline, AReceiveWithinAHeartbeatNeedsNoInput) {
    Link link;
    const ReceiveDeadline deadline(link.fd(), 1s, Clock::now());
    bool allowed = false;
    EXPECT_LT(timed_write_check(deadline, allowed), 100ms);
    EXPECT_TRUE(allowed);
}

TEST(ReceiveDeadline, AfterAHeartbeatWaitingInputLetsTheWriteGoAtOnce) {
    Link link;
    link.broker_sends();
    const ReceiveDeadline deadline(link.fd(), 1s, Clock::now() - 5s);
    bool allowed = false;
    EXPECT_LT(timed_write_check(deadline, allowed), 100ms);
    EXPECT_TRUE(allowed);
}

TEST(ReceiveDeadline, AfterAHeartbeatAWriteWaitsForInput) {
    Link link;
    const ReceiveDeadline deadline(link.fd(), 2s, Clock::now() - 2500ms);
    std::thread broker([&] {
        std::this_thread::sleep_for(300ms);
        link.broker_sends();
    });
    bool allowed = false;
    const auto took = timed_write_check(deadline, allowed);
    broker.join();
    EXPECT_TRUE(allowed);
    EXPECT_GE(took, 250ms);
    EXPECT_LT(took, 1500ms);  // well before the 2 s of waiting that give up
}

TEST(ReceiveDeadline, TwoHeartbeatsWithoutInputGiveTheConnectionUp) {
    Link link;
    ReceiveDeadline deadline(link.fd(), 1s, Clock::now() - 1500ms);
    deadline.before_read();  // nothing waiting: no receive
    bool allowed = true;
    const auto took = timed_write_check(deadline, allowed);
    EXPECT_FALSE(allowed);
    EXPECT_GE(took, 900ms);  // a whole heartbeat of waiting
    EXPECT_LT(took, 3000ms);
}

TEST(ReceiveDeadline, AReadWithInputWaitingCountsAsAReceive) {
    Link link;
    ReceiveDeadline deadline(link.fd(), 1s, Clock::now() - 1500ms);
    link.broker_sends();
    deadline.before_read();
    link.drained();  // what rabbitmq-c's recv does next
    bool allowed = false;
    EXPECT_LT(timed_write_check(deadline, allowed), 100ms);
    EXPECT_TRUE(allowed);
}

TEST(ReceiveDeadline, AnRpcReplyCountsAsAReceive) {
    Link link;
    ReceiveDeadline deadline(link.fd(), 1s, Clock::now() - 5s);
    deadline.received_after(Clock::now());
    deadline.received_after(Clock::now() - 10s);  // an older one changes nothing
    bool allowed = false;
    EXPECT_LT(timed_write_check(deadline, allowed), 100ms);
    EXPECT_TRUE(allowed);
}

}  // namespace
}  // namespace queuey

// The kept publishes' bytes: own bytes with referred bodies between them, sent in order
// from any offset, more pieces than one sendmsg takes, and cleared.
#include "broker/outgoing_bytes.hpp"

#include "bytes_written.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>

#include <chrono>
#include <climits>
#include <functional>
#include <string>

namespace queuey {
namespace {

using test::sent_from;
using namespace std::chrono_literals;

// Long enough to be referred to, not copied.
std::string body_of(char c, std::size_t size = 1500) { return std::string(size, c); }

TEST(OutgoingBytes, ReferredBytesGoBetweenOwnBytesInTheOrderAdded) {
    const std::string first_body = body_of('1');
    const std::string second_body = body_of('2', 1024);
    OutgoingBytes out;
    out.own() += "head1[";
    out.refer(first_body);
    out.own() += "]head2[";
    out.refer(second_body);
    out.refer("");  // nothing to send
    out.own() += "]";
    const std::string whole = "head1[" + first_body + "]head2[" + second_body + "]";
    EXPECT_EQ(out.size(), whole.size());
    EXPECT_EQ(sent_from(out, 0), whole);
    // From offsets inside own bytes and inside referred ones, at and around the edges.
    for (const std::size_t from :
         {1ul, 5ul, 6ul, 7ul, 1505ul, 1506ul, 1507ul, 1514ul, 2537ul, 2538ul, whole.size() - 1})
        EXPECT_EQ(sent_from(out, from), whole.substr(from)) << "from byte " << from;
}

TEST(OutgoingBytes, LongBytesAreReferredToAndShortOnesCopied) {
    std::string long_body = body_of('L');
    std::string short_body = "short";
    OutgoingBytes out;
    out.refer(long_body);
    out.refer(short_body);
    long_body.assign(long_body.size(), 'M');  // sent as it is when sent
    short_body = "SHORT";                     // sent as it was when added
    EXPECT_EQ(sent_from(out, 0), body_of('M') + "short");
}

TEST(OutgoingBytes, MorePiecesThanOneSendmsgTakesGoOutOverSeveralCalls) {
    const std::string body = body_of('b', 1024);
    OutgoingBytes out;
    std::string expected;
    for (int i = 0; i < IOV_MAX + 100; ++i) {
        out.own() += 'o';
        out.refer(body);
        expected += 'o' + body;
    }
    EXPECT_EQ(sent_from(out, 0), expected);
}

TEST(OutgoingBytes, ClearForgetsEverythingAndGivesBackABigBuffer) {
    OutgoingBytes out;
    out.own().assign(4096, 'x');
    const std::string body = body_of('r');
    out.refer(body);
    out.clear(1024);
    EXPECT_TRUE(out.empty());
    EXPECT_LE(out.own().capacity(), 1024u);
    out.own() += "next";
    EXPECT_EQ(sent_from(out, 0), "next");
}

// One end of a non-blocking socket pair whose send buffer is full: the other end reads
// nothing until drained.
struct FullSocket {
    int fds[2] = {-1, -1};
    std::size_t filled = 0;

    FullSocket() {
        if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) return;
        ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
        const std::string chunk(4096, 'f');
        ssize_t wrote;
        for (std::size_t size : {chunk.size(), std::size_t{1}})  // to the last byte
            while ((wrote = ::send(fds[0], chunk.data(), size, MSG_NOSIGNAL)) > 0)
                filled += static_cast<std::size_t>(wrote);
    }
    ~FullSocket() {
        for (int fd : fds)
            if (fd >= 0) ::close(fd);
    }
    // Everything that arrives on the other end past the filling, while write_rest writes.
    std::string drain_after_close(const std::function<void()> &write_rest) {
        const std::string bytes = test::drained(fds[1], [&] {
            write_rest();
            ::close(std::exchange(fds[0], -1));
        });
        return bytes.substr(std::min(filled, bytes.size()));
    }
};

TEST(OutgoingBytes, AFullSocketIsWaitedForUntilTheDeadlineAndWhatIsLeftIsKeptAsACopy) {
    using Clock = std::chrono::steady_clock;
    FullSocket socket;
    ASSERT_GT(socket.filled, 0u);
    std::string body = body_of('b', 200000);
    OutgoingBytes out;
    out.own() += "frame[";
    out.refer(body);
    out.own() += "]";
    const std::string expected = "frame[" + body + "]";
    const auto start = Clock::now();
    EXPECT_EQ(out.send_all(socket.fds[0], start + 100ms, 1024), OutgoingBytes::Sent::left);
    const auto waited = Clock::now() - start;
    EXPECT_GE(waited, 100ms);
    EXPECT_LT(waited, 2s);
    EXPECT_EQ(out.size(), expected.size());  // nothing went: the socket was full throughout
    body.assign(body.size(), 'X');           // the caller's body goes; the copy stays
    const std::string arrived = socket.drain_after_close([&] {
        // The reader may have made room before the first send, or not yet.
        const auto sent = out.send_all(socket.fds[0], Clock::time_point::max(), 1024);
        EXPECT_TRUE(sent == OutgoingBytes::Sent::all ||
                    sent == OutgoingBytes::Sent::all_after_waiting);
    });
    EXPECT_EQ(arrived, expected);
    EXPECT_TRUE(out.empty());
}

TEST(OutgoingBytes, WhatIsKeptFromAnOffsetIsTheRestInOrder) {
    const std::string first = body_of('1'), second = body_of('2');
    OutgoingBytes out;
    out.own() += "a";
    out.refer(first);
    out.own() += "b";
    out.refer(second);
    const std::string whole = "a" + first + "b" + second;
    for (const std::size_t from : {0ul, 1ul, 700ul, 1501ul, 1502ul, whole.size() - 1}) {
        OutgoingBytes copy;
        copy.own() += "a";
        copy.refer(first);
        copy.own() += "b";
        copy.refer(second);
        copy.keep_from(from);
        EXPECT_EQ(sent_from(copy, 0), whole.substr(from)) << "from byte " << from;
    }
}

TEST(OutgoingBytes, ASocketClosedByItsPeerFailsWithItsError) {
    int fds[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    ::close(fds[1]);
    OutgoingBytes out;
    out.own() += "lost";
    EXPECT_EQ(out.send_all(fds[0], std::chrono::steady_clock::time_point::max(), 1024),
              OutgoingBytes::Sent::failed);
    EXPECT_EQ(errno, EPIPE);
    EXPECT_TRUE(out.empty());
    ::close(fds[0]);
}

}  // namespace
}  // namespace queuey

// The kept publishes' bytes: own bytes with referred bodies between them, sent in order
// from any offset, more pieces than one sendmsg takes, and cleared.
#include "broker/outgoing_bytes.hpp"

#include "bytes_written.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <string>

namespace queuey {
namespace {

using test::sent_from;

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

}  // namespace
}  // namespace queuey

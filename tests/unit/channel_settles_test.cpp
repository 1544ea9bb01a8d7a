// What a consumer channel owes the broker (src/broker/channel_settles.hpp).
#include "broker/channel_settles.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace queuey {
namespace {

using Acks = std::vector<std::pair<std::uint64_t, bool>>;  // (tag, multiple)

ChannelSettles delivered(std::uint64_t count) {
    ChannelSettles settles;
    for (std::uint64_t tag = 1; tag <= count; ++tag)
        settles.delivered(tag, "job-" + std::to_string(tag));
    return settles;
}

Acks sent(ChannelSettles &settles) {
    Acks acks;
    settles.send_acks([&](std::uint64_t tag, bool multiple) { acks.emplace_back(tag, multiple); });
    return acks;
}

// The ids handed back, each with " unsettled" or " acked".
std::vector<std::string> handed_back(ChannelSettles &settles) {
    std::vector<std::string> ids;
    settles.hand_back([&](const std::string &id, bool unsettled, ChannelSettles::Clock::time_point) {
        ids.push_back(id + (unsettled ? " unsettled" : " acked"));
    });
    return ids;
}

TEST(ChannelSettles, AcksBelowTheLowestUnsettledGoAsOneMultipleAck) {
    ChannelSettles settles = delivered(5);
    for (std::uint64_t tag : {1, 2, 3, 5}) EXPECT_TRUE(settles.settle(tag, true)) << tag;
    EXPECT_EQ(settles.unsettled_count(), 1u);
    // 1..3 lie below 4, still in progress: one ack(3, multiple); 5 lies above it: alone.
    EXPECT_EQ(sent(settles), (Acks{{3, true}, {5, false}}));
    EXPECT_EQ(sent(settles), Acks{}) << "each ack is sent once";
    EXPECT_TRUE(settles.unsettled(4));
    EXPECT_TRUE(settles.settle(4, true));
    EXPECT_EQ(sent(settles), (Acks{{4, false}}));
    EXPECT_EQ(settles.held(), 0u);
}

TEST(ChannelSettles, ASingleAckBelowIsNotMultiple) {
    ChannelSettles settles = delivered(2);
    settles.settle(1, true);
    EXPECT_EQ(sent(settles), (Acks{{1, false}}));
}

TEST(ChannelSettles, ARejectLeavesTheAcksAroundItToTheMultipleAck) {
    // A reject goes out at once, before the acks of the turn: ack(3, multiple) covers 1
    // and 3 and leaves 2 rejected.
    ChannelSettles settles = delivered(3);
    EXPECT_TRUE(settles.settle(1, true));
    EXPECT_TRUE(settles.settle(2, false));
    EXPECT_TRUE(settles.settle(3, true));
    EXPECT_EQ(sent(settles), (Acks{{3, true}}));
}

TEST(ChannelSettles, OnlyAnUnsettledDeliveryCanBeSettled) {
    ChannelSettles settles = delivered(2);
    EXPECT_FALSE(settles.settle(7, true)) << "never delivered";
    EXPECT_TRUE(settles.settle(1, false));
    EXPECT_FALSE(settles.settle(1, true)) << "rejected already";
    EXPECT_FALSE(settles.unsettled(1));
    EXPECT_TRUE(settles.settle(2, true));
    EXPECT_FALSE(settles.settle(2, false)) << "acked already, not sent yet";
    EXPECT_EQ(sent(settles), (Acks{{2, false}}));
}

TEST(ChannelSettles, HandsBackWhatIsUnsettledOrAckedUnsent) {
    ChannelSettles settles = delivered(4);
    settles.settle(1, true);
    sent(settles);                // 1 is acked on the wire
    settles.settle(2, false);     // 2 is rejected on the wire
    settles.settle(3, true);      // 3 is acked, not sent yet; 4 is unsettled
    EXPECT_EQ(handed_back(settles), (std::vector<std::string>{"job-3 acked", "job-4 unsettled"}));
    EXPECT_EQ(settles.unsettled_count(), 0u);
    EXPECT_EQ(sent(settles), Acks{}) << "nothing is owed after a hand-back";
    EXPECT_EQ(handed_back(settles), std::vector<std::string>{});
}

TEST(ChannelSettles, ALongJobAtTheFrontKeepsMemoryBounded) {
    // Delivery 1 stays unsettled while a million others are delivered and acked behind it.
    ChannelSettles settles;
    settles.delivered(1, "long");
    std::size_t most_held = 0;
    std::size_t single_acks = 0;
    for (std::uint64_t tag = 2; tag <= 1'000'000; ++tag) {
        settles.delivered(tag, "short");
        settles.settle(tag, true);
        if (tag % 10 == 0) {
            for (const auto &[acked, multiple] : sent(settles)) single_acks += multiple ? 0 : 1;
        }
        most_held = std::max(most_held, settles.held());
    }
    EXPECT_EQ(single_acks, 999'999u) << "all behind the long job, none multiple";
    EXPECT_LE(most_held, 2u * 11 + 64);
    EXPECT_TRUE(settles.unsettled(1));
    EXPECT_EQ(settles.unsettled_count(), 1u);
    EXPECT_TRUE(settles.settle(1, true));
    // Everything behind 1 was acked one by one; 1 goes alone.
    EXPECT_EQ(sent(settles), (Acks{{1, false}}));
    EXPECT_EQ(settles.held(), 0u);
}

}  // namespace
}  // namespace queuey

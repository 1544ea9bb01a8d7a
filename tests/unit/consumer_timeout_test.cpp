// The broker's consumer timeout read from its reason for closing a channel, and which
// deliveries ran into it (src/broker/consumer_timeout.hpp).
#include "broker/consumer_timeout.hpp"

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;

TEST(ConsumerTimeout, TheValueIsReadFromTheWordsOfRabbitMQ3And4) {
    EXPECT_EQ(queuey::consumer_timeout_of(
                  "406 PRECONDITION_FAILED - delivery acknowledgement on channel 3 timed out. "
                  "Timeout value used: 1000 ms. This timeout value can be configured, see "
                  "consumers doc guide to learn more"),
              1000ms);
    EXPECT_EQ(queuey::consumer_timeout_of(
                  "PRECONDITION_FAILED - delivery acknowledgement on channel 1 timed out"),
              0ms)
        << "a timeout whose value is not named";
    EXPECT_EQ(queuey::consumer_timeout_of("406 PRECONDITION_FAILED - unknown delivery tag 7"),
              std::nullopt);
    EXPECT_EQ(queuey::consumer_timeout_of("404 NOT_FOUND - no queue 'q'"), std::nullopt);
}

TEST(ConsumerTimeout, ADeliveryRanIntoItWithinATenthOfTheTimeout) {
    EXPECT_TRUE(queuey::ran_into(1000ms, 1000ms));
    EXPECT_TRUE(queuey::ran_into(1000ms, 900ms)) << "the broker counted from before it arrived";
    EXPECT_FALSE(queuey::ran_into(1000ms, 899ms));
    EXPECT_FALSE(queuey::ran_into(1000ms, 100ms)) << "a short job running at the close";
    EXPECT_TRUE(queuey::ran_into(0ms, 0ms)) << "unknown value: every taken job";
}

}  // namespace

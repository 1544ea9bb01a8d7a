// Queue names, arguments and hold TTLs: behaviour.md section 3.
#include "topology.hpp"

#include "error.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace queuey {
namespace {

using namespace std::chrono_literals;

// The value of a named argument, with the AMQP type its variant alternative stands for.
template <typename T>
void expect_argument(const QueueArgument &argument, std::string_view name, const T &value) {
    EXPECT_EQ(argument.name, name);
    ASSERT_TRUE(std::holds_alternative<T>(argument.value))
        << argument.name << " holds alternative " << argument.value.index();
    EXPECT_EQ(std::get<T>(argument.value), value) << argument.name;
}

void expect_invalid(auto call, const std::string &field, std::vector<std::string> mentions) {
    try {
        call();
        ADD_FAILURE() << "no error for field " << field;
    } catch (const Error &e) {
        EXPECT_EQ(e.status(), QY_ERR_INVALID_ARGUMENT) << e.what();
        EXPECT_EQ(e.field(), field) << e.what();
        for (const std::string &text : mentions)
            EXPECT_NE(std::string(e.what()).find(text), std::string::npos)
                << "'" << e.what() << "' does not mention " << text;
    }
}

QueueConfig config(std::string name) {
    QueueConfig c;
    c.name = std::move(name);
    return c;
}

TEST(TopologyNames, FollowTheSharedScheme) {
    EXPECT_EQ(dead_letter_queue_name("emails"), "emails.dead");
    EXPECT_EQ(hold_queue_name("emails", 30000), "emails.deferred.30000");
    EXPECT_EQ(hold_queue_name("a.b", 1), "a.b.deferred.1");
}

TEST(TopologyWorkQueue, DefaultsToDurableWithPriorities) {
    const QueueSpec spec = work_queue_spec(config("emails"));
    EXPECT_EQ(spec.name, "emails");
    EXPECT_TRUE(spec.durable);
    ASSERT_EQ(spec.arguments.size(), 1u);
    expect_argument<std::uint8_t>(spec.arguments[0], "x-max-priority", 10);
}

TEST(TopologyWorkQueue, WritesTtlOnlyWhenSetAndPriorityOnlyWhenWanted) {
    QueueConfig c = config("emails");
    c.durable = false;
    c.max_priority = 255;
    c.message_ttl_ms = 60000;
    QueueSpec spec = work_queue_spec(c);
    EXPECT_FALSE(spec.durable);
    ASSERT_EQ(spec.arguments.size(), 2u);
    expect_argument<std::uint8_t>(spec.arguments[0], "x-max-priority", 255);
    expect_argument<std::int64_t>(spec.arguments[1], "x-message-ttl", 60000);

    c.max_priority.reset();
    spec = work_queue_spec(c);
    ASSERT_EQ(spec.arguments.size(), 1u);
    expect_argument<std::int64_t>(spec.arguments[0], "x-message-ttl", 60000);

    c.message_ttl_ms.reset();
    EXPECT_TRUE(work_queue_spec(c).arguments.empty());
    EXPECT_EQ(c.deferral_priority(), 0u);
}

TEST(TopologyDeadLetters, AreAlwaysDurableWithoutArguments) {
    QueueConfig c = config("emails");
    c.durable = false;
    c.message_ttl_ms = 5;
    const QueueSpec expected{"emails.dead", true, {}};
    EXPECT_EQ(dead_letter_queue_spec(c), expected);
    c.durable = true;
    EXPECT_EQ(dead_letter_queue_spec(c), expected);
}

TEST(TopologyHold, HasTheFourArgumentsInOrderAndNoPriority) {
    QueueConfig c = config("emails");
    c.message_ttl_ms = 5;
    const QueueSpec spec = hold_queue_spec(c, 30000);
    EXPECT_EQ(spec.name, "emails.deferred.30000");
    EXPECT_TRUE(spec.durable);
    ASSERT_EQ(spec.arguments.size(), 4u);
    expect_argument<std::int64_t>(spec.arguments[0], "x-message-ttl", 30000);
    expect_argument<std::string>(spec.arguments[1], "x-dead-letter-exchange", "");
    expect_argument<std::string>(spec.arguments[2], "x-dead-letter-routing-key", "emails");
    expect_argument<std::int64_t>(spec.arguments[3], "x-expires", 60000);

    c.durable = false;
    EXPECT_FALSE(hold_queue_spec(c, 1000).durable);
}

// Quorum queues (docs/broker.md, queue types): what RabbitMQ 3.10.8 and 4.0.5 accept.
QueueConfig quorum(std::string name) {
    QueueConfig c = config(std::move(name));
    c.type = QueueType::quorum;
    return c;
}

TEST(TopologyQuorum, WorkQueueIsTypedAndDeclaresNoPriorityButKeepsTheDeferralPriority) {
    QueueConfig c = quorum("emails");
    c.message_ttl_ms = 60000;
    const QueueSpec spec = work_queue_spec(c);
    EXPECT_TRUE(spec.durable);
    ASSERT_EQ(spec.arguments.size(), 7u);
    expect_argument<std::string>(spec.arguments[0], "x-queue-type", "quorum");
    expect_argument<std::int64_t>(spec.arguments[1], "x-message-ttl", 60000);
    EXPECT_EQ(c.deferral_priority(), 10u) << "the envelope rule is kept for RabbitMQ 4";
}

TEST(TopologyQuorum, WorkQueueDeadLettersAJobPastItsDeliveryLimitToQDeadAtLeastOnce) {
    const QueueSpec spec = work_queue_spec(quorum("emails"));
    ASSERT_EQ(spec.arguments.size(), 6u);
    expect_argument<std::int64_t>(spec.arguments[1], "x-delivery-limit", 20);
    expect_argument<std::string>(spec.arguments[2], "x-dead-letter-exchange", "");
    expect_argument<std::string>(spec.arguments[3], "x-dead-letter-routing-key", "emails.dead");
    expect_argument<std::string>(spec.arguments[4], "x-dead-letter-strategy", "at-least-once");
    expect_argument<std::string>(spec.arguments[5], "x-overflow", "reject-publish");
    EXPECT_EQ(work_queue_spec(config("emails")).arguments.size(), 1u)
        << "a classic queue keeps the Rust crates' arguments";
}

TEST(TopologyQuorum, DeadLettersAreTypedToo) {
    const QueueSpec expected{"emails.dead", true, {{"x-queue-type", std::string("quorum")}}};
    EXPECT_EQ(dead_letter_queue_spec(quorum("emails")), expected);
}

TEST(TopologyQuorum, HoldDeadLettersAtLeastOnce) {
    const QueueSpec spec = hold_queue_spec(quorum("emails"), 30000);
    EXPECT_EQ(spec.name, "emails.deferred.30000");
    EXPECT_TRUE(spec.durable);
    ASSERT_EQ(spec.arguments.size(), 7u);
    expect_argument<std::string>(spec.arguments[0], "x-queue-type", "quorum");
    expect_argument<std::int64_t>(spec.arguments[1], "x-message-ttl", 30000);
    expect_argument<std::string>(spec.arguments[2], "x-dead-letter-exchange", "");
    expect_argument<std::string>(spec.arguments[3], "x-dead-letter-routing-key", "emails");
    expect_argument<std::int64_t>(spec.arguments[4], "x-expires", 330000);  // TTL + 5 min
    expect_argument<std::string>(spec.arguments[5], "x-dead-letter-strategy", "at-least-once");
    expect_argument<std::string>(spec.arguments[6], "x-overflow", "reject-publish");
}

TEST(TopologyQuorum, HoldLeaseIsTwiceALongTtlAndNeverPastTheArgumentsLimit) {
    expect_argument<std::int64_t>(hold_queue_spec(quorum("q"), 600000).arguments[4], "x-expires",
                                  1200000);
    expect_argument<std::int64_t>(hold_queue_spec(quorum("q"), max_delay_ms).arguments[4],
                                  "x-expires", 4294967294);
}

TEST(TopologyQuorum, RefusesANonDurableQueueForEveryRole) {
    QueueConfig c = quorum("emails");
    c.durable = false;
    expect_invalid([&] { work_queue_spec(c); }, "durable", {"quorum", "durable"});
    expect_invalid([&] { dead_letter_queue_spec(c); }, "durable", {"quorum"});
    expect_invalid([&] { hold_queue_spec(c, 1000); }, "durable", {"quorum"});
}

TEST(TopologyHold, ExpiresAtTwiceTheLongestTtl) {
    const QueueSpec spec = hold_queue_spec(config("q"), max_delay_ms);
    EXPECT_EQ(spec.name, "q.deferred.2147483647");
    ASSERT_EQ(spec.arguments.size(), 4u);
    expect_argument<std::int64_t>(spec.arguments[0], "x-message-ttl", 2147483647);
    expect_argument<std::int64_t>(spec.arguments[3], "x-expires", 4294967294);
}

TEST(TopologyHold, RefusesATtlNoDelayCanHave) {
    expect_invalid([] { hold_queue_spec(config("q"), 0); }, "delay", {});
    expect_invalid([] { hold_queue_spec(config("q"), max_delay_ms + 1); }, "delay", {"2147483647"});
    expect_invalid([] { hold_queue_spec(config("q"), std::numeric_limits<std::uint64_t>::max()); },
                   "delay", {"2147483647"});
}

TEST(TopologyHoldTtl, RoundsUpToTheGranularity) {
    EXPECT_EQ(hold_ttl_ms(0ns, 1s), 1000u);
    EXPECT_EQ(hold_ttl_ms(5ms, 1s), 1000u);
    EXPECT_EQ(hold_ttl_ms(29200ms, 1s), 30000u);
    EXPECT_EQ(hold_ttl_ms(1000001us, 1s), 2000u);
    EXPECT_EQ(hold_ttl_ms(1s, 1s), 1000u);
    EXPECT_EQ(hold_ttl_ms(1s + 1ns, 1s), 2000u);
    EXPECT_EQ(hold_ttl_ms(7ms, 5ms), 10u);
}

TEST(TopologyHoldTtl, ZeroGranularityMeansWholeMilliseconds) {
    EXPECT_EQ(hold_ttl_ms(1ns, 0ms), 1u);
    EXPECT_EQ(hold_ttl_ms(0ns, 0ms), 1u);
    EXPECT_EQ(hold_ttl_ms(1ms, 0ms), 1u);
    EXPECT_EQ(hold_ttl_ms(1000001ns, 0ms), 2u);
    EXPECT_EQ(hold_ttl_ms(0ns, -5ms), 1u);
    EXPECT_EQ(hold_ttl_ms(2500us, -5ms), 3u);
}

TEST(TopologyHoldTtl, AcceptsTheLongestDelayExactly) {
    EXPECT_EQ(hold_ttl_ms(2147483647ms, 0ms), max_delay_ms);
    EXPECT_EQ(hold_ttl_ms(2147483647ms, 1ms), max_delay_ms);
    EXPECT_EQ(hold_ttl_ms(2147483646ms + 1ns, 0ms), max_delay_ms);
}

TEST(TopologyHoldTtl, RefusesLongerAndNegativeDelaysNamingTheLimit) {
    expect_invalid([] { hold_ttl_ms(2147483648ms, 0ms); }, "delay", {"2147483647 ms"});
    expect_invalid([] { hold_ttl_ms(2147483647ms + 1ns, 0ms); }, "delay", {"2147483647 ms"});
    // Rounding pushes it past the limit: 2147483647 is not a multiple of 1 s.
    expect_invalid([] { hold_ttl_ms(2147483001ms, 1s); }, "delay", {"2147483647 ms"});
    expect_invalid([] { hold_ttl_ms(0ns, std::chrono::milliseconds::max()); }, "delay",
                   {"granularity", "2147483647 ms"});
    expect_invalid([] { hold_ttl_ms(-1ns, 1s); }, "delay", {"negative", "2147483647 ms"});
    expect_invalid([] { hold_ttl_ms(std::chrono::nanoseconds::min(), 1s); }, "delay", {"negative"});
    expect_invalid([] { hold_ttl_ms(std::chrono::nanoseconds::max(), 1s); }, "delay",
                   {"2147483647 ms"});
    expect_invalid([] { hold_ttl_ms(std::chrono::nanoseconds::max(), 0ms); }, "delay",
                   {"2147483647 ms"});
}

TEST(TopologyDelayLimit, RefusesADelayAboveTheLongestNamingItsField) {
    EXPECT_NO_THROW(check_delay_ms(0, "delay_ms"));
    EXPECT_NO_THROW(check_delay_ms(max_delay_ms, "delay_ms"));
    expect_invalid([] { check_delay_ms(max_delay_ms + 1, "max_ms"); }, "max_ms",
                   {"2147483648 ms", "2147483647 ms"});
    expect_invalid([] { check_delay_ms(UINT64_MAX, "base_ms"); }, "base_ms",
                   {"18446744073709551615 ms", "2147483647 ms"});
}

TEST(TopologyQueueName, AllowsUpTo235Bytes) {
    const std::string longest(max_queue_name_bytes, 'q');
    EXPECT_EQ(longest.size(), 235u);
    EXPECT_NO_THROW(check_queue_name(longest));
    EXPECT_NO_THROW(work_queue_spec(config(longest)));
    EXPECT_EQ(hold_queue_spec(config(longest), max_delay_ms).name.size(), 255u);
    EXPECT_LE(hold_queue_name(longest, max_delay_ms).size(), 255u);
    EXPECT_NO_THROW(check_queue_name("é"));
}

TEST(TopologyQueueName, RefusesLongerNamesNamingLimitAndLength) {
    expect_invalid([] { check_queue_name(std::string(236, 'q')); }, "queue", {"235", "236"});
    std::string accents;
    for (int i = 0; i < 400; ++i) accents += "é";
    expect_invalid([&] { check_queue_name(accents); }, "queue", {"235", "800"});
    expect_invalid([] { work_queue_spec(config(std::string(236, 'q'))); }, "queue", {"235"});
    expect_invalid([] { dead_letter_queue_spec(config(std::string(236, 'q'))); }, "queue", {"235"});
    expect_invalid([] { hold_queue_spec(config(std::string(236, 'q')), 1000); }, "queue", {"235"});
}

TEST(TopologyQueueName, RefusesEmptyNulAndInvalidUtf8) {
    expect_invalid([] { check_queue_name(""); }, "queue", {"empty"});
    expect_invalid([] { check_queue_name(std::string_view("a\0b", 3)); }, "queue", {"NUL"});
    expect_invalid([] { check_queue_name("a\xff"); }, "queue", {"UTF-8"});
    expect_invalid([] { work_queue_spec(config("")); }, "queue", {});
    expect_invalid([] { dead_letter_queue_spec(config("\xc3")); }, "queue", {});
    expect_invalid([] { hold_queue_spec(config(std::string("q\0", 2)), 1000); }, "queue", {});
}

}  // namespace
}  // namespace queuey

// What RabbitMQ 3.10 and 4.0 do differently with the queues queuey declares, measured with
// plain rabbitmq-c on the broker of the run (scripts/test runs this suite on both): the
// facts that docs/broker.md's "RabbitMQ versions" table quotes, so that a broker that
// changes one of them fails here first. Each test names the version it expects per fact.
#include "broker_ctl.hpp"
#include "raw_amqp.hpp"

#include <memory>
#include <string>

namespace queuey_it {
namespace {

using namespace std::chrono_literals;

const RawArgument quorum{"x-queue-type", std::string("quorum")};

class BrokerVersions : public BrokerTest {
protected:
    void SetUp() override {
        BrokerTest::SetUp();
        if (HasFatalFailure()) return;
        raw_ = std::make_unique<RawAmqp>(endpoint());
        version_ = raw_->server_version();
        ASSERT_FALSE(version_.empty()) << "the broker sent no version in its server-properties";
        std::cout << "RabbitMQ " << version_ << "\n";
    }

    bool four() const { return version_ >= "4"; }  // "3.10.8" < "4" <= "4.0.5"

    // The message at the head of queue, taken unsettled; waits for a return the broker
    // may still be applying (a quorum queue commits it through its log first).
    std::optional<RawMessage> take(const std::string &queue, std::uint64_t &tag) {
        std::optional<RawMessage> message;
        eventually([&] { return (message = raw_->get_unsettled(queue, tag)).has_value(); }, 2s);
        return message;
    }

    // The x-delivery-count header of message: -1 when it has none.
    static std::int64_t delivery_count(const RawMessage &message) {
        const RawHeader *header = message.header("x-delivery-count");
        return header ? header->integer : -1;
    }

    // Publishes one message to queue, then takes it and rejects it with requeue until it
    // is not there any more or it was taken `most` times; returns how often it was taken.
    int takes_until_gone(const std::string &queue, int most) {
        EXPECT_TRUE(raw_->publish(queue, "{}"));
        int taken = 0;
        std::uint64_t tag = 0;
        while (taken < most && take(queue, tag)) {
            ++taken;
            raw_->return_message(tag, RawAmqp::Return::reject);
        }
        return taken;
    }

    std::unique_ptr<RawAmqp> raw_;
    std::string version_;
};

TEST_F(BrokerVersions, AQuorumQueueCountsEveryReturnAClassicQueueOnlyFlagsIt) {
    for (const bool is_quorum : {true, false}) {
        const std::string queue = new_queue(is_quorum ? "quorum" : "classic");
        raw_->declare(queue, true,
                      is_quorum ? std::vector<RawArgument>{quorum} : std::vector<RawArgument>{});
        ASSERT_TRUE(raw_->publish(queue, "{}"));
        std::uint64_t tag = 0;
        auto first = take(queue, tag);
        ASSERT_TRUE(first);
        EXPECT_FALSE(first->redelivered);
        // 3.10 writes a count of 0 on a quorum queue's first delivery, 4.0 writes none.
        EXPECT_EQ(delivery_count(*first), is_quorum && !four() ? 0 : -1) << queue;

        std::vector<std::int64_t> counts;
        raw_->return_message(tag, RawAmqp::Return::reject);
        auto message = take(queue, tag);
        ASSERT_TRUE(message);
        counts.push_back(delivery_count(*message));
        raw_->return_message(tag, RawAmqp::Return::nack);
        ASSERT_TRUE(message = take(queue, tag));
        counts.push_back(delivery_count(*message));
        raw_->reopen_get_channel();  // the channel's unsettled message goes back
        ASSERT_TRUE(message = take(queue, tag));
        counts.push_back(delivery_count(*message));
        {  // a connection that ends holding it
            RawAmqp other(endpoint());
            std::uint64_t other_tag = 0;
            raw_->reopen_get_channel();
            ASSERT_TRUE(
                eventually([&] { return other.get_unsettled(queue, other_tag).has_value(); }, 2s));
        }
        ASSERT_TRUE(message = take(queue, tag));
        EXPECT_TRUE(message->redelivered);
        counts.push_back(delivery_count(*message));
        raw_->reopen_get_channel();
        // reject, nack, a closed channel, a closed connection (after one more closed channel)
        EXPECT_EQ(counts, is_quorum ? (std::vector<std::int64_t>{1, 2, 3, 5})
                                    : (std::vector<std::int64_t>{-1, -1, -1, -1}))
            << queue << " on RabbitMQ " << version_;
    }
}

TEST_F(BrokerVersions, RabbitMQ4DropsAQuorumJobAfterTwentyReturnsWhere3Point10KeepsIt) {
    const std::string queue = new_queue("limit");
    raw_->declare(queue, true, {quorum});
    const int taken = takes_until_gone(queue, 25);
    EXPECT_EQ(taken, four() ? 21 : 25) << "on RabbitMQ " << version_;
    EXPECT_EQ(raw_->wait_for_count(queue, four() ? 0u : 1u, 2s), four() ? 0u : 1u);
}

TEST_F(BrokerVersions, ADeliveryLimitOfMinusOneIsNoLimitOn4AndNoSecondDeliveryOn3Point10) {
    const std::string queue = new_queue("unlimited");
    raw_->declare(queue, true, {quorum, {"x-delivery-limit", std::int64_t{-1}}});
    EXPECT_EQ(takes_until_gone(queue, 25), four() ? 25 : 1) << "on RabbitMQ " << version_;
}

TEST_F(BrokerVersions, ADeliveryLimitSendsTheJobToTheDeadLetterTargetOnBoth) {
    const std::string queue = new_queue("limited");
    const std::string dead = queue + ".dead";
    raw_->declare(dead, true, {quorum});
    raw_->declare(queue, true,
                  {quorum,
                   {"x-delivery-limit", std::int64_t{2}},
                   {"x-dead-letter-exchange", std::string("")},
                   {"x-dead-letter-routing-key", dead},
                   {"x-dead-letter-strategy", std::string("at-least-once")},
                   {"x-overflow", std::string("reject-publish")}});
    EXPECT_EQ(takes_until_gone(queue, 10), 3);
    EXPECT_EQ(raw_->wait_for_count(dead, 1, 5s), 1u) << "on RabbitMQ " << version_;
    const auto dead_letter = raw_->get(dead);
    ASSERT_TRUE(dead_letter);
    const RawHeader *reason = dead_letter->header("x-first-death-reason");
    ASSERT_TRUE(reason);
    EXPECT_EQ(reason->text, "delivery_limit");
}

TEST_F(BrokerVersions, RabbitMQ4StoresTheClassicTypeOnAQueueDeclaredWithoutOneAndTakesRedeclares) {
    const std::string queue = new_queue("typed");
    raw_->declare(queue, true, {{"x-max-priority", std::int64_t{10}}});
    auto stored = inspect_queues(endpoint(), {queue}, /*with_added_type=*/true);
    ASSERT_TRUE(stored[queue]);
    const auto type = stored[queue]->arguments.find("x-queue-type");
    if (four()) {
        ASSERT_NE(type, stored[queue]->arguments.end());
        EXPECT_EQ(type->second, (BrokerArgument{"longstr", "classic"}));
    } else {
        EXPECT_EQ(type, stored[queue]->arguments.end());
    }
    // The Rust crates and queuey declare a classic queue without a type: still accepted.
    EXPECT_NO_THROW(raw_->declare(queue, true, {{"x-max-priority", std::int64_t{10}}}));
}

// Which queue arguments a redeclare must repeat exactly (PRECONDITION_FAILED otherwise):
// the same on both versions.
TEST_F(BrokerVersions, ARedeclareMustRepeatTheDeliveryLimitButNotTheConsumerTimeout) {
    const auto redeclare_refused = [&](const std::vector<RawArgument> &first,
                                       const std::vector<RawArgument> &second) {
        const std::string queue = new_queue("args");
        raw_->declare(queue, true, first);
        try {
            raw_->declare(queue, true, second);
            return false;
        } catch (const std::runtime_error &) {
            return true;
        }
    };
    const RawArgument limit{"x-delivery-limit", std::int64_t{20}};
    const RawArgument timeout{"x-consumer-timeout", std::int64_t{3600000}};
    const RawArgument dead_letter_exchange{"x-dead-letter-exchange", std::string("")};
    EXPECT_TRUE(redeclare_refused({quorum, limit}, {quorum}));
    EXPECT_TRUE(redeclare_refused({quorum}, {quorum, limit}));
    EXPECT_TRUE(redeclare_refused({quorum, dead_letter_exchange}, {quorum}));
    EXPECT_FALSE(redeclare_refused({quorum, timeout}, {quorum}));
    EXPECT_FALSE(redeclare_refused({quorum}, {quorum, timeout}));
    EXPECT_FALSE(redeclare_refused({}, {timeout}));
    EXPECT_FALSE(redeclare_refused({timeout}, {}));
}

}  // namespace
}  // namespace queuey_it

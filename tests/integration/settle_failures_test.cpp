// behaviour.md section 4, publish-before-ack: a retry, deferral or dead letter publishes
// the successor and acks the original only after the broker confirmed it. When that
// publish fails, the original stays unacked: duplicate work, never lost work.
#include "broker_ctl.hpp"
#include "core_fixture.hpp"

namespace queuey_it {
namespace {

using namespace std::chrono_literals;

std::string regex_escape(const std::string &text) {
    std::string escaped;
    for (char c : text) {
        if (c == '.' || c == '-') escaped += '\\';
        escaped += c;
    }
    return escaped;
}

// A policy that makes every matching queue refuse publishes (the broker nacks them),
// cleared again when the guard goes.
class RefusingPolicy {
public:
    RefusingPolicy(const BrokerEndpoint &broker, const std::string &pattern)
        : broker_(broker), name_(unique_name("policy")) {
        set_queue_policy(broker_, name_, pattern,
                         R"({"max-length":0,"overflow":"reject-publish"})");
    }
    ~RefusingPolicy() {
        try {
            clear_policy(broker_, name_);
        } catch (const std::exception &e) {
            ADD_FAILURE() << e.what();
        }
    }

private:
    const BrokerEndpoint &broker_;
    std::string name_;
};

class SettleFailures : public CoreTest {
protected:
    // Enqueues one job and receives it.
    std::shared_ptr<queuey::Delivery> one_delivery(queuey::Consumer &consumer,
                                                   const std::string &queue) {
        producer_->enqueue(job(queue));
        return consumer.next(5s);
    }
};

TEST_F(SettleFailures, ARetryWhoseHoldPublishIsNackedLeavesTheOriginalUnacked) {
    const auto config = declare_queue();
    auto consumer = backend_->consume(config.name);
    auto delivery = one_delivery(*consumer, config.name);
    ASSERT_TRUE(delivery);
    const std::string job_id = delivery->envelope().job_id;
    {
        RefusingPolicy refuse(
            endpoint(),
            std::string("^").append(regex_escape(config.name)).append("\\.deferred\\."));
        const auto error =
            error_of([&] { delivery->retry(delivery->envelope().next_attempt(), 0ms); });
        ASSERT_TRUE(error) << "the retry succeeded although its hold publish was refused";
        EXPECT_EQ(error->status(), QY_ERR_NACKED) << error->what();
        EXPECT_EQ(raw_->message_count(config.name + ".deferred.1000"), 0u);
    }
    // Closing the consumer returns the unacked original to the queue.
    consumer.reset();
    ASSERT_EQ(raw_->wait_for_count(config.name, 1, 5s), 1u) << "the original was lost";
    auto again_consumer = backend_->consume(config.name);
    auto again = again_consumer->next(5s);
    ASSERT_TRUE(again);
    EXPECT_EQ(again->envelope().job_id, job_id);
    EXPECT_EQ(again->envelope().attempt, 1u) << "the original, not a successor";
    again->ack();
    delivery.reset();  // its channel is gone: settling it now sends nothing
    EXPECT_FALSE(again_consumer->next(1500ms)) << "a duplicate arrived";
}

TEST_F(SettleFailures, ADeadLetterThatCannotBeRoutedLeavesTheOriginalToSettleAgain) {
    const auto config = declare_queue();
    auto consumer = backend_->consume(config.name);
    auto delivery = one_delivery(*consumer, config.name);
    ASSERT_TRUE(delivery);
    raw_->delete_queue(config.name + ".dead");

    const auto error = error_of([&] { delivery->dead_letter("fatal error: x"); });
    ASSERT_TRUE(error) << "dead-lettering into a missing queue succeeded";
    EXPECT_EQ(error->status(), QY_ERR_UNROUTABLE) << error->what();
    // Still unsettled: the next settle goes through.
    backend_->declare(config);  // brings q.dead back
    delivery->dead_letter("fatal error: x");
    EXPECT_EQ(raw_->wait_for_count(config.name + ".dead", 1, 5s), 1u);
    EXPECT_FALSE(consumer->next(1000ms)) << "the original was redelivered although it was acked";
}

TEST_F(SettleFailures, ARetryWhoseHoldDeclareIsRefusedLeavesTheOriginalAndTheClientWorks) {
    const auto config = declare_queue();
    // A hold queue of that name with other arguments: queuey's declare is refused.
    raw_->declare(config.name + ".deferred.1000", true, {{"x-message-ttl", std::int64_t{5}}});
    delete_after(config.name + ".deferred.1000");
    auto consumer = backend_->consume(config.name);
    auto delivery = one_delivery(*consumer, config.name);
    ASSERT_TRUE(delivery);

    const auto error = error_of([&] { delivery->retry(delivery->envelope().next_attempt(), 1ms); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->status(), QY_ERR_PRECONDITION_FAILED) << error->what();
    EXPECT_NE(std::string(error->what()).find(config.name + ".deferred.1000"), std::string::npos)
        << error->what();
    delivery->ack();  // still unsettled, and the consumer's channel is unharmed

    expect_job_flows(*consumer, config.name,
                     "the client stopped working after a refused hold declare");
}

TEST_F(SettleFailures, ASecondSettleIsRefused) {
    const auto config = declare_queue();
    auto consumer = backend_->consume(config.name);
    auto delivery = one_delivery(*consumer, config.name);
    ASSERT_TRUE(delivery);
    delivery->ack();
    const auto error = error_of([&] { delivery->dead_letter("again"); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->status(), QY_ERR_ALREADY_SETTLED);
    EXPECT_EQ(raw_->message_count(config.name + ".dead"), 0u);
}

}  // namespace
}  // namespace queuey_it

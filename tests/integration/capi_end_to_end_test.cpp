// A job's whole life through libqueuey's C API against the broker: declare, enqueue,
// consume, retry, defer, dead-letter, batches, and the errors a C caller sees.
#include "capi_support.hpp"
#include "raw_amqp.hpp"

#include <cstring>
#include <optional>
#include <vector>

namespace queuey_it {
namespace {

using namespace capi;

class CApiEndToEnd : public BrokerTest {
protected:
    void SetUp() override {
        BrokerTest::SetUp();
        if (HasFatalFailure()) return;
        const Outcome connected = connect(endpoint().url, nullptr, client_);
        ASSERT_TRUE(connected.ok()) << connected.message;
        qy_producer *producer = nullptr;
        ASSERT_EQ(qy_producer_new(client_.get(), &producer, nullptr), QY_OK);
        producer_.reset(producer);
        raw_.emplace(endpoint());
    }

    // Declares a fresh queue whose delays are rounded to 100 ms.
    std::string declare() {
        const std::string name = new_queue();
        QueueConfig config = new_config(name);
        EXPECT_EQ(qy_queue_config_set_delay_granularity_ms(config.get(), 100, nullptr), QY_OK);
        const Outcome declared = call(
            [&](qy_error **err) { return qy_client_declare(client_.get(), config.get(), err); });
        EXPECT_TRUE(declared.ok()) << declared.message;
        return name;
    }

    Consumer subscribe(const std::string &queue) {
        qy_consumer *consumer = nullptr;
        const Outcome subscribed = call([&](qy_error **err) {
            return qy_consumer_new(client_.get(), queue.c_str(), &consumer, err);
        });
        EXPECT_TRUE(subscribed.ok()) << subscribed.message;
        return Consumer(consumer);
    }

    Delivery next(qy_consumer *consumer, uint32_t timeout_ms = 5000) {
        qy_delivery *delivery = nullptr;
        const Outcome got = call(
            [&](qy_error **err) { return qy_consumer_next(consumer, timeout_ms, &delivery, err); });
        EXPECT_TRUE(got.ok()) << got.message;
        return Delivery(delivery);
    }

    Client client_;
    Producer producer_;
    std::optional<RawAmqp> raw_;
};

TEST_F(CApiEndToEnd, AJobGoesFromEnqueueToAck) {
    const std::string queue = declare();
    Envelope env = new_job(queue, R"({"big":123456789012345678901234567890,"k":[true,null]})");
    ASSERT_EQ(qy_envelope_set_correlation_id(env.get(), "corr-1", nullptr), QY_OK);
    const Outcome enqueued =
        call([&](qy_error **err) { return qy_producer_enqueue(producer_.get(), env.get(), err); });
    ASSERT_TRUE(enqueued.ok()) << enqueued.message;

    Consumer consumer = subscribe(queue);
    Delivery delivery = next(consumer.get());
    ASSERT_TRUE(delivery);
    const qy_envelope *got = qy_delivery_envelope(delivery.get());
    EXPECT_STREQ(qy_envelope_job_id(got), qy_envelope_job_id(env.get()));
    EXPECT_STREQ(qy_envelope_correlation_id(got), "corr-1");
    EXPECT_EQ(qy_envelope_attempt(got), 1u);
    EXPECT_STREQ(qy_envelope_payload(got, nullptr),
                 R"({"big":123456789012345678901234567890,"k":[true,null]})");
    EXPECT_EQ(qy_delivery_redelivered(delivery.get()), 0);
    ASSERT_EQ(qy_delivery_ack(delivery.get(), nullptr), QY_OK);
    EXPECT_EQ(call([&](qy_error **err) { return qy_delivery_ack(delivery.get(), err); }).status,
              QY_ERR_ALREADY_SETTLED);
    Delivery none = next(consumer.get(), 300);
    EXPECT_FALSE(none) << "an acked job came again";
    EXPECT_EQ(raw_->message_count(queue), 0u);
}

TEST_F(CApiEndToEnd, RetryDeferAndDeadLetterMoveTheJobAlong) {
    const std::string queue = declare();
    Envelope env = new_job(queue);
    ASSERT_EQ(qy_producer_enqueue(producer_.get(), env.get(), nullptr), QY_OK);
    Consumer consumer = subscribe(queue);

    Delivery first = next(consumer.get());
    ASSERT_TRUE(first);
    qy_envelope *retried = nullptr;
    ASSERT_EQ(qy_envelope_next_attempt(qy_delivery_envelope(first.get()), &retried, nullptr),
              QY_OK);
    Envelope retried_owner(retried);
    const Outcome retry =
        call([&](qy_error **err) { return qy_delivery_retry(first.get(), retried, 0, err); });
    ASSERT_TRUE(retry.ok()) << retry.message;

    Delivery second = next(consumer.get());
    ASSERT_TRUE(second) << "the retried job did not come back";
    EXPECT_EQ(qy_envelope_attempt(qy_delivery_envelope(second.get())), 2u);
    qy_envelope *deferred = nullptr;
    ASSERT_EQ(qy_envelope_deferred(qy_delivery_envelope(second.get()), 10, &deferred, nullptr),
              QY_OK);
    Envelope deferred_owner(deferred);
    const Outcome defer =
        call([&](qy_error **err) { return qy_delivery_defer(second.get(), deferred, 150, err); });
    ASSERT_TRUE(defer.ok()) << defer.message;

    Delivery third = next(consumer.get());
    ASSERT_TRUE(third) << "the deferred job did not come back";
    const qy_envelope *got = qy_delivery_envelope(third.get());
    EXPECT_STREQ(qy_envelope_job_id(got), qy_envelope_job_id(env.get()));
    EXPECT_EQ(qy_envelope_attempt(got), 2u);
    EXPECT_EQ(qy_envelope_deferrals(got), 1u);
    EXPECT_EQ(qy_envelope_priority(got), 10);
    const Outcome dead = call([&](qy_error **err) {
        return qy_delivery_dead_letter(third.get(), "fatal error: no", err);
    });
    ASSERT_TRUE(dead.ok()) << dead.message;

    const auto message = raw_->get(queue + ".dead");
    ASSERT_TRUE(message);
    ASSERT_NE(message->header("x-death-reason"), nullptr);
    EXPECT_EQ(message->header("x-death-reason")->text, "fatal error: no");
    ASSERT_NE(message->header("x-attempts"), nullptr);
    EXPECT_EQ(message->header("x-attempts")->kind, AMQP_FIELD_KIND_U32);
    EXPECT_EQ(message->header("x-attempts")->integer, 2);
    EXPECT_EQ(raw_->message_count(queue), 0u);
}

TEST_F(CApiEndToEnd, ABatchReportsEachPublishAndOnlyTheUnroutableOneFails) {
    const std::string queue = declare();
    const std::string nowhere = unique_name("missing");
    std::vector<Envelope> owners;
    std::vector<const qy_envelope *> batch;
    for (int i = 0; i < 60; ++i) {
        owners.push_back(new_job(i == 30 ? nowhere : queue));
        batch.push_back(owners.back().get());
    }
    std::vector<qy_status> statuses(batch.size(), QY_ERR_INTERNAL);
    const Outcome outcome = call([&](qy_error **err) {
        return qy_producer_enqueue_batch(producer_.get(), batch.data(), batch.size(),
                                         statuses.data(), err);
    });
    EXPECT_EQ(outcome.status, QY_ERR_UNROUTABLE) << outcome.message;
    EXPECT_NE(outcome.message.find("1 of 60"), std::string::npos) << outcome.message;
    for (std::size_t i = 0; i < statuses.size(); ++i)
        EXPECT_EQ(statuses[i], i == 30 ? QY_ERR_UNROUTABLE : QY_OK) << "publish #" << i;
    EXPECT_EQ(raw_->message_count(queue), 59u);
}

TEST_F(CApiEndToEnd, RefusedDeclarationsAndDelaysNameWhatIsWrong) {
    const std::string queue = declare();
    QueueConfig changed = new_config(queue);
    ASSERT_EQ(qy_queue_config_set_max_priority(changed.get(), 5, nullptr), QY_OK);
    const Outcome refused =
        call([&](qy_error **err) { return qy_client_declare(client_.get(), changed.get(), err); });
    EXPECT_EQ(refused.status, QY_ERR_PRECONDITION_FAILED) << refused.message;
    EXPECT_NE(refused.message.find(queue), std::string::npos) << refused.message;
    EXPECT_NE(refused.message.find("x-max-priority"), std::string::npos) << refused.message;

    Envelope env = new_job(queue);
    const Outcome too_long = call([&](qy_error **err) {
        return qy_producer_enqueue_after(producer_.get(), env.get(), 2147483648ull, err);
    });
    EXPECT_EQ(too_long.status, QY_ERR_INVALID_ARGUMENT) << too_long.message;
    const Outcome forever = call([&](qy_error **err) {
        return qy_producer_defer(producer_.get(), env.get(), UINT64_MAX, err);
    });
    EXPECT_EQ(forever.status, QY_ERR_INVALID_ARGUMENT) << forever.message;

    qy_queue_config *config = nullptr;
    const std::string name(236, 'q');
    const Outcome long_name =
        call([&](qy_error **err) { return qy_queue_config_new(name.c_str(), &config, err); });
    EXPECT_EQ(long_name.status, QY_ERR_INVALID_ARGUMENT) << long_name.message;
    EXPECT_EQ(config, nullptr);
    EXPECT_FALSE(raw_->exists(name));

    // The client goes on.
    const Outcome enqueued =
        call([&](qy_error **err) { return qy_producer_enqueue(producer_.get(), env.get(), err); });
    EXPECT_TRUE(enqueued.ok()) << enqueued.message;
    EXPECT_EQ(raw_->message_count(queue), 1u);
}

TEST_F(CApiEndToEnd, AfterTheClientIsFreedItsHandlesFailWithClosed) {
    const std::string queue = declare();
    Envelope env = new_job(queue);
    ASSERT_EQ(qy_producer_enqueue(producer_.get(), env.get(), nullptr), QY_OK);
    Consumer consumer = subscribe(queue);
    Delivery delivery = next(consumer.get());
    ASSERT_TRUE(delivery);

    client_.reset();
    EXPECT_EQ(call([&](qy_error **err) {
                  return qy_producer_enqueue(producer_.get(), env.get(), err);
              }).status,
              QY_ERR_CLOSED);
    qy_delivery *more = nullptr;
    EXPECT_EQ(call([&](qy_error **err) {
                  return qy_consumer_next(consumer.get(), 100, &more, err);
              }).status,
              QY_ERR_CLOSED);
    EXPECT_EQ(more, nullptr);
    const Outcome ack = call([&](qy_error **err) { return qy_delivery_ack(delivery.get(), err); });
    EXPECT_EQ(ack.status, QY_ERR_CLOSED) << "a delivery of a freed client: " << ack.message;
    // The unsettled job went back to the queue when the connection closed.
    EXPECT_EQ(raw_->wait_for_count(queue, 1, std::chrono::seconds(5)), 1u);
}

TEST_F(CApiEndToEnd, JobsAckedJustBeforeTheClientIsFreedDoNotComeBack) {
    // Issue 42, close drains: acks in a run (more deliveries waiting) are sent together up
    // to 20 ms later; a client freed meanwhile, its consumer still open, sends them before
    // it closes. Each round acks 12 of the 16 prefetched jobs, frees the client at once,
    // and counts what the broker took back: the unacked ones, exactly.
    constexpr std::uint32_t rounds = 5, jobs = 40, prefetch = 16, acked = 12;
    for (std::uint32_t round = 0; round < rounds; ++round) {
        if (!client_) {
            ASSERT_TRUE(connect(endpoint().url, nullptr, client_).ok());
            qy_producer *producer = nullptr;
            ASSERT_EQ(qy_producer_new(client_.get(), &producer, nullptr), QY_OK);
            producer_.reset(producer);
        }
        const std::string queue = declare();
        for (std::uint32_t i = 0; i < jobs; ++i)
            ASSERT_EQ(qy_producer_enqueue(producer_.get(), new_job(queue).get(), nullptr), QY_OK);
        Consumer consumer = subscribe(queue);
        ASSERT_EQ(raw_->wait_for_count(queue, jobs - prefetch, std::chrono::seconds(5)),
                  jobs - prefetch)
            << "the consumer's prefetch is not in";
        for (std::uint32_t i = 0; i < acked; ++i) {
            Delivery delivery = next(consumer.get());
            ASSERT_TRUE(delivery) << "round " << round << ", job " << i;
            ASSERT_EQ(qy_delivery_ack(delivery.get(), nullptr), QY_OK);
        }
        producer_.reset();
        client_.reset();  // the consumer is still open, with deliveries not taken
        consumer.reset();
        EXPECT_EQ(raw_->wait_for_count(queue, jobs - acked, std::chrono::seconds(5)), jobs - acked)
            << "round " << round;
        EXPECT_EQ(raw_->wait_for_count(queue, jobs - acked + 1, std::chrono::milliseconds(300)),
                  jobs - acked)
            << "round " << round << ": acked jobs came back after the client was freed";
    }
}

}  // namespace
}  // namespace queuey_it

// behaviour.md section 6, "body is not a valid envelope": the consumer never hands such
// a body out; it copies it byte for byte to q.dead with x-death-reason "malformed
// envelope" and x-original-queue q, acks it, and goes on with the next job.
#include "core_fixture.hpp"

namespace queuey_it {
namespace {

using namespace std::chrono_literals;

const std::vector<std::string> &malformed_bodies() {
    static const std::vector<std::string> bodies = {
        "{not json",
        R"({"job_type":"t","queue":"q","attempt":1,"enqueued_at_ms":1,"payload":null})",  // no
                                                                                          // job_id
        "{\"job_id\":\"\xff\xfe\",\"x\":\"\xc3\x28\"}",  // invalid UTF-8
        "",
        std::string("\0\x01\x02 binary", 10),
    };
    return bodies;
}

class Malformed : public CoreTest {};

TEST_F(Malformed, BodiesThatAreNoEnvelopeGoVerbatimToTheDeadLettersAndTheConsumerGoesOn) {
    const auto config = declare_queue();
    for (const std::string &body : malformed_bodies())
        ASSERT_TRUE(raw_->publish(config.name, body));
    const queuey::Envelope valid = job(config.name);
    producer_->enqueue(valid);

    auto consumer = backend_->consume(config.name);
    auto delivery = consumer->next(10s);
    ASSERT_TRUE(delivery) << "the consumer stalled on a malformed body";
    EXPECT_EQ(delivery->envelope().job_id, valid.job_id) << "a malformed body came out of next()";
    delivery->ack();
    EXPECT_FALSE(consumer->next(500ms));

    const auto dead = raw_->drain(config.name + ".dead");
    ASSERT_EQ(dead.size(), malformed_bodies().size());
    for (std::size_t i = 0; i < dead.size(); ++i) {
        EXPECT_EQ(dead[i].body, malformed_bodies()[i])
            << "dead letter " << i << " is not a verbatim copy";
        const RawHeader *reason = dead[i].header("x-death-reason");
        ASSERT_NE(reason, nullptr);
        EXPECT_EQ(reason->kind, AMQP_FIELD_KIND_UTF8);
        EXPECT_EQ(reason->text, "malformed envelope");
        const RawHeader *original = dead[i].header("x-original-queue");
        ASSERT_NE(original, nullptr);
        EXPECT_EQ(original->kind, AMQP_FIELD_KIND_UTF8);
        EXPECT_EQ(original->text, config.name);
        EXPECT_FALSE(dead[i].expiration);
        EXPECT_EQ(dead[i].delivery_mode, 2) << "a dead letter must survive a broker restart";
    }
    EXPECT_EQ(raw_->message_count(config.name), 0u) << "the malformed originals were not acked";
}

TEST_F(Malformed, WithoutADeadLetterQueueAMalformedBodyIsDroppedAndTheConsumerGoesOn) {
    const auto config = declare_queue();
    raw_->delete_queue(config.name + ".dead");
    ASSERT_TRUE(raw_->publish(config.name, "garbage"));
    const queuey::Envelope valid = job(config.name);
    producer_->enqueue(valid);

    auto consumer = backend_->consume(config.name);
    auto delivery = consumer->next(10s);
    ASSERT_TRUE(delivery) << "the consumer stalled on a body it could not dead-letter";
    EXPECT_EQ(delivery->envelope().job_id, valid.job_id);
    delivery->ack();
    EXPECT_FALSE(consumer->next(500ms)) << "the malformed body was requeued (a redelivery loop)";
    EXPECT_EQ(raw_->message_count(config.name), 0u);
}

}  // namespace
}  // namespace queuey_it

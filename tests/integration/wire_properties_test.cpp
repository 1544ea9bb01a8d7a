// behaviour.md section 2 on the wire: the properties and headers of every envelope
// publish, read back with plain rabbitmq-c.
#include "core_fixture.hpp"

#include "envelope_codec.hpp"

#include <set>

namespace queuey_it {
namespace {

using namespace std::chrono_literals;

void expect_u32_header(const RawMessage &message, const char *name, std::uint32_t value) {
    const RawHeader *header = message.header(name);
    ASSERT_NE(header, nullptr) << "no header " << name;
    EXPECT_EQ(header->kind, AMQP_FIELD_KIND_U32)
        << name << " has field kind '" << header->kind << "'";
    EXPECT_EQ(header->integer, static_cast<std::int64_t>(value)) << name;
}

void expect_string_header(const RawMessage &message, const char *name, const std::string &value) {
    const RawHeader *header = message.header(name);
    ASSERT_NE(header, nullptr) << "no header " << name;
    EXPECT_EQ(header->kind, AMQP_FIELD_KIND_UTF8)
        << name << " has field kind '" << header->kind << "'";
    EXPECT_EQ(header->text, value) << name;
}

std::set<std::string> header_names(const RawMessage &message) {
    std::set<std::string> names;
    for (const RawHeader &header : message.headers) names.insert(header.name);
    return names;
}

// The properties every envelope publish carries, whatever the path.
void expect_envelope_properties(const RawMessage &message, const queuey::Envelope &env) {
    EXPECT_EQ(message.content_type, "application/json");
    EXPECT_EQ(message.delivery_mode, 2);
    EXPECT_EQ(message.message_id, env.job_id);
    EXPECT_EQ(message.type, env.job_type);
    ASSERT_TRUE(message.priority.has_value()) << "priority must always be set, also when 0";
    EXPECT_EQ(*message.priority, env.priority);
    EXPECT_FALSE(message.expiration) << "expiration must never be set";
    expect_u32_header(message, "x-attempt", env.attempt);
    expect_u32_header(message, "x-deferrals", env.deferrals);
}

class WireProperties : public CoreTest {};

TEST_F(WireProperties, AnEnqueuedJobCarriesContentTypeModeIdTypePriorityAndCounters) {
    const auto config = declare_queue();
    const queuey::Envelope env = job(config.name, R"({"to":"a@b.c","n":[1,2,3]})");
    producer_->enqueue(env);

    const auto message = raw_->get(config.name);
    ASSERT_TRUE(message);
    EXPECT_EQ(message->body, queuey::encode_envelope(env));
    expect_envelope_properties(*message, env);
    EXPECT_EQ(*message->priority, 0);
    EXPECT_EQ(header_names(*message), (std::set<std::string>{"x-attempt", "x-deferrals"}))
        << "no x-correlation-id without a correlation id, nothing else";
}

TEST_F(WireProperties, PriorityCountersAndCorrelationIdAreCarried) {
    const auto config = declare_queue();
    queuey::Envelope env = job(config.name);
    env.priority = 7;
    env.attempt = 4294967295u;  // the largest value shows the field is unsigned
    env.deferrals = 2147483648u;
    env.correlation_id = "order-42/é";
    producer_->enqueue(env);

    const auto message = raw_->get(config.name);
    ASSERT_TRUE(message);
    expect_envelope_properties(*message, env);
    EXPECT_EQ(*message->priority, 7);
    expect_string_header(*message, "x-correlation-id", "order-42/é");
    EXPECT_EQ(header_names(*message),
              (std::set<std::string>{"x-attempt", "x-deferrals", "x-correlation-id"}));
}

TEST_F(WireProperties, ALongJobTypeIsCutAtACharacterBoundaryInTheTypeProperty) {
    const auto config = declare_queue();
    std::string long_type;
    for (int i = 0; i < 400; ++i) long_type += "é";
    const queuey::Envelope env = queuey::Envelope::create(long_type, config.name, "null");
    producer_->enqueue(env);

    const auto message = raw_->get(config.name);
    ASSERT_TRUE(message);
    ASSERT_TRUE(message->type);
    EXPECT_EQ(message->type->size(), 254u);
    EXPECT_EQ(*message->type, long_type.substr(0, 254));
    EXPECT_EQ(queuey::decode_envelope(message->body).job_type, long_type)
        << "the body keeps the whole job type";
}

TEST_F(WireProperties, RetryAndDeferralPublishTheirSuccessorsWithTheirCounters) {
    const auto config = declare_queue([](queuey::QueueConfig &c) { c.delay_granularity = 100ms; });
    const queuey::Envelope first = job(config.name);
    const queuey::Envelope second = job(config.name);
    producer_->enqueue(first);
    producer_->enqueue(second);
    {
        auto consumer = backend_->consume(config.name);
        auto deliveries = receive(*consumer, 2, 5s);
        ASSERT_EQ(deliveries.size(), 2u);
        deliveries[0]->retry(deliveries[0]->envelope().next_attempt(), 0ms);
        deliveries[1]->defer(deliveries[1]->envelope().deferred(config.deferral_priority()), 0ms);
    }  // the consumer is cancelled: the successors stay in the queue for the raw reads
    ASSERT_EQ(raw_->wait_for_count(config.name, 2, 10s), 2u);

    for (int i = 0; i < 2; ++i) {
        const auto message = raw_->get(config.name);
        ASSERT_TRUE(message);
        const queuey::Envelope env = queuey::decode_envelope(message->body);
        expect_envelope_properties(*message, env);
        if (env.job_id == first.job_id) {
            EXPECT_EQ(env.attempt, 2u);
            EXPECT_EQ(env.deferrals, 0u);
            EXPECT_EQ(*message->priority, 0);
        } else {
            EXPECT_EQ(env.job_id, second.job_id);
            EXPECT_EQ(env.attempt, 1u);
            EXPECT_EQ(env.deferrals, 1u);
            EXPECT_EQ(*message->priority, 10);
        }
    }
}

TEST_F(WireProperties, ADeadLetterAddsReasonOriginalQueueAndAttempts) {
    const auto config = declare_queue();
    queuey::Envelope env = job(config.name);
    env.attempt = 3;
    env.correlation_id = "c-1";
    producer_->enqueue(env);
    {
        auto consumer = backend_->consume(config.name);
        auto delivery = consumer->next(5s);
        ASSERT_TRUE(delivery);
        delivery->dead_letter("fatal error: boom");
    }
    const auto message = raw_->get(config.name + ".dead");
    ASSERT_TRUE(message);
    EXPECT_EQ(message->body, queuey::encode_envelope(env));
    expect_envelope_properties(*message, env);
    expect_string_header(*message, "x-death-reason", "fatal error: boom");
    expect_string_header(*message, "x-original-queue", config.name);
    expect_u32_header(*message, "x-attempts", 3);
    expect_string_header(*message, "x-correlation-id", "c-1");
    EXPECT_EQ(raw_->message_count(config.name), 0u) << "the original was acked";
}

TEST_F(WireProperties, ADeadLetterNeverCopiesTheBrokersXDeathHeader) {
    const auto config = declare_queue([](queuey::QueueConfig &c) { c.delay_granularity = 100ms; });
    // Both come back from a hold queue by TTL expiry, so the broker gave them x-death.
    const queuey::Envelope probe = job(config.name), dead = job(config.name);
    producer_->enqueue_after(probe, 0ms);
    producer_->enqueue_after(dead, 0ms);
    ASSERT_EQ(raw_->wait_for_count(config.name, 2, 10s), 2u);
    const auto probed = raw_->get(config.name);
    ASSERT_TRUE(probed);
    ASSERT_NE(probed->header("x-death"), nullptr) << "precondition: the broker adds x-death";
    {
        auto consumer = backend_->consume(config.name);
        auto delivery = consumer->next(5s);
        ASSERT_TRUE(delivery);
        EXPECT_EQ(delivery->envelope().job_id, dead.job_id);
        delivery->dead_letter("fatal error: x");
    }
    const auto message = raw_->get(config.name + ".dead");
    ASSERT_TRUE(message);
    EXPECT_EQ(message->header("x-death"), nullptr);
    EXPECT_EQ(header_names(*message),
              (std::set<std::string>{"x-attempt", "x-deferrals", "x-death-reason",
                                     "x-original-queue", "x-attempts"}));
}

}  // namespace
}  // namespace queuey_it

#include "amqp_properties.hpp"
#include "envelope_codec.hpp"
#include "vectors.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace queuey {
namespace {

Envelope seed() { return decode_envelope(test::read_body("seed.json")); }

TEST(AmqpProperties, DeriveFromTheEnvelope) {
    Envelope env = seed().deferred(7);
    const AmqpProperties props = publish_properties(env);
    EXPECT_EQ(props.content_type, "application/json");
    EXPECT_EQ(props.delivery_mode, 2u);
    EXPECT_EQ(props.message_id, "0d8f9c22-5e3b-4f1a-9c77-2b1a6f0e3d44");
    EXPECT_EQ(props.type, "myapp::jobs::SendEmail");
    EXPECT_EQ(props.priority, 7u);
    const std::vector<AmqpHeader> headers = {{"x-attempt", 2u}, {"x-deferrals", 1u}};
    EXPECT_EQ(props.headers, headers);
}

TEST(AmqpProperties, SetOverOthersLeavesNothingOfThem) {
    Envelope with = seed();
    with.correlation_id = "order-17";
    AmqpProperties props = dead_letter_properties(with, "fatal error: boom");
    props.content_type = "application/octet-stream";
    props.delivery_mode = 1;
    const Envelope env = seed().deferred(7);
    set_publish_properties(env, props);
    EXPECT_EQ(props, publish_properties(env));
    EXPECT_EQ(props.content_type, "application/json");
    EXPECT_EQ(props.headers.size(), 2u);
}

TEST(AmqpProperties, CarryTheCorrelationIdOnlyWhenSet) {
    Envelope env = seed();
    env.correlation_id = "order-17";
    const auto headers = publish_properties(env).headers;
    ASSERT_EQ(headers.size(), 3u);
    EXPECT_EQ(headers[2], (AmqpHeader{"x-correlation-id", std::string("order-17")}));
}

TEST(AmqpProperties, CutALongTypeAtACharacterBoundary) {
    Envelope env = seed();
    env.job_type.clear();
    for (int i = 0; i < 400; ++i) env.job_type += "\xc3\xa9";
    EXPECT_EQ(publish_properties(env).type.size(), 254u);
}

// Issue 41: a handler's message written as it came (qy_job_set_error) made the header,
// and every JSON line that shows it, invalid UTF-8; x-exception was cleaned already.
TEST(AmqpProperties, ADeadLetterReasonThatIsNoUtf8IsCleanedAsTheExceptionIs) {
    const auto headers = dead_letter_properties(seed(), "caf\xe9 \xff").headers;
    const auto reason = std::find_if(headers.begin(), headers.end(), [](const AmqpHeader &h) {
        return h.name == "x-death-reason";
    });
    ASSERT_NE(reason, headers.end());
    EXPECT_EQ(std::get<std::string>(reason->value), "caf\xEF\xBF\xBD \xEF\xBF\xBD");
}

TEST(AmqpProperties, DeadLetterAddsReasonQueueAndAttempts) {
    const auto headers = dead_letter_properties(seed(), "fatal error: boom").headers;
    const std::vector<AmqpHeader> expected = {
        {"x-attempt", 2u},
        {"x-deferrals", 0u},
        {"x-death-reason", std::string("fatal error: boom")},
        {"x-original-queue", std::string("myapp.emails")},
        {"x-attempts", 2u},
    };
    EXPECT_EQ(headers, expected);
}

}  // namespace
}  // namespace queuey

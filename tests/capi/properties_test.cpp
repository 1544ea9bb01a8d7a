// qy_properties_*: the AMQP properties and headers of an envelope, through the C API.
#include "capi_test.hpp"

#include <ostream>
#include <vector>

namespace {

using qyt::Envelope;
using qyt::Properties;

struct Header {
    std::string name;
    qy_field_kind kind;
    std::uint32_t u32;
    std::string text;
    bool operator==(const Header &) const = default;
};

std::ostream &operator<<(std::ostream &os, const Header &h) {
    return os << "{" << h.name << ", kind " << h.kind << ", " << h.u32 << ", \"" << h.text << "\"}";
}

Header u32(const char *name, std::uint32_t value) { return {name, QY_FIELD_U32, value, ""}; }
Header text(const char *name, const char *value) { return {name, QY_FIELD_STRING, 0, value}; }

// All headers in order; the getter of the other kind must give 0 / NULL.
std::vector<Header> headers_of(const qy_properties *props) {
    std::vector<Header> headers;
    for (size_t i = 0; i < qy_properties_header_count(props); ++i) {
        const char *name = qy_properties_header_name(props, i);
        const char *value = qy_properties_header_string(props, i);
        const qy_field_kind kind = qy_properties_header_kind(props, i);
        const std::uint32_t number = qy_properties_header_u32(props, i);
        EXPECT_NE(name, nullptr) << "header " << i;
        EXPECT_EQ(value == nullptr, kind == QY_FIELD_U32) << "header " << i;
        EXPECT_TRUE(kind == QY_FIELD_U32 || number == 0) << "header " << i;
        headers.push_back({name ? name : "<NULL>", kind, number, value ? value : ""});
    }
    return headers;
}

Properties properties_of(const qy_envelope *env) {
    qy_properties *props = nullptr;
    EXPECT_EQ(qy_envelope_properties(env, &props, nullptr), QY_OK);
    return Properties(props);
}

Properties dead_letter_properties_of(const qy_envelope *env, const char *reason) {
    qy_properties *props = nullptr;
    EXPECT_EQ(qy_envelope_dead_letter_properties(env, reason, &props, nullptr), QY_OK);
    return Properties(props);
}

void expect_no_header_at(const qy_properties *props, size_t index) {
    EXPECT_EQ(qy_properties_header_name(props, index), nullptr);
    EXPECT_EQ(qy_properties_header_kind(props, index), QY_FIELD_NONE);
    EXPECT_EQ(qy_properties_header_u32(props, index), 0u);
    EXPECT_EQ(qy_properties_header_string(props, index), nullptr);
}

TEST(Properties, OfTheSeed) {
    const Envelope env = qyt::decode_seed();
    const Properties props = properties_of(env.get());
    ASSERT_TRUE(props);
    EXPECT_STREQ(qy_properties_content_type(props.get()), "application/json");
    EXPECT_EQ(qy_properties_delivery_mode(props.get()), 2u);
    EXPECT_STREQ(qy_properties_message_id(props.get()), qyt::seed::job_id);
    EXPECT_STREQ(qy_properties_type(props.get()), qyt::seed::job_type);
    EXPECT_EQ(qy_properties_priority(props.get()), 0u);
    EXPECT_EQ(headers_of(props.get()),
              (std::vector<Header>{u32("x-attempt", 2), u32("x-deferrals", 0)}));
    expect_no_header_at(props.get(), 2);
    expect_no_header_at(props.get(), static_cast<size_t>(-1));
}

TEST(Properties, FollowTheEnvelopeCountersAndCorrelationId) {
    const Envelope env = qyt::decode_body("priority_7_deferrals_3.json");
    ASSERT_EQ(qy_envelope_set_correlation_id(env.get(), "req-1", nullptr), QY_OK);
    const Properties props = properties_of(env.get());
    ASSERT_TRUE(props);
    EXPECT_EQ(qy_properties_priority(props.get()), qy_envelope_priority(env.get()));
    EXPECT_EQ(qy_properties_priority(props.get()), 7u);
    EXPECT_EQ(headers_of(props.get()),
              (std::vector<Header>{u32("x-attempt", qy_envelope_attempt(env.get())),
                                   u32("x-deferrals", 3), text("x-correlation-id", "req-1")}));
    expect_no_header_at(props.get(), 3);
}

TEST(Properties, TypeIsCutAtACharacterBoundaryTo255Bytes) {
    std::string job_type;
    for (int i = 0; i < 400; ++i) job_type += "\xc3\xa9";  // é
    qy_envelope *raw = nullptr;
    ASSERT_EQ(qy_envelope_new(job_type.c_str(), "q", "1", 1, &raw, nullptr), QY_OK);
    const Envelope env(raw);
    EXPECT_EQ(qy_envelope_job_type(env.get()), job_type);  // the envelope keeps all of it
    const Properties props = properties_of(env.get());
    EXPECT_EQ(std::string(qy_properties_type(props.get())), job_type.substr(0, 254));

    ASSERT_EQ(qy_envelope_new(std::string(300, 'a').c_str(), "q", "1", 1, &raw, nullptr), QY_OK);
    const Envelope ascii(raw);
    EXPECT_EQ(std::string(qy_properties_type(properties_of(ascii.get()).get())),
              std::string(255, 'a'));
}

TEST(Properties, DeadLetterAddsReasonQueueAndAttempts) {
    const Envelope env = qyt::decode_seed();
    const Properties props = dead_letter_properties_of(env.get(), "handler failed: boom");
    ASSERT_TRUE(props);
    EXPECT_STREQ(qy_properties_content_type(props.get()), "application/json");
    EXPECT_EQ(qy_properties_delivery_mode(props.get()), 2u);
    EXPECT_STREQ(qy_properties_message_id(props.get()), qyt::seed::job_id);
    EXPECT_STREQ(qy_properties_type(props.get()), qyt::seed::job_type);
    EXPECT_EQ(
        headers_of(props.get()),
        (std::vector<Header>{u32("x-attempt", 2), u32("x-deferrals", 0),
                             text("x-death-reason", "handler failed: boom"),
                             text("x-original-queue", qyt::seed::queue), u32("x-attempts", 2)}));
    expect_no_header_at(props.get(), 5);
}

TEST(Properties, DeadLetterKeepsTheCorrelationIdBeforeItsOwnHeaders) {
    const Envelope env = qyt::decode_seed();
    ASSERT_EQ(qy_envelope_set_correlation_id(env.get(), "req-1", nullptr), QY_OK);
    const Properties props = dead_letter_properties_of(env.get(), "");
    EXPECT_EQ(
        headers_of(props.get()),
        (std::vector<Header>{u32("x-attempt", 2), u32("x-deferrals", 0),
                             text("x-correlation-id", "req-1"), text("x-death-reason", ""),
                             text("x-original-queue", qyt::seed::queue), u32("x-attempts", 2)}));
}

}  // namespace

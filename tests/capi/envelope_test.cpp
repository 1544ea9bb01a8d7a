// qy_envelope_*: getters, creation, correlation ids and transitions, through the C API.
#include "capi_test.hpp"

#include <cctype>
#include <string_view>

namespace {

using qyt::Envelope;

Envelope create(std::string_view payload, qy_error **err = nullptr) {
    qy_envelope *env = nullptr;
    const qy_status status =
        qy_envelope_new("app::Job", "app.jobs", payload.data(), payload.size(), &env, err);
    EXPECT_EQ(status, QY_OK) << qy_status_name(status);
    return Envelope(env);
}

std::string payload_of(const qy_envelope *env) {
    size_t len = 0;
    const char *text = qy_envelope_payload(env, &len);
    if (text == nullptr) return "<NULL>";
    EXPECT_EQ(text[len], '\0') << "payload not NUL-terminated";
    return {text, len};
}

// A lowercase hyphenated UUID of version 4, variant 10xx.
bool is_lowercase_v4_uuid(std::string_view id) {
    if (id.size() != 36) return false;
    for (size_t i = 0; i < id.size(); ++i) {
        const bool hyphen = i == 8 || i == 13 || i == 18 || i == 23;
        const char c = id[i];
        if (hyphen ? c != '-'
                   : !(std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f')))
            return false;
    }
    return id[14] == '4' && std::string_view("89ab").find(id[19]) != std::string_view::npos;
}

TEST(Envelope, SeedGetters) {
    const Envelope env = qyt::decode_seed();
    ASSERT_TRUE(env);
    EXPECT_STREQ(qy_envelope_job_id(env.get()), qyt::seed::job_id);
    EXPECT_STREQ(qy_envelope_job_type(env.get()), qyt::seed::job_type);
    EXPECT_STREQ(qy_envelope_queue(env.get()), qyt::seed::queue);
    EXPECT_EQ(qy_envelope_attempt(env.get()), qyt::seed::attempt);
    EXPECT_EQ(qy_envelope_enqueued_at_ms(env.get()), qyt::seed::enqueued_at_ms);
    EXPECT_EQ(qy_envelope_deferrals(env.get()), 0u);
    EXPECT_EQ(qy_envelope_priority(env.get()), 0u);
    EXPECT_EQ(payload_of(env.get()), qyt::seed::payload);
    EXPECT_STREQ(qy_envelope_payload(env.get(), nullptr), qyt::seed::payload);
    EXPECT_EQ(qy_envelope_correlation_id(env.get()), nullptr);

    const std::uint64_t before = qyt::now_ms();
    const std::uint64_t age = qy_envelope_age_ms(env.get());
    const std::uint64_t after = qyt::now_ms();
    EXPECT_GT(age, 0u);
    EXPECT_GE(age, before - qyt::seed::enqueued_at_ms);
    EXPECT_LE(age, after - qyt::seed::enqueued_at_ms);
}

TEST(Envelope, AgeIsZeroWhenEnqueuedInTheFuture) {
    const Envelope env = qyt::decode_body("max_values.json");
    ASSERT_TRUE(env);
    EXPECT_EQ(qy_envelope_enqueued_at_ms(env.get()), UINT64_MAX);
    EXPECT_EQ(qy_envelope_age_ms(env.get()), 0u);
}

TEST(Envelope, TransitionsReturnNewEnvelopesAndKeepTheOriginal) {
    const Envelope env = qyt::decode_seed();
    qy_envelope *raw = nullptr;
    ASSERT_EQ(qy_envelope_deferred(env.get(), 9, &raw, nullptr), QY_OK);
    const Envelope deferred(raw);
    ASSERT_EQ(qy_envelope_next_attempt(deferred.get(), &raw, nullptr), QY_OK);
    const Envelope retried(raw);

    EXPECT_EQ(qy_envelope_attempt(env.get()), 2u);
    EXPECT_EQ(qy_envelope_deferrals(env.get()), 0u);
    EXPECT_EQ(qy_envelope_priority(deferred.get()), 9u);
    EXPECT_EQ(qy_envelope_deferrals(deferred.get()), 1u);
    EXPECT_EQ(qy_envelope_attempt(retried.get()), 3u);
    EXPECT_EQ(qy_envelope_deferrals(retried.get()), 1u);
    EXPECT_EQ(qy_envelope_priority(retried.get()), 0u);
    EXPECT_STREQ(qy_envelope_job_id(retried.get()), qyt::seed::job_id);
    EXPECT_EQ(qy_envelope_enqueued_at_ms(retried.get()), qyt::seed::enqueued_at_ms);
}

TEST(EnvelopeNew, CreatesAFirstAttempt) {
    const std::uint64_t before = qyt::now_ms();
    const Envelope env = create(R"({ "a" : [1, 2.50] })");
    const std::uint64_t after = qyt::now_ms();
    ASSERT_TRUE(env);

    EXPECT_TRUE(is_lowercase_v4_uuid(qy_envelope_job_id(env.get())))
        << qy_envelope_job_id(env.get());
    EXPECT_STREQ(qy_envelope_job_type(env.get()), "app::Job");
    EXPECT_STREQ(qy_envelope_queue(env.get()), "app.jobs");
    EXPECT_EQ(qy_envelope_attempt(env.get()), 1u);
    EXPECT_GE(qy_envelope_enqueued_at_ms(env.get()), before);
    EXPECT_LE(qy_envelope_enqueued_at_ms(env.get()), after);
    EXPECT_EQ(qy_envelope_deferrals(env.get()), 0u);
    EXPECT_EQ(qy_envelope_priority(env.get()), 0u);
    EXPECT_EQ(qy_envelope_correlation_id(env.get()), nullptr);
    EXPECT_EQ(payload_of(env.get()), R"({"a":[1,2.50]})");
}

TEST(EnvelopeNew, EachJobGetsItsOwnId) {
    const Envelope first = create("1");
    const Envelope second = create("1");
    ASSERT_TRUE(first && second);
    EXPECT_STRNE(qy_envelope_job_id(first.get()), qy_envelope_job_id(second.get()));
}

TEST(EnvelopeNew, ReadsExactlyPayloadLenBytes) {
    const std::string_view text = R"({"a":1}garbage)";
    const Envelope env = create(text.substr(0, 7));
    ASSERT_TRUE(env);
    EXPECT_EQ(payload_of(env.get()), R"({"a":1})");
}

TEST(EnvelopeNew, EncodesToABodyThatDecodesToTheSameBody) {
    const Envelope env = create(R"(["x", {"y": null}])");
    ASSERT_TRUE(env);
    const std::string body = qyt::encode(env.get());
    qy_envelope *raw = nullptr;
    ASSERT_EQ(qy_envelope_from_bytes(body.data(), body.size(), &raw, nullptr), QY_OK) << body;
    const Envelope decoded(raw);
    EXPECT_EQ(qyt::encode(decoded.get()), body);
    EXPECT_NE(body.find(R"(,"payload":["x",{"y":null}]})"), std::string::npos) << body;
}

TEST(EnvelopeNew, RejectsMissingEmptyAndInvalidNames) {
    struct Case {
        const char *job_type;
        const char *queue;
        const char *field;
        bool field_set;  // whether qy_error_field() must name it (not checked for NULL)
    };
    const Case cases[] = {
        {nullptr, "q", "job_type", false}, {"", "q", "job_type", true},
        {"\xff", "q", "job_type", true},   {"ab\xc3", "q", "job_type", true},
        {"t", nullptr, "queue", false},    {"t", "", "queue", true},
        {"t", "\xc0\xaf", "queue", true},  {"t", "\xed\xa0\x80", "queue", true},
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(c.field + std::string(c.job_type && c.queue ? " invalid" : " NULL"));
        qy_envelope *env = nullptr;
        qy_error *err = nullptr;
        const qy_status status = qy_envelope_new(c.job_type, c.queue, "{}", 2, &env, &err);
        EXPECT_TRUE(qyt::failed_with(status, err, QY_ERR_INVALID_ARGUMENT, c.field,
                                     c.field_set ? c.field : nullptr));
        EXPECT_EQ(env, nullptr);
        qy_error_free(err);
    }
}

TEST(EnvelopeNew, RejectsAPayloadThatIsNotOneJsonValue) {
    const std::string_view cases[] = {
        "",
        " ",
        "{",
        R"({"a":})",
        "nope",
        "'x'",
        "NaN",
        "\"\xff\"",
        R"({"a":1} x)",
        R"({"a":1}{"b":2})",
        "1 2",
        std::string_view("{}\0", 3),
    };
    for (const std::string_view payload : cases) {
        SCOPED_TRACE(testing::PrintToString(std::string(payload)));
        qy_envelope *env = nullptr;
        qy_error *err = nullptr;
        const qy_status status =
            qy_envelope_new("t", "q", payload.data(), payload.size(), &env, &err);
        EXPECT_TRUE(qyt::failed_with(status, err, QY_ERR_BAD_JSON, "payload", "payload"));
        EXPECT_EQ(env, nullptr);
        qy_error_free(err);
    }
}

TEST(EnvelopeCorrelationId, SetReplaceAndClear) {
    const Envelope env = qyt::decode_seed();
    ASSERT_TRUE(env);
    ASSERT_EQ(qy_envelope_set_correlation_id(env.get(), "req-1", nullptr), QY_OK);
    EXPECT_STREQ(qy_envelope_correlation_id(env.get()), "req-1");
    EXPECT_NE(qyt::encode(env.get()).find(R"("priority":0,"correlation_id":"req-1","payload":)"),
              std::string::npos);

    ASSERT_EQ(qy_envelope_set_correlation_id(env.get(), "req-\xc3\xa9", nullptr), QY_OK);
    EXPECT_STREQ(qy_envelope_correlation_id(env.get()), "req-\xc3\xa9");
    ASSERT_EQ(qy_envelope_set_correlation_id(env.get(), "", nullptr), QY_OK);
    EXPECT_STREQ(qy_envelope_correlation_id(env.get()), "");

    ASSERT_EQ(qy_envelope_set_correlation_id(env.get(), nullptr, nullptr), QY_OK);
    EXPECT_EQ(qy_envelope_correlation_id(env.get()), nullptr);
    const std::string body = qyt::encode(env.get());
    EXPECT_EQ(body.find("correlation_id"), std::string::npos) << body;
}

TEST(EnvelopeCorrelationId, RejectsInvalidUtf8AndKeepsTheOldValue) {
    const Envelope env = qyt::decode_seed();
    ASSERT_TRUE(env);
    ASSERT_EQ(qy_envelope_set_correlation_id(env.get(), "kept", nullptr), QY_OK);
    qy_error *err = nullptr;
    const qy_status status = qy_envelope_set_correlation_id(env.get(), "bad\xff", &err);
    EXPECT_TRUE(
        qyt::failed_with(status, err, QY_ERR_INVALID_ARGUMENT, "correlation_id", "correlation_id"));
    qy_error_free(err);
    EXPECT_STREQ(qy_envelope_correlation_id(env.get()), "kept");
}

TEST(EnvelopeCorrelationId, TravelsThroughTransitions) {
    const Envelope env = qyt::decode_seed();
    ASSERT_EQ(qy_envelope_set_correlation_id(env.get(), "req-1", nullptr), QY_OK);
    qy_envelope *raw = nullptr;
    ASSERT_EQ(qy_envelope_next_attempt(env.get(), &raw, nullptr), QY_OK);
    const Envelope next(raw);
    EXPECT_STREQ(qy_envelope_correlation_id(next.get()), "req-1");
}

}  // namespace

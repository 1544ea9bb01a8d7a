// Envelope creation and the transition table of envelopes.md.
#include "envelope.hpp"
#include "envelope_codec.hpp"
#include "error.hpp"
#include "vectors.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <regex>

namespace queuey {
namespace {

Envelope seed() { return decode_envelope(test::read_body("seed.json")); }

TEST(EnvelopeCreate, StartsAFreshFirstAttempt) {
    const std::uint64_t before = unix_now_ms();
    const Envelope env = Envelope::create("myapp::jobs::SendEmail", "myapp.emails",
                                          " { \"to\" : \"a@b.c\", \"n\" : 1.50 } ");
    const std::uint64_t after = unix_now_ms();
    EXPECT_TRUE(std::regex_match(
        env.job_id, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")))
        << env.job_id;
    EXPECT_EQ(env.job_type, "myapp::jobs::SendEmail");
    EXPECT_EQ(env.queue, "myapp.emails");
    EXPECT_EQ(env.attempt, 1u);
    EXPECT_GE(env.enqueued_at_ms, before);
    EXPECT_LE(env.enqueued_at_ms, after);
    EXPECT_EQ(env.deferrals, 0u);
    EXPECT_EQ(env.priority, 0u);
    EXPECT_FALSE(env.correlation_id);
    EXPECT_EQ(env.payload, R"({"to":"a@b.c","n":1.50})");
}

TEST(EnvelopeCreate, GivesEveryJobItsOwnId) {
    EXPECT_NE(Envelope::create("t", "q", "1").job_id, Envelope::create("t", "q", "1").job_id);
}

TEST(EnvelopeCreate, RefusesBadArgumentsNamingThem) {
    auto expect_error = [](std::string_view type, std::string_view queue, std::string_view payload,
                           qy_status status, const std::string &field) {
        try {
            Envelope::create(type, queue, payload);
            ADD_FAILURE() << "no error for field " << field;
        } catch (const Error &e) {
            EXPECT_EQ(e.status(), status) << e.what();
            EXPECT_EQ(e.field(), field) << e.what();
        }
    };
    expect_error("", "q", "1", QY_ERR_INVALID_ARGUMENT, "job_type");
    expect_error("t", "", "1", QY_ERR_INVALID_ARGUMENT, "queue");
    expect_error("t\xff", "q", "1", QY_ERR_INVALID_ARGUMENT, "job_type");
    expect_error(std::string_view("t\0x", 3), "q", "1", QY_ERR_INVALID_ARGUMENT, "job_type");
    expect_error("t", "q", "", QY_ERR_BAD_JSON, "payload");
    expect_error("t", "q", "{\"a\":", QY_ERR_BAD_JSON, "payload");
    expect_error("t", "q", "1 2", QY_ERR_BAD_JSON, "payload");
    expect_error("t", "q", std::string_view("1\0", 2), QY_ERR_BAD_JSON, "payload");
}

TEST(EnvelopeTransitions, NextAttemptSpendsAnAttemptAndResetsPriority) {
    Envelope env = seed().deferred(10);
    const Envelope next = env.next_attempt();
    EXPECT_EQ(next.attempt, env.attempt + 1);
    EXPECT_EQ(next.deferrals, env.deferrals);
    EXPECT_EQ(next.priority, 0u);
    env.attempt = next.attempt;
    env.priority = 0;
    EXPECT_EQ(next, env) << "nothing else may change";
}

TEST(EnvelopeTransitions, DeferredCountsADeferralAtTheGivenPriority) {
    const Envelope env = seed();
    const Envelope next = env.deferred(10);
    EXPECT_EQ(next.attempt, env.attempt);
    EXPECT_EQ(next.deferrals, env.deferrals + 1);
    EXPECT_EQ(next.priority, 10u);
    Envelope expected = env;
    expected.deferrals = next.deferrals;
    expected.priority = 10;
    EXPECT_EQ(next, expected) << "nothing else may change";
}

TEST(EnvelopeTransitions, CountersSaturateInsteadOfWrapping) {
    Envelope env = seed();
    env.attempt = std::numeric_limits<std::uint32_t>::max();
    env.deferrals = std::numeric_limits<std::uint32_t>::max();
    EXPECT_EQ(env.next_attempt().attempt, env.attempt);
    EXPECT_EQ(env.deferred(3).deferrals, env.deferrals);
}

TEST(EnvelopeAge, CountsFromTheFirstEnqueueAndNeverGoesNegative) {
    Envelope env = seed();
    EXPECT_EQ(env.age_ms(env.enqueued_at_ms + 3600000), 3600000u);
    EXPECT_EQ(env.next_attempt().deferred(5).age_ms(env.enqueued_at_ms + 42), 42u);
    EXPECT_EQ(env.age_ms(env.enqueued_at_ms - 1), 0u);
}

}  // namespace
}  // namespace queuey

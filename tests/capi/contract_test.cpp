// The header's general rules: NULL handling, error objects, status names.
#include "capi_test.hpp"

#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <vector>

namespace {

using qyt::Envelope;

struct NullCase {
    const char *call;
    const char *parameter;  // the NULL parameter, which the message must name
    std::function<qy_status(qy_error **)> run;
};

TEST(Null, EveryFallibleCallRejectsANullHandleOrOutPointer) {
    const Envelope env = qyt::decode_seed();
    ASSERT_TRUE(env);
    const qy_envelope *e = env.get();
    qy_envelope *env_out = nullptr;
    qy_properties *props_out = nullptr;
    char *bytes_out = nullptr;
    size_t len = 0;
    const std::string seed_body = qyt::encode(e);
    const std::vector<NullCase> cases = {
        {"new", "job_type",
         [&](qy_error **err) { return qy_envelope_new(nullptr, "q", "1", 1, &env_out, err); }},
        {"new", "queue",
         [&](qy_error **err) { return qy_envelope_new("t", nullptr, "1", 1, &env_out, err); }},
        {"new", "payload",
         [&](qy_error **err) { return qy_envelope_new("t", "q", nullptr, 1, &env_out, err); }},
        {"new", "out",
         [&](qy_error **err) { return qy_envelope_new("t", "q", "1", 1, nullptr, err); }},
        {"from_bytes", "data",
         [&](qy_error **err) { return qy_envelope_from_bytes(nullptr, 2, &env_out, err); }},
        {"from_bytes", "out",
         [&](qy_error **err) {
             return qy_envelope_from_bytes(seed_body.data(), seed_body.size(), nullptr, err);
         }},
        {"to_bytes", "env",
         [&](qy_error **err) { return qy_envelope_to_bytes(nullptr, &bytes_out, &len, err); }},
        {"to_bytes", "out",
         [&](qy_error **err) { return qy_envelope_to_bytes(e, nullptr, &len, err); }},
        {"to_bytes", "out_len",
         [&](qy_error **err) { return qy_envelope_to_bytes(e, &bytes_out, nullptr, err); }},
        {"next_attempt", "env",
         [&](qy_error **err) { return qy_envelope_next_attempt(nullptr, &env_out, err); }},
        {"next_attempt", "out",
         [&](qy_error **err) { return qy_envelope_next_attempt(e, nullptr, err); }},
        {"deferred", "env",
         [&](qy_error **err) { return qy_envelope_deferred(nullptr, 1, &env_out, err); }},
        {"deferred", "out",
         [&](qy_error **err) { return qy_envelope_deferred(e, 1, nullptr, err); }},
        {"set_correlation_id", "env",
         [&](qy_error **err) { return qy_envelope_set_correlation_id(nullptr, "c", err); }},
        {"properties", "env",
         [&](qy_error **err) { return qy_envelope_properties(nullptr, &props_out, err); }},
        {"properties", "out",
         [&](qy_error **err) { return qy_envelope_properties(e, nullptr, err); }},
        {"dead_letter_properties", "env",
         [&](qy_error **err) {
             return qy_envelope_dead_letter_properties(nullptr, "r", &props_out, err);
         }},
        {"dead_letter_properties", "reason",
         [&](qy_error **err) {
             return qy_envelope_dead_letter_properties(e, nullptr, &props_out, err);
         }},
        {"dead_letter_properties", "out",
         [&](qy_error **err) { return qy_envelope_dead_letter_properties(e, "r", nullptr, err); }},
    };
    for (const NullCase &c : cases) {
        SCOPED_TRACE(std::string(c.call) + ", NULL " + c.parameter);
        qy_error *err = nullptr;
        const qy_status status = c.run(&err);
        EXPECT_TRUE(qyt::failed_with(status, err, QY_ERR_INVALID_ARGUMENT, c.parameter, nullptr));
        qy_error_free(err);
        EXPECT_EQ(c.run(nullptr), QY_ERR_INVALID_ARGUMENT) << "with err NULL";
        EXPECT_EQ(env_out, nullptr);
        EXPECT_EQ(props_out, nullptr);
        EXPECT_EQ(bytes_out, nullptr);
    }
}

// The NULL out pointer is the caller's mistake, whatever the other inputs hold.
TEST(Null, OutPointerIsCheckedBeforeTheInputs) {
    qy_error *err = nullptr;
    qy_status status = qy_envelope_from_bytes("{}", 2, nullptr, &err);
    EXPECT_TRUE(qyt::failed_with(status, err, QY_ERR_INVALID_ARGUMENT, "out", nullptr));
    qy_error_free(err);
    status = qy_envelope_new("t", "q", "{", 1, nullptr, &err);
    EXPECT_TRUE(qyt::failed_with(status, err, QY_ERR_INVALID_ARGUMENT, "out", nullptr));
    qy_error_free(err);
}

TEST(Null, GettersGiveNullOrZero) {
    size_t len = 99;
    EXPECT_EQ(qy_envelope_job_id(nullptr), nullptr);
    EXPECT_EQ(qy_envelope_job_type(nullptr), nullptr);
    EXPECT_EQ(qy_envelope_queue(nullptr), nullptr);
    EXPECT_EQ(qy_envelope_attempt(nullptr), 0u);
    EXPECT_EQ(qy_envelope_enqueued_at_ms(nullptr), 0u);
    EXPECT_EQ(qy_envelope_deferrals(nullptr), 0u);
    EXPECT_EQ(qy_envelope_priority(nullptr), 0u);
    EXPECT_EQ(qy_envelope_payload(nullptr, &len), nullptr);
    EXPECT_EQ(len, 0u);
    EXPECT_EQ(qy_envelope_payload(nullptr, nullptr), nullptr);
    EXPECT_EQ(qy_envelope_correlation_id(nullptr), nullptr);
    EXPECT_EQ(qy_envelope_age_ms(nullptr), 0u);

    EXPECT_EQ(qy_properties_content_type(nullptr), nullptr);
    EXPECT_EQ(qy_properties_delivery_mode(nullptr), 0u);
    EXPECT_EQ(qy_properties_message_id(nullptr), nullptr);
    EXPECT_EQ(qy_properties_type(nullptr), nullptr);
    EXPECT_EQ(qy_properties_priority(nullptr), 0u);
    EXPECT_EQ(qy_properties_header_count(nullptr), 0u);
    EXPECT_EQ(qy_properties_header_name(nullptr, 0), nullptr);
    EXPECT_EQ(qy_properties_header_kind(nullptr, 0), QY_FIELD_NONE);
    EXPECT_EQ(qy_properties_header_u32(nullptr, 0), 0u);
    EXPECT_EQ(qy_properties_header_string(nullptr, 0), nullptr);

    EXPECT_EQ(qy_error_status(nullptr), QY_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qy_error_message(nullptr), "");
    EXPECT_EQ(qy_error_field(nullptr), nullptr);
}

TEST(Null, FreeFunctionsAcceptNull) {
    qy_envelope_free(nullptr);
    qy_properties_free(nullptr);
    qy_error_free(nullptr);
    qy_string_free(nullptr);
    SUCCEED();
}

TEST(Errors, StatusIsReturnedWhenErrIsNull) {
    qy_envelope *env = nullptr;
    EXPECT_EQ(qy_envelope_next_attempt(nullptr, &env, nullptr), QY_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(qy_envelope_from_bytes("nope", 4, &env, nullptr), QY_ERR_BAD_JSON);
    EXPECT_EQ(qy_envelope_from_bytes("[]", 2, &env, nullptr), QY_ERR_BAD_ENVELOPE);
    EXPECT_EQ(qy_envelope_new("t", "q", "{", 1, &env, nullptr), QY_ERR_BAD_JSON);
    EXPECT_EQ(qy_envelope_new("", "q", "{}", 2, &env, nullptr), QY_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(env, nullptr);
}

TEST(Errors, ErrIsSetToNullOnSuccess) {
    int not_an_error = 0;
    qy_error *err = reinterpret_cast<qy_error *>(&not_an_error);  // never freed or read
    qy_envelope *raw = nullptr;
    EXPECT_EQ(qy_envelope_new("t", "q", "{}", 2, &raw, &err), QY_OK);
    const Envelope env(raw);
    EXPECT_EQ(err, nullptr);

    err = reinterpret_cast<qy_error *>(&not_an_error);
    char *bytes = nullptr;
    size_t len = 0;
    EXPECT_EQ(qy_envelope_to_bytes(env.get(), &bytes, &len, &err), QY_OK);
    qy_string_free(bytes);
    EXPECT_EQ(err, nullptr);
}

TEST(Errors, CarryStatusMessageAndField) {
    qy_envelope *env = nullptr;
    qy_error *err = nullptr;
    const char body[] = R"({"job_id":"0d8f9c22-5e3b-4f1a-9c77-2b1a6f0e3d44","job_type":"t",)"
                        R"("queue":"q","attempt":-1,"enqueued_at_ms":1,"payload":1})";
    EXPECT_EQ(qy_envelope_from_bytes(body, sizeof body - 1, &env, &err), QY_ERR_BAD_ENVELOPE);
    const qyt::Error owned(err);
    EXPECT_EQ(qy_error_status(err), QY_ERR_BAD_ENVELOPE);
    EXPECT_STREQ(qy_error_field(err), "attempt");
    EXPECT_NE(std::string(qy_error_message(err)).find("attempt"), std::string::npos);
}

// Every QY_OK / QY_ERR_* enumerator of queuey.h, read from the header itself so that a
// status added there is covered without touching this test.
std::map<int, std::string> statuses_in_header() {
    std::ifstream header(qyt::public_header);
    std::map<int, std::string> statuses;
    std::string line;
    while (std::getline(header, line)) {  // enumerator lines: "    QY_ERR_BAD_JSON = -10,"
        std::istringstream words(line);
        std::string name, equals;
        int value = 0;
        if (words >> name >> equals >> value && equals == "=" &&
            (name == "QY_OK" || name.starts_with("QY_ERR_"))) {
            EXPECT_TRUE(statuses.emplace(value, name).second) << "duplicate value " << value;
        }
    }
    return statuses;
}

TEST(StatusNames, SpelledAsInTheHeader) {
    const auto statuses = statuses_in_header();
    ASSERT_GT(statuses.size(), 5u) << "cannot read the statuses of " << qyt::public_header;
    EXPECT_EQ(statuses.at(0), "QY_OK");
    EXPECT_EQ(statuses.at(QY_ERR_BAD_JSON), "QY_ERR_BAD_JSON");
    for (const auto &[value, name] : statuses)
        EXPECT_STREQ(qy_status_name(static_cast<qy_status>(value)), name.c_str()) << value;
}

TEST(StatusNames, UnknownValues) {
    // Every value between the lowest status and 1 is inside the enum's range, so the
    // conversion is defined in C++.
    const auto statuses = statuses_in_header();
    ASSERT_FALSE(statuses.empty());
    for (int value = statuses.begin()->first; value <= 1; ++value) {
        if (statuses.count(value) != 0) continue;
        EXPECT_STREQ(qy_status_name(static_cast<qy_status>(value)), "QY_UNKNOWN_STATUS") << value;
    }
}

}  // namespace

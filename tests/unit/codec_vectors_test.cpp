// The golden vectors through the C++ core: decode, encode, transitions, malformed input.
#include "envelope_codec.hpp"
#include "error.hpp"
#include "status.hpp"
#include "vectors.hpp"

#include <gtest/gtest.h>

namespace queuey {
namespace {

using test::read_body;
using test::read_tsv;

TEST(CodecVectors, ValidBodiesReencodeToTheirCanonicalBytes) {
    for (const auto &row : read_tsv("valid.tsv")) {
        SCOPED_TRACE(row.at(0));
        const Envelope env = decode_envelope(read_body(row.at(1)));
        EXPECT_EQ(encode_envelope(env), read_body(row.at(2)));
        // The canonical form is a fixed point.
        EXPECT_EQ(decode_envelope(read_body(row.at(2))), env);
    }
}

TEST(CodecVectors, TransitionsGiveTheExpectedBodies) {
    for (const auto &row : read_tsv("transitions.tsv")) {
        SCOPED_TRACE(row.at(0));
        const Envelope env = decode_envelope(read_body(row.at(1)));
        const std::string &transition = row.at(2);
        Envelope next;
        if (transition == "next_attempt") {
            next = env.next_attempt();
        } else {
            ASSERT_EQ(transition.rfind("deferred:", 0), 0u) << transition;
            next = env.deferred(static_cast<std::uint8_t>(std::stoul(transition.substr(9))));
        }
        EXPECT_EQ(encode_envelope(next), read_body(row.at(3)));
    }
}

TEST(CodecVectors, MalformedBodiesFailWithTheirStatusAndField) {
    for (const auto &row : read_tsv("malformed.tsv")) {
        SCOPED_TRACE(row.at(0));
        const std::string body = read_body(row.at(1));
        try {
            decode_envelope(body);
            ADD_FAILURE() << "decoded without an error";
        } catch (const Error &e) {
            EXPECT_STREQ(status_name(e.status()), row.at(2).c_str()) << e.what();
            EXPECT_EQ(e.field(), row.at(3)) << e.what();
            EXPECT_EQ(std::string(e.what()).rfind(row.at(3) + ": ", 0), 0u) << e.what();
        }
    }
}

// The envelope a decoder makes of body, re-encoded, or its error.
std::string outcome(Envelope (*decode)(std::string_view), const std::string &body) {
    try {
        return encode_envelope(decode(body));
    } catch (const Error &e) {
        return std::string(status_name(e.status())) + " " + e.what();
    }
}

// decode_envelope reads compact bodies on a fast path; RapidJSON's reader alone must give
// the same envelope or the same error for every vector.
TEST(CodecVectors, TheFastPathAgreesWithTheReader) {
    for (const char *file : {"valid.tsv", "malformed.tsv"})
        for (const auto &row : read_tsv(file)) {
            SCOPED_TRACE(row.at(0));
            const std::string body = read_body(row.at(1));
            EXPECT_EQ(outcome(decode_envelope, body), outcome(decode_envelope_by_reader, body));
        }
}

// The fast path compares each key in place with the one encoders write next. Keys in
// another order, repeated, only beginning like the expected one, or cut short must come
// out as the reader has them.
TEST(CodecVectors, TheFastPathAgreesWithTheReaderOnKeysInAnyOrder) {
    const std::string id = R"("job_id":"0D8F9C22-5e3b-4f1a-9c77-2b1a6f0e3d44")";
    const std::string rest = R"("queue":"q","attempt":1,"enqueued_at_ms":5,"payload":null})";
    const std::string bodies[] = {
        R"({"job_type":"t",)" + id + "," + rest,
        "{" + id + R"(,"job_type_x":1,"job_type":"t",)" + rest,
        "{" + id + R"(,"job_typ":"u","job_type":"t",)" + rest,
        "{" + id + "," + id + R"(,"job_type":"t",)" + rest,
        "{" + id + R"(,"job_type":"t","job_type":"t",)" + rest,
        "{" + id + R"(,"job_type":"t",)" + rest.substr(0, rest.size() - 1) + R"(,"queue":"r"})",
        "{" + id + R"(,"job_type":"t",)" + rest.substr(0, rest.size() - 1) + R"(,"extra":[]})",
        "{" + id + R"(,"job_type")",
        "{" + id + R"(,"job_type":)",
        "{" + id + R"(,"job_type":"t")",
    };
    for (const std::string &body : bodies) {
        SCOPED_TRACE(body);
        EXPECT_EQ(outcome(decode_envelope, body), outcome(decode_envelope_by_reader, body));
    }
    EXPECT_EQ(outcome(decode_envelope, bodies[0]),
              R"({"job_id":"0d8f9c22-5e3b-4f1a-9c77-2b1a6f0e3d44","job_type":"t","queue":"q",)"
              R"("attempt":1,"enqueued_at_ms":5,"deferrals":0,"priority":0,"payload":null})");
    EXPECT_EQ(outcome(decode_envelope, bodies[3]),
              "QY_ERR_BAD_ENVELOPE job_id: appears more than once");
}

}  // namespace
}  // namespace queuey

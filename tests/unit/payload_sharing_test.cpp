// decode_envelope_sharing: a compact payload stays in the body it came in, terminated in
// place, and the body is left as it came whenever the decode does not keep it.
#include "envelope_codec.hpp"
#include "error.hpp"
#include "payload.hpp"
#include "vectors.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

namespace queuey {
namespace {

std::shared_ptr<char> buffer_of(const std::string &bytes) {
    std::shared_ptr<char> buffer(new char[bytes.size()], std::default_delete<char[]>());
    std::memcpy(buffer.get(), bytes.data(), bytes.size());
    return buffer;
}

TEST(PayloadSharing, KeepsACompactPayloadInItsBody) {
    const std::string seed = test::read_body("seed.json");
    std::shared_ptr<char> body = buffer_of(seed);
    const Envelope shared = decode_envelope_sharing(body, seed.size());
    EXPECT_EQ(shared, decode_envelope(seed));
    // The payload's text is the body's own bytes, a NUL where the closing brace was.
    const std::size_t at = seed.find(R"({"to")");
    EXPECT_EQ(shared.payload.c_str(), body.get() + at);
    EXPECT_EQ(std::strlen(shared.payload.c_str()), shared.payload.size());
    EXPECT_EQ(body.get()[seed.size() - 1], '\0');
    // The envelope keeps the body alive; a copy (a retry's successor) shares it.
    const std::weak_ptr<char> watched = body;
    body.reset();
    Envelope next = shared.next_attempt();
    EXPECT_FALSE(watched.expired());
    EXPECT_EQ(next.payload.c_str(), shared.payload.c_str());
    // Written to, a payload gets a string of its own.
    next.payload.writable() += " ";
    EXPECT_EQ(next.payload, R"({"to":"a@b.c","body":"hi"} )");
    EXPECT_NE(next.payload.c_str(), shared.payload.c_str());
    EXPECT_EQ(shared.payload, R"({"to":"a@b.c","body":"hi"})");
}

// A long text is shared by the envelope's copies (and a publish, publish_batch.hpp) from
// the start, however it came; a short one is copied with them.
TEST(PayloadSharing, ALongTextIsSharedByCopiesUntilOneIsWrittenTo) {
    const std::string long_text = '"' + std::string(payload_shared_from - 2, 'x') + '"';
    const Payload given(long_text);
    ASSERT_TRUE(given.is_shared());
    Payload copy = given;
    EXPECT_EQ(copy.c_str(), given.c_str());
    EXPECT_EQ(copy.c_str()[copy.size()], '\0');
    copy.writable().back() = '!';
    EXPECT_FALSE(copy.is_shared());
    EXPECT_EQ(given, long_text);
    EXPECT_NE(copy, long_text);
    copy.share_if_long();  // written: shared again
    EXPECT_TRUE(copy.is_shared());
    EXPECT_EQ(copy.view().back(), '!');

    const Payload short_one(long_text.substr(1, payload_shared_from - 3));
    EXPECT_FALSE(short_one.is_shared());
    // Decoded by either reader, a long payload comes shared.
    const std::string body = encode_envelope(Envelope::create("t", "q", long_text));
    EXPECT_TRUE(decode_envelope(body).payload.is_shared());
    EXPECT_TRUE(decode_envelope_by_reader(body).payload.is_shared());
    EXPECT_EQ(decode_envelope_by_reader(body).payload, long_text);
}

TEST(PayloadSharing, LeavesTheBodyAsItCameWhenItKeepsNothing) {
    // Not in the compact form: RapidJSON's reader decodes a payload of its own.
    const std::string pretty = test::read_body("seed_pretty.json");
    std::shared_ptr<char> body = buffer_of(pretty);
    const Envelope decoded = decode_envelope_sharing(body, pretty.size());
    EXPECT_EQ(decoded, decode_envelope(pretty));
    EXPECT_EQ(std::string(body.get(), pretty.size()), pretty);
    EXPECT_EQ(body.use_count(), 1);
    // Refused after the payload was read: the body stays whole for the dead-letter copy.
    const std::string missing = test::read_body("missing_attempt.bin");
    body = buffer_of(missing);
    EXPECT_THROW(decode_envelope_sharing(body, missing.size()), Error);
    EXPECT_EQ(std::string(body.get(), missing.size()), missing);
    EXPECT_EQ(body.use_count(), 1);
}

}  // namespace
}  // namespace queuey

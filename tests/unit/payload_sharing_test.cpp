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

// Helpers for the GoogleTest C API tests: owning wrappers for the C handles, the seed
// envelope and error expectations. Only the public C API is used.
#pragma once

#include "vectors.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

namespace qyt {

template <auto Free>
struct Deleter {
    template <typename T>
    void operator()(T *handle) const {
        Free(handle);
    }
};

using Envelope = std::unique_ptr<qy_envelope, Deleter<qy_envelope_free>>;
using Properties = std::unique_ptr<qy_properties, Deleter<qy_properties_free>>;
using Error = std::unique_ptr<qy_error, Deleter<qy_error_free>>;
using String = std::unique_ptr<char, Deleter<qy_string_free>>;

inline constexpr const char *vectors_dir = QUEUEY_VECTORS_DIR;
inline constexpr const char *public_header = QUEUEY_HEADER;

// The seed vector (bodies/seed.json) as the getters should see it.
namespace seed {
inline constexpr const char *job_id = "0d8f9c22-5e3b-4f1a-9c77-2b1a6f0e3d44";
inline constexpr const char *job_type = "myapp::jobs::SendEmail";
inline constexpr const char *queue = "myapp.emails";
inline constexpr std::uint32_t attempt = 2;
inline constexpr std::uint64_t enqueued_at_ms = 1757846400123;
inline constexpr const char *payload = R"({"to":"a@b.c","body":"hi"})";
}  // namespace seed

inline std::uint64_t now_ms() {
    const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch).count());
}

// Decodes bodies/name; an empty pointer (and a test failure) if it does not decode.
inline Envelope decode_body(const char *name) {
    qy_envelope *env = nullptr;
    char why[QYT_WHY_SIZE];
    if (!qyt_decode_body(vectors_dir, name, &env, why)) ADD_FAILURE() << why;
    return Envelope(env);
}

inline Envelope decode_seed() { return decode_body("seed.json"); }

// The body of env, or "" (and a test failure) if it cannot be encoded.
inline std::string encode(const qy_envelope *env) {
    char *raw = nullptr;
    size_t len = 0;
    const qy_status status = qy_envelope_to_bytes(env, &raw, &len, nullptr);
    String body(raw);
    if (status != QY_OK || body == nullptr) {
        ADD_FAILURE() << "qy_envelope_to_bytes: " << qy_status_name(status);
        return {};
    }
    return {body.get(), len};
}

// Holds when the call failed with `want`, err carries the same status, its message
// contains `named`, and (unless field is nullptr) qy_error_field() is `field`.
inline testing::AssertionResult failed_with(qy_status got, const qy_error *err, qy_status want,
                                            const char *named, const char *field) {
    if (got != want)
        return testing::AssertionFailure()
               << "status " << qy_status_name(got) << ", expected " << qy_status_name(want);
    if (err == nullptr) return testing::AssertionFailure() << "no error object";
    if (qy_error_status(err) != want)
        return testing::AssertionFailure()
               << "error status " << qy_status_name(qy_error_status(err));
    const std::string message = qy_error_message(err);
    if (message.find(named) == std::string::npos)
        return testing::AssertionFailure()
               << "message \"" << message << "\" does not name " << named;
    const char *got_field = qy_error_field(err);
    if (field != nullptr && (got_field == nullptr || std::strcmp(got_field, field) != 0))
        return testing::AssertionFailure()
               << "field " << (got_field ? got_field : "NULL") << ", expected " << field;
    return testing::AssertionSuccess();
}

}  // namespace qyt

// libFuzzer target: any bytes as a message body. A body that decodes must survive a round
// trip: its encoding decodes to the same envelope and encodes to the same bytes again.
// queuey::Error is the only way decoding may refuse input; anything else is a bug. The
// compact form's fast path must agree with RapidJSON's reader: the same envelope, or the
// same error; so must a decode that shares the body, which leaves the body as it came
// unless its payload stays in it, and one that steps over the body's plain runs.
#include "envelope_codec.hpp"
#include "error.hpp"
#include "plain_runs.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace {

// The envelope, or the error's status and message.
struct Outcome {
    std::optional<queuey::Envelope> envelope;
    std::optional<qy_status> status;
    std::string message;
    bool operator==(const Outcome &) const = default;
};

template <typename Decode>
Outcome outcome_of(Decode decode, std::string_view body) {
    try {
        return {decode(body), std::nullopt, ""};
    } catch (const queuey::Error &e) {
        return {std::nullopt, e.status(), e.what()};
    } catch (...) {
        __builtin_trap();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string_view body(reinterpret_cast<const char *>(data), size);
    const Outcome first = outcome_of(queuey::decode_envelope, body);
    if (!(first == outcome_of(queuey::decode_envelope_by_reader, body))) __builtin_trap();
    std::shared_ptr<char> shared(new char[size], std::default_delete<char[]>());
    if (size > 0) std::memcpy(shared.get(), data, size);
    const Outcome sharing = outcome_of(
        [&](std::string_view) { return queuey::decode_envelope_sharing(shared, size); }, body);
    if (!(sharing == first)) __builtin_trap();
    const std::less<const char *> before;  // a total order, also across buffers
    const bool payload_kept = sharing.envelope &&
                              !before(sharing.envelope->payload.c_str(), shared.get()) &&
                              before(sharing.envelope->payload.c_str(), shared.get() + size);
    if (!payload_kept && size > 0 && std::memcmp(shared.get(), data, size) != 0) __builtin_trap();
    // Copied in two pieces noting its plain runs (plain_runs.hpp), which the decode then
    // steps over: the same outcome again.
    std::shared_ptr<char> copied(new char[size], std::default_delete<char[]>());
    queuey::PlainRuns runs;
    const std::size_t cut = size / 2 + (size > 0 ? data[0] % (size / 2 + 1) : 0);
    runs.copy(copied.get(), 0, body.data(), std::min(cut, size));
    if (cut < size) runs.copy(copied.get(), cut, body.data() + cut, size - cut);
    if (!(outcome_of(
              [&](std::string_view) { return queuey::decode_envelope_sharing(copied, size, runs); },
              body) == first))
        __builtin_trap();
    if (!first.envelope) return 0;  // refused, as it should be for malformed input
    try {
        // Our own output must always be accepted, and be canonical.
        const std::string first_body = queuey::encode_envelope(*first.envelope);
        const queuey::Envelope second = queuey::decode_envelope(first_body);
        if (!(second == *first.envelope) || queuey::encode_envelope(second) != first_body)
            __builtin_trap();
    } catch (...) {
        __builtin_trap();
    }
    return 0;
}

// libFuzzer target: any bytes as a message body. A body that decodes must survive a round
// trip: its encoding decodes to the same envelope and encodes to the same bytes again.
// queuey::Error is the only way decoding may refuse input; anything else is a bug.
#include "envelope_codec.hpp"
#include "error.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string_view body(reinterpret_cast<const char *>(data), size);
    queuey::Envelope first;
    std::string first_body;
    try {
        first = queuey::decode_envelope(body);
        first_body = queuey::encode_envelope(first);
    } catch (const queuey::Error &) {
        return 0;  // refused, as it should be for malformed input
    } catch (...) {
        __builtin_trap();
    }
    try {
        // Our own output must always be accepted, and be canonical.
        const queuey::Envelope second = queuey::decode_envelope(first_body);
        if (!(second == first) || queuey::encode_envelope(second) != first_body) __builtin_trap();
    } catch (...) {
        __builtin_trap();
    }
    return 0;
}

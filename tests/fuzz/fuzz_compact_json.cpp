// libFuzzer target: any bytes as a JSON payload. Compact output must be a fixed point:
// compacting it again accepts it and gives the same bytes. queuey::Error is the only way
// compact_json_value may refuse input; anything else is a bug.
#include "envelope_codec.hpp"
#include "error.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string_view json(reinterpret_cast<const char *>(data), size);
    std::string compact;
    try {
        compact = queuey::compact_json_value(json, "payload");
    } catch (const queuey::Error &) {
        return 0;
    } catch (...) {
        __builtin_trap();
    }
    try {
        if (queuey::compact_json_value(compact, "payload") != compact) __builtin_trap();
    } catch (...) {
        __builtin_trap();
    }
    return 0;
}

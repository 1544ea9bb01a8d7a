// libFuzzer target: any bytes as a JSON payload. Compact output must be a fixed point:
// compacting it again accepts it and gives the same bytes. queuey::Error is the only way
// compact_json_value may refuse input; anything else is a bug. The compact form's fast
// path must agree with RapidJSON's reader: the same bytes, or the same error.
#include "envelope_codec.hpp"
#include "error.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

// The compact text, or the error's message.
template <typename Compact>
std::string outcome_of(Compact compact, std::string_view json) {
    try {
        return "ok: " + compact(json, "payload");
    } catch (const queuey::Error &e) {
        return std::string("error: ") + e.what();
    } catch (...) {
        __builtin_trap();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string_view json(reinterpret_cast<const char *>(data), size);
    const std::string first = outcome_of(queuey::compact_json_value, json);
    if (first != outcome_of(queuey::compact_json_value_by_reader, json)) __builtin_trap();
    if (first.rfind("ok: ", 0) != 0) return 0;
    const std::string compact = first.substr(4);
    if (outcome_of(queuey::compact_json_value, compact) != first) __builtin_trap();
    return 0;
}

// libFuzzer target: any bytes as a fire record's time (x-queuey-fire-time). Refused is
// nullopt; an accepted time lies in the range schedules work in and spells back exactly.
#include "schedule/fire_id.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    const auto time = queuey::parse_rfc3339_utc(text);
    if (time && (*time < queuey::first_fire_time || *time >= queuey::fire_times_end ||
                 queuey::rfc3339_utc(*time) != text))
        __builtin_trap();
    return 0;
}

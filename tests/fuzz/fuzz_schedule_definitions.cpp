// libFuzzer target: any bytes as a leader's definitions message (what a scheduler reads
// from queuey.schedule.definitions). Refused is an Error; what is read writes back to a
// message that reads the same.
#include "error.hpp"
#include "schedule/schedule_definitions.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string_view body(reinterpret_cast<const char *>(data), size);
    queuey::PublishedDefinitions read;
    try {
        read = queuey::decode_definitions(body);
    } catch (const queuey::Error &) {
        return 0;
    }
    std::vector<queuey::Schedule> schedules;
    for (const auto &definition : read.schedules) schedules.emplace_back(definition);
    const std::string written = queuey::encode_definitions(read.leader, schedules);
    const queuey::PublishedDefinitions again = queuey::decode_definitions(written);
    if (!(again.leader == read.leader) || again.schedules.size() != read.schedules.size() ||
        queuey::encode_definitions(again.leader, schedules) != written)
        __builtin_trap();
    return 0;
}

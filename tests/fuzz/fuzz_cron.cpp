// libFuzzer target: any bytes as a cron expression. queuey::Error is the only way parse
// may refuse input. An accepted expression's next match must match and lie ahead, and its
// next fire in a zone with DST changes must lie strictly after the time asked about.
#include "error.hpp"
#include "schedule/fire_times.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    using namespace std::chrono;
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    std::optional<queuey::CronExpression> cron;
    try {
        cron = queuey::CronExpression::parse(text);
    } catch (const queuey::Error &) {
        return 0;
    } catch (...) {
        __builtin_trap();
    }
    // 2027-10-31T00:59:00Z: a minute before Berlin's clocks go back.
    const queuey::FireTime from{seconds{1824944340}};
    if (const auto match = cron->next_match(from, from + years{400});
        match && (!cron->matches(*match) || *match < from))
        __builtin_trap();
    const auto times = queuey::FireTimes::cron(*cron, "Europe/Berlin");
    if (const auto fire = times.next_after(from); fire && *fire <= from) __builtin_trap();
    return 0;
}

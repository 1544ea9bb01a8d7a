#include "duration.hpp"

#include "usage_error.hpp"

#include <array>
#include <cctype>
#include <cstdint>
#include <limits>
#include <string_view>

namespace queuey_cli {

namespace {

struct Unit {
    std::string_view name;   // on the command line
    std::string_view shown;  // in describe_duration
    std::int64_t ms;
};

// Longest names first: "ms" must not be read as "m" followed by "s".
constexpr std::array<Unit, 5> units{{{"ms", "ms", 1},
                                     {"s", "s", 1000},
                                     {"m", "min", 60'000},
                                     {"h", "h", 3'600'000},
                                     {"d", "d", 86'400'000}}};

[[noreturn]] void bad(const std::string &text, const std::string &why) {
    throw UsageError("bad duration '" + text + "': " + why +
                     " (write a number and a unit, ms, s, m, h or d, one or more times: 30s, "
                     "1h30m)");
}

}  // namespace

std::chrono::milliseconds parse_duration(const std::string &text) {
    if (text.empty()) bad(text, "it is empty");
    constexpr std::int64_t limit = std::numeric_limits<std::int64_t>::max();
    std::int64_t total = 0;
    std::size_t at = 0;
    while (at < text.size()) {
        std::int64_t number = 0;
        const std::size_t digits_from = at;
        for (; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); ++at) {
            const int digit = text[at] - '0';
            if (number > (limit - digit) / 10) bad(text, "it is too long");
            number = number * 10 + digit;
        }
        if (at == digits_from) bad(text, "a unit without a number before it");
        const std::string_view rest(text.data() + at, text.size() - at);
        const Unit *unit = nullptr;
        for (const Unit &candidate : units)
            if (rest.substr(0, candidate.name.size()) == candidate.name) {
                unit = &candidate;
                break;
            }
        if (unit == nullptr) bad(text, "a number without a unit after it");
        at += unit->name.size();
        if (number > (limit - total) / unit->ms) bad(text, "it is too long");
        total += number * unit->ms;
    }
    return std::chrono::milliseconds(total);
}

std::string describe_duration(std::chrono::milliseconds duration) {
    std::int64_t left = duration.count();
    if (left <= 0) return "0 ms";
    std::string out;
    for (auto unit = units.rbegin(); unit != units.rend(); ++unit) {
        if (left < unit->ms) continue;
        if (!out.empty()) out += ' ';
        out += std::to_string(left / unit->ms) + ' ' + std::string(unit->shown);
        left %= unit->ms;
    }
    return out;
}

}  // namespace queuey_cli

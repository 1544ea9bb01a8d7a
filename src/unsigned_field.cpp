#include "unsigned_field.hpp"

#include <algorithm>
#include <charconv>

namespace queuey {

std::variant<std::uint64_t, std::string> parse_unsigned_field(std::string_view json_number,
                                                              unsigned bits) {
    // The message is built only on failure: every decode parses four of these fields.
    const auto problem = [&](const char *reason) {
        // Long numbers are shortened; the byte offset is not needed to find them.
        const std::string shown = json_number.size() <= 40
                                      ? std::string(json_number)
                                      : std::string(json_number.substr(0, 37)) + "...";
        return shown + reason + "; expected an unsigned " + std::to_string(bits) + "-bit integer";
    };
    const std::uint64_t max = bits >= 64 ? UINT64_MAX : (std::uint64_t{1} << bits) - 1;
    // The usual case, up to 19 digits (no overflow): read here, as from_chars would.
    if (!json_number.empty() && json_number.size() <= 19) {
        std::uint64_t value = 0;
        bool all_digits = true;
        for (const char c : json_number) {
            all_digits = all_digits && c >= '0' && c <= '9';
            value = value * 10 + static_cast<unsigned char>(c - '0');
        }
        if (all_digits && value > max) return problem(" is out of range");
        if (all_digits) return value;
    }
    if (!json_number.empty() && json_number.front() == '-') return problem(" is negative");
    // (find_first_of would search the three characters once per digit.)
    if (std::any_of(json_number.begin(), json_number.end(),
                    [](char c) { return c == '.' || c == 'e' || c == 'E'; }))
        return problem(" is not an integer");
    std::uint64_t value = 0;
    const auto [end, ec] =
        std::from_chars(json_number.data(), json_number.data() + json_number.size(), value);
    if (ec == std::errc::result_out_of_range || value > max) return problem(" is out of range");
    if (ec != std::errc() || end != json_number.data() + json_number.size())
        return problem(" is not a number");
    return value;
}

}  // namespace queuey

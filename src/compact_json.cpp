#include "compact_json.hpp"

#include "json_plain_bytes.hpp"
#include "utf8.hpp"

#include <cstdint>
#include <cstring>

namespace queuey {

namespace {

// Bounds of what is accepted here without further checks: RapidJSON 1.1.0 refuses an
// integer part of 309 digits and more, and a positive exponent above 308 (give or take
// the fraction), as too big for a double.
constexpr long max_integer_digits = 300;
constexpr int max_positive_exponent = 308;
constexpr int max_depth = 64;  // one bit each in an std::uint64_t

bool is_digit(char c) { return c >= '0' && c <= '9'; }

const char *digits_end(const char *at, const char *end) {
    while (at != end && is_digit(*at)) ++at;
    return at;
}

// One past the escape sequence at `at` (a backslash) if it is one the encoder writes:
// \" \\ \b \f \n \r \t, or \u00xx in lowercase for the other characters below 0x20.
const char *escape_end(const char *at, const char *end) {
    if (end - at < 2) return nullptr;
    switch (at[1]) {
        case '"':
        case '\\':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't': return at + 2;
        case 'u': break;
        default: return nullptr;
    }
    if (end - at < 6 || at[2] != '0' || at[3] != '0' || (at[4] != '0' && at[4] != '1'))
        return nullptr;
    const char low = at[5];
    const bool lowercase_hex = is_digit(low) || (low >= 'a' && low <= 'f');
    if (!lowercase_hex) return nullptr;
    const int code = (at[4] - '0') * 16 + (is_digit(low) ? low - '0' : low - 'a' + 10);
    const bool has_short_form =
        code == '\b' || code == '\f' || code == '\n' || code == '\r' || code == '\t';
    return has_short_form ? nullptr : at + 6;
}

// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, within the bounds above.
const char *number_end(const char *at, const char *end) {
    if (at != end && *at == '-') ++at;
    const char *integer_end = at != end && *at == '0' ? at + 1 : digits_end(at, end);
    if (integer_end == at || integer_end - at > max_integer_digits) return nullptr;
    at = integer_end;
    if (at != end && *at == '.') {
        const char *fraction_end = digits_end(at + 1, end);
        if (fraction_end == at + 1) return nullptr;
        at = fraction_end;
    }
    if (at == end || (*at != 'e' && *at != 'E')) return at;
    ++at;
    const bool negative_exponent = at != end && *at == '-';
    if (at != end && (*at == '-' || *at == '+')) ++at;
    if (at == end || !is_digit(*at)) return nullptr;
    if (negative_exponent) return digits_end(at, end);
    for (int exponent = 0; at != end && is_digit(*at); ++at) {
        exponent = exponent * 10 + (*at - '0');
        if (exponent > max_positive_exponent) return nullptr;
    }
    return at;
}

const char *literal_end(const char *at, const char *end, const char *literal) {
    const std::size_t length = std::strlen(literal);
    if (static_cast<std::size_t>(end - at) < length || std::memcmp(at, literal, length) != 0)
        return nullptr;
    return at + length;
}

// One past the string that starts at `at` (its opening quote); notes a byte of 0x80 or
// above in non_ascii. Steps over the runs known_plain knows without reading them.
const char *string_end(const char *at, const char *end, bool escapes_allowed, bool &non_ascii,
                       PlainRunSkipper *known_plain) {
    if (at == end || *at != '"') return nullptr;
    for (++at; at != end;) {
        const char *const unknown_end = known_plain ? known_plain->step(at, end) : end;
        at = skip_json_plain_bytes(at, unknown_end, non_ascii);
        if (at == unknown_end) {
            if (at == end) break;
            continue;  // at a known run
        }
        const auto byte = static_cast<unsigned char>(*at);
        if (byte == '"') return at + 1;
        if (byte != '\\' || !escapes_allowed) return nullptr;  // below 0x20: RapidJSON refuses it
        at = escape_end(at, end);
        if (at == nullptr) return nullptr;
    }
    return nullptr;
}

const char *scalar_end(const char *at, const char *end, bool &non_ascii,
                       PlainRunSkipper *known_plain) {
    switch (*at) {
        case '"': return string_end(at, end, true, non_ascii, known_plain);
        case 't': return literal_end(at, end, "true");
        case 'f': return literal_end(at, end, "false");
        case 'n': return literal_end(at, end, "null");
        default: return number_end(at, end);
    }
}

// One past the object member's key and colon that start at `at`.
const char *member_value_start(const char *at, const char *end, bool &non_ascii,
                               PlainRunSkipper *known_plain) {
    at = string_end(at, end, true, non_ascii, known_plain);
    if (at == nullptr || at == end || *at != ':') return nullptr;
    return at + 1;
}

}  // namespace

bool is_compact_json(std::string_view json) {
    const char *end = json.data() + json.size();
    bool non_ascii = false;
    return !json.empty() && compact_value_end(json.data(), end, non_ascii) == end &&
           (!non_ascii || is_valid_utf8(json));
}

const char *compact_string_end(const char *at, const char *end, bool escapes_allowed) {
    bool non_ascii = false;
    return string_end(at, end, escapes_allowed, non_ascii, nullptr);
}

const char *compact_value_end(const char *at, const char *end, bool &non_ascii,
                              PlainRunSkipper *known_plain) {
    // Bit i is set when the container at depth i + 1 (counted from the innermost) is an
    // object: enough to check every comma, colon and closing bracket without recursion.
    std::uint64_t object_levels = 0;
    int depth = 0;
    for (;;) {
        // `at` starts a value.
        if (at == end) return nullptr;
        const char first = *at;
        if (first == '{' || first == '[') {
            if (depth == max_depth) return nullptr;
            ++at;
            ++depth;
            object_levels = object_levels << 1 | (first == '{' ? 1u : 0u);
            const bool empty = at != end && *at == (first == '{' ? '}' : ']');
            if (!empty) {
                if (first == '{' &&
                    (at = member_value_start(at, end, non_ascii, known_plain)) == nullptr)
                    return nullptr;
                continue;
            }
        } else if ((at = scalar_end(at, end, non_ascii, known_plain)) == nullptr) {
            return nullptr;
        }
        // A value is complete (or a container was opened empty): close the containers
        // that end here, then step to the next value.
        for (;;) {
            if (depth == 0) return at;
            if (at == end) return nullptr;
            const bool in_object = object_levels & 1;
            if (*at == (in_object ? '}' : ']')) {
                ++at;
                --depth;
                object_levels >>= 1;
            } else if (*at == ',') {
                ++at;
                if (in_object &&
                    (at = member_value_start(at, end, non_ascii, known_plain)) == nullptr)
                    return nullptr;
                break;
            } else {
                return nullptr;
            }
        }
    }
}

}  // namespace queuey

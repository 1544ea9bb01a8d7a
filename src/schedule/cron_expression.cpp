#include "cron_expression.hpp"

#include "../error.hpp"

#include <array>
#include <charconv>
#include <vector>

namespace queuey {

namespace {

using namespace std::chrono;

struct FieldSpec {
    const char *name;
    unsigned min;
    unsigned max;
    std::array<const char *, 12> names;  // spellings of min, min+1, ...; empty where none
};

constexpr FieldSpec minute_field{"minute", 0, 59, {}};
constexpr FieldSpec hour_field{"hour", 0, 23, {}};
constexpr FieldSpec day_of_month_field{"day-of-month", 1, 31, {}};
constexpr FieldSpec month_field{
    "month",
    1,
    12,
    {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}};
// 7 is Sunday too, folded into 0 after parsing.
constexpr FieldSpec day_of_week_field{
    "day-of-week", 0, 7, {"sun", "mon", "tue", "wed", "thu", "fri", "sat"}};

struct Macro {
    const char *name;
    const char *fields;
};
constexpr std::array<Macro, 7> macros{{{"@yearly", "0 0 1 1 *"},
                                       {"@annually", "0 0 1 1 *"},
                                       {"@monthly", "0 0 1 * *"},
                                       {"@weekly", "0 0 * * 0"},
                                       {"@daily", "0 0 * * *"},
                                       {"@midnight", "0 0 * * *"},
                                       {"@hourly", "0 * * * *"}}};

[[noreturn]] void refuse(std::string_view text, const std::string &why) {
    throw Error(QY_ERR_INVALID_ARGUMENT, "cron", "\"" + std::string(text) + "\": " + why);
}

std::string lowercase(std::string_view text) {
    std::string out(text);
    for (char &c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

std::vector<std::string_view> split(std::string_view text, std::string_view separators) {
    std::vector<std::string_view> parts;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t end = text.find_first_of(separators, at);
        const std::size_t stop = end == std::string_view::npos ? text.size() : end;
        parts.push_back(text.substr(at, stop - at));
        if (end == std::string_view::npos) break;
        at = end + 1;
    }
    return parts;
}

// Parses one field's list ("1,5-10/2,*/15") into the values it allows.
class FieldParser {
public:
    FieldParser(std::string_view text, const FieldSpec &spec, std::string_view value)
        : text_(text), spec_(spec), value_(value) {}

    template <std::size_t N>
    std::bitset<N> values() const {
        std::bitset<N> allowed;
        for (std::string_view element : split(value_, ",")) {
            if (element.empty()) fail("an empty list element");
            add_element(element, allowed);
        }
        return allowed;
    }

private:
    [[noreturn]] void fail(const std::string &why) const {
        refuse(text_, std::string(spec_.name) + " field \"" + std::string(value_) + "\": " + why);
    }

    std::string range_text() const {
        return std::to_string(spec_.min) + "-" + std::to_string(spec_.max);
    }

    unsigned number(std::string_view token) const {
        const std::string lower = lowercase(token);
        for (unsigned i = 0; i < spec_.names.size() && spec_.names[i] != nullptr; ++i)
            if (lower == spec_.names[i]) return spec_.min + i;
        if (token.empty()) fail("a number is missing");
        unsigned value = 0;
        const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
        if (error != std::errc() || end != token.data() + token.size())
            fail("\"" + std::string(token) + "\" is not a number" +
                 (spec_.names[0] != nullptr ? " or a name" : ""));
        if (value < spec_.min || value > spec_.max)
            fail(std::to_string(value) + " is out of range " + range_text());
        return value;
    }

    template <std::size_t N>
    void add_element(std::string_view element, std::bitset<N> &allowed) const {
        const auto slash = element.find('/');
        const std::string_view range = element.substr(0, slash);
        unsigned step = 1;
        if (slash != std::string_view::npos) {
            const std::string_view step_text = element.substr(slash + 1);
            const auto [end, error] =
                std::from_chars(step_text.data(), step_text.data() + step_text.size(), step);
            if (step_text.empty() || error != std::errc() ||
                end != step_text.data() + step_text.size() || step == 0)
                fail("step \"" + std::string(step_text) + "\" is not a number of 1 or more");
            if (step > spec_.max - spec_.min + 1)
                fail("step " + std::to_string(step) + " is larger than the range " + range_text());
        }
        unsigned first = spec_.min, last = spec_.max;
        if (range != "*") {
            const auto dash = range.find('-');
            first = number(range.substr(0, dash));
            // "a/n" runs from a to the field's end, as "a-max/n" would.
            last = dash != std::string_view::npos    ? number(range.substr(dash + 1))
                   : slash != std::string_view::npos ? spec_.max
                                                     : first;
            if (first > last)
                fail("range " + std::to_string(first) + "-" + std::to_string(last) +
                     " runs backwards");
        }
        for (unsigned v = first; v <= last; v += step) allowed.set(v);
    }

    std::string_view text_;
    const FieldSpec &spec_;
    std::string_view value_;
};

std::string_view expand_macro(std::string_view text) {
    const std::string lower = lowercase(text);
    for (const Macro &macro : macros)
        if (lower == macro.name) return macro.fields;
    refuse(text,
           "unknown name; known: @yearly, @annually, @monthly, @weekly, @daily, "
           "@midnight, @hourly");
}

unsigned days_in(unsigned month) {
    // February counts 29: a leap day is a day the expression can fire on.
    constexpr std::array<unsigned, 13> days{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return days[month];
}

}  // namespace

CronExpression CronExpression::parse(std::string_view text) {
    std::string_view fields_text = text;
    while (!fields_text.empty() && (fields_text.front() == ' ' || fields_text.front() == '\t'))
        fields_text.remove_prefix(1);
    if (!fields_text.empty() && fields_text.front() == '@') fields_text = expand_macro(fields_text);

    std::vector<std::string_view> fields;
    for (std::string_view part : split(fields_text, " \t"))
        if (!part.empty()) fields.push_back(part);
    if (fields.size() != 5)
        refuse(text, "expected 5 fields (minute hour day-of-month month day-of-week), got " +
                         std::to_string(fields.size()));

    CronExpression cron;
    cron.text_ = std::string(text);
    cron.minutes_ = FieldParser(text, minute_field, fields[0]).values<60>();
    cron.hours_ = FieldParser(text, hour_field, fields[1]).values<24>();
    cron.days_of_month_ = FieldParser(text, day_of_month_field, fields[2]).values<32>();
    cron.months_ = FieldParser(text, month_field, fields[3]).values<13>();
    const auto days_of_week = FieldParser(text, day_of_week_field, fields[4]).values<8>();
    for (unsigned d = 0; d < 7; ++d) cron.days_of_week_[d] = days_of_week[d];
    if (days_of_week[7]) cron.days_of_week_.set(0);
    cron.hour_wildcard_ = fields[1].front() == '*';
    cron.day_of_month_wildcard_ = fields[2].front() == '*';
    cron.day_of_week_wildcard_ = fields[4].front() == '*';

    if (cron.day_of_week_wildcard_ || cron.day_of_month_wildcard_) {
        bool some_day = false;
        for (unsigned month = 1; month <= 12; ++month)
            for (unsigned day = 1; day <= days_in(month); ++day)
                some_day = some_day || (cron.months_[month] && cron.days_of_month_[day]);
        if (!some_day)
            refuse(text,
                   "never fires: none of the months it allows has a day of the month "
                   "it allows");
    }
    return cron;
}

bool CronExpression::day_matches(sys_days day) const {
    const year_month_day date{day};
    if (!months_[static_cast<unsigned>(date.month())]) return false;
    const bool by_month_day = days_of_month_[static_cast<unsigned>(date.day())];
    const bool by_week_day = days_of_week_[weekday{day}.c_encoding()];
    if (day_of_month_wildcard_ || day_of_week_wildcard_) return by_month_day && by_week_day;
    return by_month_day || by_week_day;
}

bool CronExpression::matches(sys_seconds local_minute) const {
    const sys_days day = floor<days>(local_minute);
    const auto in_day = hh_mm_ss<seconds>(local_minute - day);
    return day_matches(day) && hours_[static_cast<std::size_t>(in_day.hours().count())] &&
           minutes_[static_cast<std::size_t>(in_day.minutes().count())] &&
           in_day.seconds() == seconds{0};
}

std::optional<sys_seconds> CronExpression::next_match(sys_seconds from, sys_seconds until) const {
    sys_seconds at = ceil<minutes>(from);
    while (at < until) {
        const sys_days day = floor<days>(at);
        if (!day_matches(day)) {
            at = day + days{1};
            continue;
        }
        const auto in_day = hh_mm_ss<seconds>(at - day);
        const auto hour = static_cast<std::size_t>(in_day.hours().count());
        if (!hours_[hour]) {
            at = day + hours{hour + 1};
            continue;
        }
        auto minute = static_cast<std::size_t>(in_day.minutes().count());
        while (minute < 60 && !minutes_[minute]) ++minute;
        if (minute == 60) {
            at = day + hours{hour + 1};
            continue;
        }
        const sys_seconds match = day + hours{hour} + minutes{minute};
        return match < until ? std::optional(match) : std::nullopt;
    }
    return std::nullopt;
}

}  // namespace queuey

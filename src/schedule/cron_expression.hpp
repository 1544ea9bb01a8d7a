// A five-field cron expression (minute hour day-of-month month day-of-week) or one of the
// usual names (@hourly, @daily, ...), parsed into the sets of values each field allows.
// Which local minutes it matches is all it knows: time zones are fire_times.hpp's.
#pragma once

#include <bitset>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace queuey {

class CronExpression {
public:
    // Throws Error(QY_ERR_INVALID_ARGUMENT, "cron", ...) naming the field and the value
    // that is wrong, or saying why the expression can never fire ("0 0 30 2 *").
    static CronExpression parse(std::string_view text);

    // Whether the local minute (a time since the local epoch, floored to the minute)
    // matches every field.
    bool matches(std::chrono::sys_seconds local_minute) const;

    // The first local minute at or after `from` (rounded up to a minute) and before
    // `until` that matches, or nothing.
    std::optional<std::chrono::sys_seconds> next_match(std::chrono::sys_seconds from,
                                                       std::chrono::sys_seconds until) const;

    // True when the hour field is a wildcard ("*", "*/2"): such a schedule follows the
    // wall clock through both passes of an hour that a DST change repeats, where one with
    // fixed hours fires once (cron's own rule; docs/scheduling.md).
    bool every_hour() const { return hour_wildcard_; }

    const std::string &text() const { return text_; }

private:
    bool day_matches(std::chrono::sys_days day) const;

    std::string text_;
    std::bitset<60> minutes_;
    std::bitset<24> hours_;
    std::bitset<32> days_of_month_;  // 1..31
    std::bitset<13> months_;         // 1..12
    std::bitset<7> days_of_week_;    // 0 = Sunday
    // cron's rule: when both day fields are restricted (neither starts with '*'), a day
    // matches if either does; otherwise both must.
    bool day_of_month_wildcard_ = true;
    bool day_of_week_wildcard_ = true;
    bool hour_wildcard_ = true;
};

}  // namespace queuey

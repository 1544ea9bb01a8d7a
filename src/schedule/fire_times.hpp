// When a schedule fires: a cron expression read in a time zone, or a fixed interval.
// Fire times are instants (UTC seconds); every process computes the same ones from the
// same definition, which is what lets a new leader carry on where the last one stopped.
#pragma once

#include "cron_expression.hpp"

#include <chrono>
#include <optional>
#include <string>

namespace date {
class time_zone;
}

namespace queuey {

using FireTime = std::chrono::sys_seconds;

// The instants a schedule works in: from the Unix epoch to the start of the year 9999
// (the calendar arithmetic and the time zone database are exact there).
inline constexpr FireTime first_fire_time{};
inline constexpr FireTime fire_times_end{std::chrono::sys_days{std::chrono::year{9999} / 1 / 1}};

class FireTimes {
public:
    // A cron expression read in the IANA zone `zone` ("UTC", "Europe/Berlin"). Throws
    // Error(QY_ERR_INVALID_ARGUMENT, "time_zone", ...) for a zone the system's time zone
    // database (/usr/share/zoneinfo) does not have. "UTC" needs no database (a slim
    // container may have none).
    static FireTimes cron(const CronExpression &cron, const std::string &zone);

    // Every `interval` (one second or more, whole seconds), at the instants that are
    // multiples of it since the Unix epoch: every process agrees on them with no state.
    // Throws Error(QY_ERR_INVALID_ARGUMENT, "interval", ...) otherwise.
    static FireTimes every(std::chrono::milliseconds interval);

    // The first fire strictly after `after`, or nothing when `after` is outside
    // [first_fire_time, fire_times_end) or the next fire would be past its end. An
    // expression that parsed always has one otherwise: one that matches some day matches
    // one in every 400 years.
    std::optional<FireTime> next_after(FireTime after) const;

    // How far apart fires are when they are a fixed interval; zero for cron.
    std::chrono::seconds interval() const { return interval_; }

private:
    // A span of time with one UTC offset: the zone's around t, or all of it for UTC.
    struct Period {
        FireTime begin;
        FireTime end;
        std::chrono::seconds offset;
    };
    Period period_at(FireTime t) const;
    std::optional<FireTime> next_cron_after(FireTime after) const;

    std::optional<CronExpression> cron_;
    const date::time_zone *zone_ = nullptr;  // nullptr: UTC
    std::chrono::seconds interval_{0};
};

}  // namespace queuey

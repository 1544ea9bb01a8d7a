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

class FireTimes {
public:
    // A cron expression read in the IANA zone `zone` ("UTC", "Europe/Berlin"). Throws
    // Error(QY_ERR_INVALID_ARGUMENT, "time_zone", ...) for a zone the system's time zone
    // database (/usr/share/zoneinfo) does not have.
    static FireTimes cron(const CronExpression &cron, const std::string &zone);

    // Every `interval` (one second or more, whole seconds), at the instants that are
    // multiples of it since the Unix epoch: every process agrees on them with no state.
    // Throws Error(QY_ERR_INVALID_ARGUMENT, "interval", ...) otherwise.
    static FireTimes every(std::chrono::milliseconds interval);

    // The first fire strictly after `after`, or nothing when there is none within the
    // years cron_expression.hpp searches (only a leap day in years that skip it).
    std::optional<FireTime> next_after(FireTime after) const;

    // How far apart fires are when they are a fixed interval; zero for cron.
    std::chrono::seconds interval() const { return interval_; }

private:
    std::optional<FireTime> next_cron_after(FireTime after) const;

    std::optional<CronExpression> cron_;
    const date::time_zone *zone_ = nullptr;
    std::chrono::seconds interval_{0};
};

}  // namespace queuey

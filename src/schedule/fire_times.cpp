#include "fire_times.hpp"

#include "../error.hpp"

#include <date/tz.h>

namespace queuey {

using namespace std::chrono;

namespace {

// How far ahead a search for the next fire goes: the Gregorian calendar repeats every
// 400 years, so an expression that matches any day (parse() refuses the others) matches
// one in that span, however rare ("0 0 29 2 */7", a leap day on a Sunday: 2088, 2128).
constexpr years search_span{400};
constexpr auto longest_interval = days{366};

}  // namespace

FireTimes FireTimes::cron(const CronExpression &cron, const std::string &zone) {
    FireTimes times;
    times.cron_ = cron;
    if (zone == "UTC") return times;
    try {
        times.zone_ = date::locate_zone(zone);
    } catch (const std::exception &e) {
        throw Error(QY_ERR_INVALID_ARGUMENT, "time_zone",
                    "\"" + zone +
                        "\" is not a time zone of this system's database "
                        "(/usr/share/zoneinfo, package tzdata): " +
                        e.what());
    }
    return times;
}

FireTimes FireTimes::every(milliseconds interval) {
    if (interval < seconds{1} || interval % seconds{1} != milliseconds{0} ||
        interval > longest_interval)
        throw Error(QY_ERR_INVALID_ARGUMENT, "interval",
                    std::to_string(interval.count()) +
                        " ms is not a whole number of seconds from 1 s to 366 days (use a cron "
                        "expression for calendar periods)");
    FireTimes times;
    times.interval_ = duration_cast<seconds>(interval);
    return times;
}

std::optional<FireTime> FireTimes::next_after(FireTime after) const {
    if (after < first_fire_time || after >= fire_times_end) return std::nullopt;
    std::optional<FireTime> fire;
    if (cron_) {
        fire = next_cron_after(after);
    } else {
        const auto steps = after.time_since_epoch() / interval_;  // not negative: floored
        fire = FireTime{(steps + 1) * interval_};
    }
    return fire && *fire < fire_times_end ? fire : std::nullopt;
}

FireTimes::Period FireTimes::period_at(FireTime t) const {
    if (zone_ == nullptr) return {first_fire_time, fire_times_end, seconds{0}};
    const date::sys_info info = zone_->get_info(t);
    return {info.begin, info.end, info.offset};
}

// Walks the zone's periods of constant UTC offset from the one holding `after`. Inside a
// period, local time is UTC plus the offset, so the cron expression's next local match
// maps to one instant. Two cases lie where a period begins:
// - a gap (the offset grew: local times that never happen): a match inside it fires
//   once, at the end of the gap (the period's first instant), as cron does for a skipped
//   hour;
// - a repeat (the offset shrank: local times that happen twice): a schedule with fixed
//   hours fires at the first pass only, one with a wildcard hour at both (every_hour()).
std::optional<FireTime> FireTimes::next_cron_after(FireTime after) const {
    FireTime from = after + seconds{1};
    const FireTime horizon = std::min(from + search_span, fire_times_end);
    Period period = period_at(from);
    while (from < horizon) {
        const seconds offset = period.offset;
        const seconds previous_offset = period_at(period.begin - seconds{1}).offset;
        if (period.begin >= from && offset > previous_offset) {
            if (cron_->next_match(period.begin + previous_offset, period.begin + offset))
                return period.begin;
        }
        // Local times before this are a second pass the previous period saw first.
        const FireTime repeat_end = period.begin + std::max(previous_offset, offset);
        const FireTime period_end = std::min(period.end, horizon);
        const FireTime local_end = period_end + offset;
        for (auto local = cron_->next_match(from + offset, local_end); local;
             local = cron_->next_match(*local + minutes{1}, local_end))
            if (*local >= repeat_end || cron_->every_hour()) return *local - offset;
        from = period_end;
        period = period_at(period_end);
    }
    return std::nullopt;
}

}  // namespace queuey

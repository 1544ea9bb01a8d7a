#include "schedule.hpp"

#include "../error.hpp"
#include "../topology.hpp"
#include "fire_id.hpp"

namespace queuey {

namespace {

FireTimes checked_times(const ScheduleDefinition &definition) {
    const bool has_cron = definition.cron.has_value();
    const bool has_interval = definition.interval.has_value();
    if (has_cron == has_interval)
        throw Error(QY_ERR_INVALID_ARGUMENT, has_cron ? "interval" : "cron",
                    has_cron ? "a schedule has a cron expression or an interval, not both"
                             : "a schedule needs a cron expression or an interval");
    if (has_interval) {
        if (definition.time_zone != "UTC")
            throw Error(QY_ERR_INVALID_ARGUMENT, "time_zone",
                        "\"" + definition.time_zone +
                            "\" given to an interval schedule: a time zone applies to a cron "
                            "expression only");
        return FireTimes::every(*definition.interval);
    }
    return FireTimes::cron(CronExpression::parse(*definition.cron), definition.time_zone);
}

void check_missed_fires(const MissedFires &missed) {
    const bool catch_up = missed.policy == MissedFires::Policy::catch_up;
    if (catch_up && (missed.at_most == 0 || missed.at_most > MissedFires::max_catch_up))
        throw Error(QY_ERR_INVALID_ARGUMENT, "missed_fires",
                    "catch up at most " + std::to_string(missed.at_most) + ": must be 1 to " +
                        std::to_string(MissedFires::max_catch_up) + " (use skip for none)");
    if (!catch_up && missed.at_most != 0)
        throw Error(QY_ERR_INVALID_ARGUMENT, "missed_fires",
                    "skip takes no count (given " + std::to_string(missed.at_most) + ")");
}

}  // namespace

Schedule::Schedule(ScheduleDefinition definition)
    : definition_(std::move(definition)),
      times_(checked_times(definition_)),
      prototype_(
          Envelope::create(definition_.job_type, definition_.queue, definition_.payload_json)) {
    check_name_argument("name", definition_.name, false);
    if (definition_.name.size() > max_schedule_name_bytes)
        throw Error(QY_ERR_INVALID_ARGUMENT, "name",
                    std::to_string(definition_.name.size()) + " bytes: at most " +
                        std::to_string(max_schedule_name_bytes));
    check_queue_name(definition_.queue);
    check_missed_fires(definition_.missed);
}

Envelope Schedule::envelope_for(FireTime fire) const {
    Envelope envelope = prototype_;
    envelope.job_id = fire_job_id(definition_.name, fire);
    envelope.enqueued_at_ms = unix_now_ms();
    return envelope;
}

}  // namespace queuey

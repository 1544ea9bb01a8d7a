// qy_schedule_*: a periodic job's definition, its fire times and its fires' job ids.
#include "guard.hpp"

#include "../src/error.hpp"
#include "../src/schedule/fire_id.hpp"

#include <cstring>
#include <limits>
#include <type_traits>

using queuey::capi::guarded;
using queuey::capi::make_handle;
using queuey::capi::require;
using queuey::capi::require_text;

namespace {

using namespace std::chrono;

// Validates the changed definition whole before the handle takes it: a refused change
// leaves the schedule as it was.
template <typename Change>
void change(qy_schedule *schedule, Change &&edit) {
    auto &value = require(schedule, "schedule").value;
    queuey::ScheduleDefinition definition = value.definition();
    edit(definition);
    value = queuey::Schedule(std::move(definition));
}

// A time a schedule works in (fire_times.hpp), or an error naming the parameter.
queuey::FireTime fire_time_of(int64_t unix_ms, const char *parameter) {
    const queuey::FireTime time{floor<seconds>(milliseconds{unix_ms})};
    if (time < queuey::first_fire_time || time >= queuey::fire_times_end)
        throw queuey::Error(
            QY_ERR_INVALID_ARGUMENT, parameter,
            std::to_string(unix_ms) + " is not between 1970-01-01 and 9999-01-01 (Unix ms)");
    return time;
}

}  // namespace

extern "C" {

qy_status qy_schedule_new(const char *name, const char *queue, const char *job_type,
                          const char *cron, const char *time_zone, uint64_t interval_ms,
                          qy_schedule **out, qy_error **err) {
    return make_handle(out, err, [&] {
        queuey::ScheduleDefinition definition;
        definition.name = require_text(name, "name");
        definition.queue = require_text(queue, "queue");
        definition.job_type = require_text(job_type, "job_type");
        if (cron != nullptr) definition.cron = cron;
        if (time_zone != nullptr) definition.time_zone = time_zone;
        if (interval_ms > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            throw queuey::Error(QY_ERR_INVALID_ARGUMENT, "interval",
                                std::to_string(interval_ms) + " ms is longer than 366 days");
        if (interval_ms != 0) definition.interval = milliseconds{static_cast<int64_t>(interval_ms)};
        return queuey::Schedule(std::move(definition));
    });
}

void qy_schedule_free(qy_schedule *schedule) { delete schedule; }

qy_status qy_schedule_set_payload(qy_schedule *schedule, const char *payload_json, qy_error **err) {
    return guarded(err, [&] {
        const std::string_view payload = require_text(payload_json, "payload_json");
        change(schedule, [&](queuey::ScheduleDefinition &d) { d.payload_json = payload; });
    });
}

qy_status qy_schedule_set_missed_fires(qy_schedule *schedule, qy_missed_fires policy,
                                       uint32_t at_most, qy_error **err) {
    return guarded(err, [&] {
        // A C caller may pass any int; in C++ a value outside the enumerators must not be
        // read as the enum (UBSan's enum check), so its bytes are read as an int.
        std::underlying_type_t<qy_missed_fires> value = 0;
        std::memcpy(&value, &policy, sizeof value);
        queuey::MissedFires missed{queuey::MissedFires::Policy::skip, at_most};
        switch (value) {
            case QY_MISSED_FIRES_SKIP: break;
            case QY_MISSED_FIRES_CATCH_UP:
                missed.policy = queuey::MissedFires::Policy::catch_up;
                break;
            default:
                throw queuey::Error(QY_ERR_INVALID_ARGUMENT, "policy",
                                    "is " + std::to_string(value) +
                                        "; QY_MISSED_FIRES_SKIP (0) or "
                                        "QY_MISSED_FIRES_CATCH_UP (1)");
        }
        change(schedule, [&](queuey::ScheduleDefinition &d) { d.missed = missed; });
    });
}

qy_status qy_schedule_next_fire_ms(const qy_schedule *schedule, int64_t after_ms, int64_t *out_ms,
                                   qy_error **err) {
    return guarded(err, [&] {
        const auto &value = require(schedule, "schedule").value;
        int64_t &out = require(out_ms, "out_ms");
        const auto fire = value.fire_times().next_after(fire_time_of(after_ms, "after_ms"));
        if (!fire)
            throw queuey::Error(
                QY_ERR_NOT_FOUND, "after_ms",
                "\"" + value.definition().name + "\" has no fire after it before 9999-01-01");
        out = duration_cast<milliseconds>(fire->time_since_epoch()).count();
    });
}

qy_status qy_schedule_fire_job_id(const qy_schedule *schedule, int64_t fire_ms, char out[37],
                                  qy_error **err) {
    return guarded(err, [&] {
        const auto &value = require(schedule, "schedule").value;
        char &first = require(out, "out");
        const std::string id =
            queuey::fire_job_id(value.definition().name, fire_time_of(fire_ms, "fire_ms"));
        std::memcpy(&first, id.c_str(), id.size() + 1);
    });
}

}  // extern "C"

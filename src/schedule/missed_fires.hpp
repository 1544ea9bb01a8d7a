// Which fires a scheduler enqueues when it comes to a schedule late (a leader that took
// over, a process that was down): every fire since the last one recorded is either
// enqueued or skipped, and counted.
#pragma once

#include "fire_times.hpp"

#include <chrono>
#include <cstdint>
#include <vector>

namespace queuey {

struct MissedFires {
    enum class Policy {
        // Fires later than the grace are skipped; later than it means missed.
        skip,
        // The latest `at_most` fires are enqueued however late; older ones are skipped.
        catch_up,
    };
    Policy policy = Policy::skip;
    unsigned at_most = 0;  // catch_up only: 1 to max_catch_up

    static constexpr unsigned max_catch_up = 1000;
};

// How late a fire may be enqueued and still count as on time under Policy::skip: the
// interval up to a minute (a fire of a one-second schedule is missed when a second late;
// a daily one survives a leader's failover).
std::chrono::seconds on_time_grace(const FireTimes &times);

struct DueFires {
    std::vector<FireTime> enqueue;  // in time order
    std::uint64_t skipped = 0;
};

// The fires in (since, now]: those the policy enqueues and the count of the others.
// Fires more than `lookback` before now are not looked at (nor counted): a schedule whose
// last record is that old starts again from there.
DueFires due_fires(const FireTimes &times, const MissedFires &missed, FireTime since, FireTime now,
                   std::chrono::seconds lookback = std::chrono::days{400});

}  // namespace queuey

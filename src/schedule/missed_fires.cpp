#include "missed_fires.hpp"

#include <algorithm>
#include <deque>

namespace queuey {

using namespace std::chrono;

seconds on_time_grace(const FireTimes &times) {
    constexpr seconds longest{60};
    return times.interval() == seconds{0} ? longest : std::min(times.interval(), longest);
}

DueFires due_fires(const FireTimes &times, const MissedFires &missed, FireTime since, FireTime now,
                   seconds lookback) {
    DueFires due;
    FireTime from = std::max(since, now - lookback);
    if (from >= now) return due;

    // An interval's fires are counted without visiting them: jump to the last few.
    if (const seconds interval = times.interval(); interval > seconds{0}) {
        const std::int64_t total =
            now.time_since_epoch() / interval - from.time_since_epoch() / interval;
        const std::int64_t visit = std::int64_t{MissedFires::max_catch_up} + 1;
        if (total > visit) {
            due.skipped = static_cast<std::uint64_t>(total - visit);
            from = FireTime{(now.time_since_epoch() / interval - visit) * interval};
        }
    }

    const FireTime on_time_from = now - on_time_grace(times);
    std::deque<FireTime> kept;
    for (auto fire = times.next_after(from); fire && *fire <= now; fire = times.next_after(*fire)) {
        const bool keep = missed.policy == MissedFires::Policy::catch_up || *fire >= on_time_from;
        if (!keep) {
            ++due.skipped;
            continue;
        }
        kept.push_back(*fire);
        if (missed.policy == MissedFires::Policy::catch_up && kept.size() > missed.at_most) {
            kept.pop_front();
            ++due.skipped;
        }
    }
    due.enqueue.assign(kept.begin(), kept.end());
    return due;
}

}  // namespace queuey

// The deliveries a worker keeps unsettled after their settle failed (docs/worker.md,
// settle failures). Freed at once, such a delivery would go straight back to its queue
// and run again in a loop; kept, it holds a prefetch slot until its settle, tried again
// with a backoff, goes through, or it goes stale (its job went back to the queue with
// its channel). A parked delivery is set aside (Delivery::set_aside) so that it need not
// hold a prefetch slot; none stays for good.
#pragma once

#include "../backend.hpp"
#include "../mutex.hpp"
#include "settle_action.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace queuey {

// Thread-safe. A delivery taken out (take_due, take_stale) is its taker's alone: no two
// threads ever settle one delivery at once.
class ParkedDeliveries {
public:
    using Clock = std::chrono::steady_clock;

    // The wait before the next try after n failed ones: 1 s, doubling, at most 30 s.
    static Clock::duration wait_after(std::uint32_t failures);

    struct Parked {
        std::shared_ptr<Delivery> delivery;
        SettleAction action;         // what failed, tried again as it is
        std::uint32_t failures = 0;  // failed tries so far
        bool kept = false;           // parked before (counted in QY_COUNTER_PARKED)
        Clock::time_point due{};     // of the next try
    };

    // Keeps parked until parked.due.
    void park(Parked parked);
    // One parked delivery whose next try is due, taken out; the one due first.
    std::optional<Parked> take_due(Clock::time_point now);
    // The parked deliveries that went stale, taken out.
    std::vector<Parked> take_stale();
    // Frees every parked delivery (their jobs go back to their queues).
    void clear();

private:
    Mutex mutex_;
    std::vector<Parked> parked_ QY_GUARDED_BY(mutex_);
};

}  // namespace queuey

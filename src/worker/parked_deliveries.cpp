#include "parked_deliveries.hpp"

#include "../backoff.hpp"

#include <algorithm>

namespace queuey {

ParkedDeliveries::Clock::duration ParkedDeliveries::wait_after(std::uint32_t failures) {
    static const ExponentialBackoff backoff{std::chrono::seconds(1), 2.0, std::chrono::seconds(30),
                                            false};
    return std::chrono::duration_cast<Clock::duration>(backoff.ceiling(failures));
}

void ParkedDeliveries::park(Parked parked) {
    MutexLock lock(mutex_);
    parked_.push_back(std::move(parked));
}

std::optional<ParkedDeliveries::Parked> ParkedDeliveries::take_due(Clock::time_point now) {
    MutexLock lock(mutex_);
    const auto first =
        std::min_element(parked_.begin(), parked_.end(),
                         [](const Parked &a, const Parked &b) { return a.due < b.due; });
    if (first == parked_.end() || first->due > now) return std::nullopt;
    Parked due = std::move(*first);
    parked_.erase(first);
    return due;
}

std::vector<ParkedDeliveries::Parked> ParkedDeliveries::take_stale() {
    MutexLock lock(mutex_);
    const auto stale = std::stable_partition(parked_.begin(), parked_.end(),
                                             [](const Parked &p) { return !p.delivery->stale(); });
    std::vector<Parked> taken(std::make_move_iterator(stale),
                              std::make_move_iterator(parked_.end()));
    parked_.erase(stale, parked_.end());
    return taken;
}

void ParkedDeliveries::clear() {
    std::vector<Parked> freed;
    {
        MutexLock lock(mutex_);
        freed.swap(parked_);
    }
    // Freed outside the lock: a delivery's destructor may talk to its broker.
}

}  // namespace queuey

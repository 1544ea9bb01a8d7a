#include "own_redeliveries.hpp"

namespace queuey {

void OwnRedeliveries::record(const std::string &message_id, OwnReturn why) {
    if (message_id.empty()) return;
    MutexLock lock(mutex_);
    const auto [entry, added] = ids_.try_emplace(message_id, why);
    if (!added) {
        // A cut run stays cut: its redelivery may be given back unseen (a channel closed
        // again while it waited) before a consumer takes it.
        if (why == OwnReturn::cut_by_consumer_timeout) entry->second = why;
        return;
    }
    order_.push_back(message_id);
    if (order_.size() > capacity) {
        ids_.erase(order_.front());
        order_.pop_front();
    }
}

std::optional<OwnReturn> OwnRedeliveries::take(const std::string &message_id) {
    MutexLock lock(mutex_);
    const auto found = ids_.find(message_id);
    if (found == ids_.end()) return std::nullopt;
    const OwnReturn why = found->second;
    ids_.erase(found);  // its entry in order_ ages out harmlessly
    return why;
}

}  // namespace queuey

#include "hold_leases.hpp"

#include <variant>

namespace queuey {
namespace {

// Past this many leases, renewed() drops the stale ones: one per distinct hold queue
// used within a window.
constexpr std::size_t leases_before_pruning = 256;

const std::int64_t *integer_argument(const QueueSpec &spec, std::string_view name) {
    const QueueArgument *argument = find_argument(spec, name);
    return argument ? std::get_if<std::int64_t>(&argument->value) : nullptr;
}

}  // namespace

HoldLeases::Clock::duration HoldLeases::skip_window(const QueueSpec &spec) {
    const std::int64_t *expires = integer_argument(spec, "x-expires");
    const std::int64_t *ttl = integer_argument(spec, "x-message-ttl");
    if (!expires || !ttl || *expires <= *ttl) return Clock::duration::zero();
    return std::chrono::milliseconds((*expires - *ttl) / 4);
}

void HoldLeases::renewed(const QueueSpec &spec, Clock::time_point sent_at) {
    const Clock::duration window = skip_window(spec);
    if (window == Clock::duration::zero()) return;
    MutexLock lock(mutex_);
    if (leases_.size() >= leases_before_pruning)
        std::erase_if(leases_, [&](const auto &entry) { return entry.second.fresh_until <= sent_at; });
    leases_.insert_or_assign(spec.name, Lease{spec, sent_at + window});
}

bool HoldLeases::fresh(const QueueSpec &spec, Clock::time_point now) const {
    MutexLock lock(mutex_);
    const auto found = leases_.find(spec.name);
    // Other arguments (the queue's type or durability changed) are declared, and refused.
    return found != leases_.end() && now < found->second.fresh_until && found->second.spec == spec;
}

void HoldLeases::forget(const std::string &queue) {
    MutexLock lock(mutex_);
    leases_.erase(queue);
}

void HoldLeases::forget_all() {
    MutexLock lock(mutex_);
    leases_.clear();
}

}  // namespace queuey

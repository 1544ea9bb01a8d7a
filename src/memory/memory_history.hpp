// What the memory backend settled and expired: the newest entries of each kind, and
// exact totals per queue. Bounded so that a memory:// process that runs for long (the
// demo, a service without a broker) does not keep every envelope it ever settled.
#pragma once

#include "memory_snapshot.hpp"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>

namespace queuey {

// How many entries of each kind (acked, retried, ...) a memory backend keeps by default.
inline constexpr std::size_t default_memory_history_limit = 10000;

// Not thread-safe: the broker guards it with its mutex.
class MemoryHistory {
public:
    using Republished = MemorySnapshot::Republished;
    using DeadLetter = MemorySnapshot::DeadLetter;
    using Expired = MemorySnapshot::Expired;

    // limit: the newest entries kept of each kind; older ones are forgotten, not counted
    // out of the totals.
    explicit MemoryHistory(std::size_t limit) : limit_(limit) {}

    void acked(Envelope envelope) { record(acked_, &Totals::acked, std::move(envelope)); }
    void retried(Republished retry) { record(retried_, &Totals::retried, std::move(retry)); }
    void deferred(Republished deferral) {
        record(deferred_, &Totals::deferred, std::move(deferral));
    }
    void dead_lettered(DeadLetter dead) {
        record(dead_lettered_, &Totals::dead_lettered, std::move(dead));
    }
    void expired(Expired expiry) { record(expired_, &Totals::expired, std::move(expiry)); }

    // Fills the histories and totals of snapshot.
    void copy_to(MemorySnapshot &snapshot) const;
    // Forgets the entries and the totals.
    void clear();

private:
    using Totals = MemorySnapshot::Totals;
    // Counts entry in its queue's total and keeps it among the newest limit_ entries.
    template <typename Entry>
    void record(std::deque<Entry> &entries, std::uint64_t Totals::*total, Entry entry);

    std::size_t limit_;
    std::deque<Envelope> acked_;
    std::deque<Republished> retried_;
    std::deque<Republished> deferred_;
    std::deque<DeadLetter> dead_lettered_;
    std::deque<Expired> expired_;
    std::map<std::string, Totals, std::less<>> totals_;
};

template <typename Entry>
void MemoryHistory::record(std::deque<Entry> &entries, std::uint64_t Totals::*total, Entry entry) {
    ++(totals_[entry.queue].*total);
    if (limit_ == 0) return;
    if (entries.size() >= limit_) entries.pop_front();
    entries.push_back(std::move(entry));
}

}  // namespace queuey

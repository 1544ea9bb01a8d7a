// The hold queues declared lately, and until when a held publish may skip declaring its
// hold queue again (docs/broker.md, hold queue leases). A redeclare renews the queue's
// x-expires lease, which outlasts one TTL (behaviour.md: 2 x TTL, a quorum hold at least
// TTL + 5 min); skipping it is safe while the last declare is recent enough that the
// queue cannot expire before a message published now leaves it. Callers ask, the I/O
// thread records what the broker answered; hence the lock.
#pragma once

#include "../mutex.hpp"
#include "../topology.hpp"

#include <chrono>
#include <string>
#include <unordered_map>

namespace queuey {

class HoldLeases {
public:
    using Clock = std::chrono::steady_clock;

    // How long after a declare of spec is written a publish may skip declaring it again:
    // a quarter of what the lease outlasts a message (x-expires - x-message-ttl), so that
    // three quarters stay as slack for a slow broker. Zero without both arguments.
    static Clock::duration skip_window(const QueueSpec &spec);

    // The broker answered a declare of spec written at sent_at.
    void renewed(const QueueSpec &spec, Clock::time_point sent_at);
    // Whether a publish into spec's queue, written from now on, may skip declaring it.
    bool fresh(const QueueSpec &spec, Clock::time_point now) const;
    // The queue may be gone (it returned a publish): the next publish declares it.
    void forget(const std::string &queue);
    // The connection was lost: a broker that restarted may have lost any of them.
    void forget_all();

private:
    struct Lease {
        QueueSpec spec;
        Clock::time_point fresh_until;
    };
    mutable Mutex mutex_;
    std::unordered_map<std::string, Lease> leases_ QY_GUARDED_BY(mutex_);
};

}  // namespace queuey

// What the in-process backend holds at one moment, and what happened to the jobs it
// delivered: the inspection that tests of users' handlers assert on.
#pragma once

#include "../envelope.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace queuey {

struct MemorySnapshot {
    struct Queue {
        std::vector<Envelope> pending;  // waiting, in the order they will be delivered
        std::size_t in_flight = 0;      // delivered and not settled yet
        // Declared by declare(): a work queue. False for a dead-letter queue (q.dead) not
        // declared itself: its jobs are parked, and wait_until_idle() ignores them.
        bool declared = false;
    };
    // Waiting for its delay (a delayed enqueue, a retry, a deferral).
    struct Held {
        std::string queue;  // where it goes when due
        Envelope envelope;
        std::chrono::steady_clock::time_point due;
    };
    // A retry or a deferral: the successor and its delay.
    struct Republished {
        std::string queue;  // the queue of the settled delivery, where next arrives
        Envelope next;
        std::chrono::nanoseconds delay{0};
    };
    struct DeadLetter {
        std::string queue;  // the queue it was delivered from
        Envelope envelope;
        std::string reason;  // "malformed envelope" for an envelope that did not decode
        std::string detail;  // for a malformed envelope: the decoder's message
    };
    // Dropped by a queue's message TTL.
    struct Expired {
        std::string queue;
        Envelope envelope;
    };

    // Every queue by name, dead-letter queues (q.dead) included.
    std::map<std::string, Queue, std::less<>> queues;
    std::vector<Held> held;  // earliest due first

    // How often each happened, by the queue the job was delivered from (or expired in):
    // exact, while the histories below keep only the newest entries.
    struct Totals {
        std::uint64_t acked = 0;
        std::uint64_t retried = 0;
        std::uint64_t deferred = 0;
        std::uint64_t dead_lettered = 0;
        std::uint64_t expired = 0;
    };

    // Histories, each in the order it happened (settlements, expiries): the newest
    // entries only, as many as the backend's history limit (default_memory_history_limit).
    std::vector<Envelope> acked;
    std::vector<Republished> retried;
    std::vector<Republished> deferred;
    std::vector<DeadLetter> dead_lettered;
    std::vector<Expired> expired;
    std::map<std::string, Totals, std::less<>> totals;  // since the start or clear_history()

    // Conveniences for a queue that may not exist: empty and 0 then.
    const std::vector<Envelope> &pending(std::string_view queue) const;
    std::size_t in_flight(std::string_view queue) const;
};

}  // namespace queuey

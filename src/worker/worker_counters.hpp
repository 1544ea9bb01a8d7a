// What a worker did, for observability (readable while it runs).
#pragma once

#include <atomic>
#include <cstdint>

namespace queuey {

struct WorkerCounters {
    std::uint64_t succeeded = 0;
    std::uint64_t retried = 0;
    std::uint64_t deferred = 0;
    std::uint64_t dead_lettered_fatal = 0;
    std::uint64_t dead_lettered_exhausted = 0;  // retries used up
    std::uint64_t dead_lettered_unknown_type = 0;
    std::uint64_t dead_lettered_undecodable = 0;
    std::uint64_t timed_out = 0;    // runs that exceeded the job timeout
    std::uint64_t worker_lost = 0;  // redeliveries taken as lost runs
    std::uint64_t settle_failures = 0;
    std::uint64_t in_flight = 0;
    std::uint64_t dead_lettered_lost = 0;  // lost-run budget used up
    // Bodies that were no envelope (counted by the consumer, never seen by a handler):
    std::uint64_t dead_lettered_malformed = 0;  // copied verbatim to q.dead
    std::uint64_t dropped_malformed = 0;        // the copy failed: rejected, gone
    std::uint64_t parked = 0;           // held unsettled after a failed settle, to settle again
    std::uint64_t duplicate_fires = 0;  // second copies of a fire, dropped (settled_fires.hpp)
};

// The live, atomic form the worker updates.
struct AtomicWorkerCounters {
    std::atomic<std::uint64_t> succeeded{0}, retried{0}, deferred{0}, dead_lettered_fatal{0},
        dead_lettered_exhausted{0}, dead_lettered_unknown_type{0}, dead_lettered_undecodable{0},
        timed_out{0}, worker_lost{0}, settle_failures{0}, in_flight{0}, dead_lettered_lost{0},
        dead_lettered_malformed{0}, dropped_malformed{0}, parked{0}, duplicate_fires{0};

    WorkerCounters snapshot() const {
        return {succeeded.load(),
                retried.load(),
                deferred.load(),
                dead_lettered_fatal.load(),
                dead_lettered_exhausted.load(),
                dead_lettered_unknown_type.load(),
                dead_lettered_undecodable.load(),
                timed_out.load(),
                worker_lost.load(),
                settle_failures.load(),
                in_flight.load(),
                dead_lettered_lost.load(),
                dead_lettered_malformed.load(),
                dropped_malformed.load(),
                parked.load(),
                duplicate_fires.load()};
    }
};

}  // namespace queuey

// How a job is settled, decided once from its outcome (docs/worker.md, outcomes). A
// settle that failed is tried again with this same action: the same successor envelope
// and delay, the same dead-letter reason, without running the handler again.
#pragma once

#include "../envelope.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace queuey {

struct SettleAction {
    // drop_duplicate: an ack, of a second copy of a fire that is not run (settled_fires.hpp).
    enum class Kind { ack, retry, defer, dead_letter, requeue_lost, drop_duplicate };

    Kind kind = Kind::ack;
    // The worker's counter of this outcome, counted once the settle went through (none
    // for requeue_lost, counted when the job came back).
    std::atomic<std::uint64_t> *counter = nullptr;
    Envelope next{};                    // retry, defer: the successor
    std::chrono::nanoseconds delay{0};  // retry, defer: its hold
    // dead_letter; retry: the failure it follows; drop_duplicate: which fire it is
    std::string reason{};
    // dead_letter: its x-exception (empty: none); retry: the same, kept for the dead
    // letter that a refused hold turns it into.
    std::string exception{};
    std::uint32_t lost_runs = 0;  // requeue_lost: the count after this loss
    bool timed_out = false;       // the run went past the job timeout (queuey_jobs_total)

    // Publishes a successor into a hold queue.
    bool holds() const { return kind == Kind::retry || kind == Kind::defer; }
    // As the log and the refusal reasons name it.
    const char *name() const {
        switch (kind) {
            case Kind::ack: return "acknowledge";
            case Kind::retry: return "retry";
            case Kind::defer: return "deferral";
            case Kind::dead_letter: return "dead-letter";
            case Kind::requeue_lost: return "requeue";
            case Kind::drop_duplicate: return "drop";
        }
        return "settle";
    }
};

}  // namespace queuey

// The lost-run rule (behaviour.md section 10; docs/worker.md, lost runs), decided here for
// every backend and queue type; the worker asks it once for each delivery before it runs.
//
// A redelivery that this process did not cause may have been running when its worker
// died, so it is charged one lost run, whatever the broker counted: a classic queue only
// flags it, and a quorum queue's x-delivery-count also counts returns of jobs that never
// started (a peek, a blink). The job carries its count in a republished copy (x-lost-runs),
// which starts the broker's count afresh; at the budget it is dead-lettered. A job whose
// broker count grew through returns that cost nothing is republished before the queue's
// delivery limit could take it (topology.hpp, quorum_delivery_limit). A run that the
// broker's consumer timeout cut is a lost run too, named as such: the job would otherwise
// run past the timeout again and again, for ever (broker/consumer_timeout.hpp).
#pragma once

#include <cstdint>
#include <string>

namespace queuey {

struct LostRunFacts {
    bool possibly_started = false;         // Delivery::redelivered()
    bool cut_by_consumer_timeout = false;  // Delivery::cut_by_consumer_timeout()
    std::uint32_t lost_before = 0;         // Delivery::lost_runs()
    std::uint32_t broker_returns = 0;      // Delivery::broker_returns()
    std::uint32_t budget = 1;              // max_lost_runs (0 counts as 1)
};

struct LostRunVerdict {
    enum class Kind {
        run,          // nothing to charge: run the job now
        requeue,      // republish it carrying lost_runs, then ack; it runs from there
        dead_letter,  // lost lost_runs times, the budget: "lost {n} times: ..."
    };
    Kind kind = Kind::run;
    std::uint32_t lost_runs = 0;  // the count the job carries on
    bool charged = false;         // this delivery cost a lost run
};

// How often a job may come back at no cost before it is republished with a fresh
// broker count: half the delivery limit queuey declares on a quorum queue.
std::uint32_t returns_before_republish();

LostRunVerdict judge_lost_run(const LostRunFacts &facts);

// What the loss that took the count to lost_runs was, for the dead letter's reason and
// the log: "the worker was lost while running the job", or the consumer timeout.
std::string lost_run_cause(const LostRunFacts &facts);

}  // namespace queuey

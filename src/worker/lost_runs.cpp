#include "lost_runs.hpp"

#include "../topology.hpp"

#include <algorithm>

namespace queuey {

std::uint32_t returns_before_republish() { return quorum_delivery_limit / 2; }

LostRunVerdict judge_lost_run(const LostRunFacts &facts) {
    if (facts.possibly_started) {
        const std::uint32_t lost =
            facts.lost_before == UINT32_MAX ? UINT32_MAX : facts.lost_before + 1;
        const bool spent = lost >= std::max<std::uint32_t>(facts.budget, 1);
        return {spent ? LostRunVerdict::Kind::dead_letter : LostRunVerdict::Kind::requeue, lost,
                true};
    }
    if (facts.broker_returns >= returns_before_republish())
        return {LostRunVerdict::Kind::requeue, facts.lost_before, false};
    return {LostRunVerdict::Kind::run, facts.lost_before, false};
}

std::string lost_run_cause(const LostRunFacts &facts) {
    return facts.cut_by_consumer_timeout
               ? "the broker's consumer timeout closed the channel while the job ran (a job "
                 "longer than the queue's consumer timeout; docs/worker.md, long jobs)"
               : "the worker was lost while running the job";
}

}  // namespace queuey

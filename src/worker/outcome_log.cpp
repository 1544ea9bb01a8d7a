#include "outcome_log.hpp"

#include "../topology.hpp"

namespace queuey {

std::string format_duration(std::chrono::milliseconds duration) {
    const auto ms = duration.count();
    if (ms < 1000) return std::to_string(ms) + "ms";
    std::string seconds = std::to_string(ms / 1000);
    if (const auto rest = ms % 1000) {
        std::string fraction = std::to_string(1000 + rest).substr(1);
        fraction.erase(fraction.find_last_not_of('0') + 1);
        seconds += "." + fraction;
    }
    return seconds + "s";
}

void log_settled(const Logger &logger, const SettleAction &action, const Envelope &envelope) {
    const auto job = [&envelope] {
        return "job " + envelope.job_id + " (type `" + envelope.job_type + "`, queue " +
               envelope.queue + ")";
    };
    switch (action.kind) {
        case SettleAction::Kind::retry:
            logger.warn(job() + " failed at attempt " + std::to_string(envelope.attempt) + ": " +
                        action.reason + "; retried as attempt " +
                        std::to_string(action.next.attempt) + " in " +
                        format_duration(
                            std::chrono::duration_cast<std::chrono::milliseconds>(action.delay)));
            return;
        case SettleAction::Kind::dead_letter:
            logger.error(job() + " dead-lettered to " + dead_letter_queue_name(envelope.queue) +
                         " at attempt " + std::to_string(envelope.attempt) + ": " + action.reason);
            return;
        case SettleAction::Kind::drop_duplicate:
            logger.warn(job() + " is a second copy of " + action.reason +
                        ", which this worker ran already: dropped, not run");
            return;
        case SettleAction::Kind::ack:
        case SettleAction::Kind::defer:
        case SettleAction::Kind::requeue_lost: return;
    }
}

}  // namespace queuey

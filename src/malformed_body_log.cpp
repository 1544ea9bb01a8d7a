#include "malformed_body_log.hpp"

#include "topology.hpp"

namespace queuey {

void log_malformed_body(const Logger &logger, const MalformedBody &body) {
    std::string line = "a message in " + body.queue + " is not a valid envelope (malformed)";
    if (!body.message_id.empty()) line += ", message-id " + body.message_id;
    line += ": " + body.problem + "; ";
    line += body.copied ? "copied to " + dead_letter_queue_name(body.queue) + " and acked"
                        : "dropped: the copy to " + dead_letter_queue_name(body.queue) +
                              " failed (" + body.copy_failure + "), rejected without requeue";
    logger.warn(line);
}

}  // namespace queuey

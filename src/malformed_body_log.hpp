// The warning a malformed body is logged with, the same for the worker and the pull API.
#pragma once

#include "consumer_observer.hpp"
#include "log.hpp"

namespace queuey {

// Logs body as a warning: the queue, the decoder's message, the message-id if any, and
// what became of it. Never the body: it may be large, binary or confidential, and a
// copied one is in the dead-letter queue byte for byte.
void log_malformed_body(const Logger &logger, const MalformedBody &body);

// The observer of the pull API: logs each malformed body, counts nothing.
class MalformedBodyLogger final : public ConsumerObserver {
public:
    explicit MalformedBodyLogger(Logger logger) : logger_(std::move(logger)) {}
    void malformed_body(const MalformedBody &body) override { log_malformed_body(logger_, body); }

private:
    Logger logger_;
};

}  // namespace queuey

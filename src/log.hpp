// Where queuey's log lines go: the application's sink, called on a dispatcher thread of
// the client's own (log_dispatcher.hpp); silent, with no thread, when no sink is set.
#pragma once

#include "log_dispatcher.hpp"
#include "log_sink.hpp"

#include <memory>
#include <string>
#include <utility>

namespace queuey {

// A handle on a dispatcher, cheap to copy: the client hands copies to its connection,
// workers and consumers. Logging only queues the line, so it is safe on any thread, the
// I/O thread included, and under any lock.
class Logger {
public:
    Logger() = default;  // silent
    // A Logger whose lines go to sink through a dispatcher started here; silent when sink
    // is empty. Throws Error (QY_ERR_NO_MEMORY) when the thread cannot be started.
    static Logger dispatching_to(LogSink sink) {
        Logger logger;
        if (sink) logger.dispatcher_ = std::make_shared<LogDispatcher>(std::move(sink));
        return logger;
    }

    void log(LogLevel level, std::string message) const {
        if (dispatcher_) dispatcher_->post(level, std::move(message));
    }
    void info(std::string message) const { log(LogLevel::info, std::move(message)); }
    void warn(std::string message) const { log(LogLevel::warn, std::move(message)); }
    void error(std::string message) const { log(LogLevel::error, std::move(message)); }

    // Delivers what is queued (LogDispatcher::stop) and silences every copy.
    void stop() const {
        if (dispatcher_) dispatcher_->stop();
    }

private:
    std::shared_ptr<LogDispatcher> dispatcher_;
};

}  // namespace queuey

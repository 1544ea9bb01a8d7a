// Hands log lines to the application's sink on a thread of its own.
//
// A sink may block (a slow syslog, a Python callback waiting for the GIL). Called from
// the I/O thread it would stop heartbeats, publishes and acks; called from a worker or
// a consumer it would hold up their jobs. So whoever logs only queues the line, under
// the dispatcher's own lock, which is never held during a sink call; the sink runs on
// the dispatcher's thread, one line at a time, in order, and never under a lock.
#pragma once

#include "log_sink.hpp"

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace queuey {

class LogDispatcher {
public:
    static constexpr std::size_t default_capacity = 10'000;
    static constexpr std::chrono::milliseconds default_drain{2000};

    // Starts the thread. Throws Error (QY_ERR_NO_MEMORY) when the system refuses it.
    explicit LogDispatcher(LogSink sink, std::size_t capacity = default_capacity);
    ~LogDispatcher();  // stop()
    LogDispatcher(const LogDispatcher &) = delete;
    LogDispatcher &operator=(const LogDispatcher &) = delete;

    // Queues a line and returns; never waits for the sink. With capacity lines waiting
    // already the line is dropped and counted: the sink then gets one warning with the
    // count where the lines are missing. After stop() lines are dropped.
    void post(LogLevel level, std::string message);

    // Delivers what is queued for up to drain, drops the rest, ends the thread and lets
    // the sink go. No sink call starts after it returns; a call under way when drain runs
    // out is not interrupted: it finishes on the thread, which then ends by itself.
    // Idempotent. From the sink itself it only asks the thread to end.
    void stop(std::chrono::milliseconds drain = default_drain);

private:
    struct State;
    static void run(State &state);

    // Shared with the thread, which may outlive this object when a sink call outlasts
    // the drain.
    std::shared_ptr<State> state_;
    std::thread thread_;
    std::once_flag stopped_;
};

}  // namespace queuey

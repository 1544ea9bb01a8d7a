#include "log_dispatcher.hpp"

#include "error.hpp"
#include "mutex.hpp"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <system_error>
#include <utility>

namespace queuey {

namespace {

using Clock = std::chrono::steady_clock;

struct Line {
    LogLevel level;
    std::string message;
    std::uint64_t dropped_before;  // lines lost just before this one (the queue was full)
};

std::string dropped_warning(std::uint64_t count, std::size_t capacity) {
    return "queuey dropped " + std::to_string(count) +
           " log line(s) here: " + std::to_string(capacity) +
           " were waiting for the log callback already";
}

}  // namespace

struct LogDispatcher::State {
    State(LogSink sink, std::size_t capacity) : sink(std::move(sink)), capacity(capacity) {}

    LogSink sink;  // the thread's alone; reset when it ends
    const std::size_t capacity;
    Mutex mutex;                    // guards the fields below
    std::condition_variable wake;   // for the thread: a line, a drop, or stop
    std::condition_variable ended;  // for stop(): the thread is done
    std::deque<Line> lines QY_GUARDED_BY(mutex);
    std::uint64_t dropped QY_GUARDED_BY(mutex) = 0;  // since the last line queued
    bool stopping QY_GUARDED_BY(mutex) = false;
    bool done QY_GUARDED_BY(mutex) = false;
    Clock::time_point drain_deadline QY_GUARDED_BY(mutex) = Clock::time_point::max();
};

LogDispatcher::LogDispatcher(LogSink sink, std::size_t capacity)
    : state_(std::make_shared<State>(std::move(sink), capacity)) {
    try {
        thread_ = std::thread([state = state_] { run(*state); });
    } catch (const std::system_error &error) {
        throw Error(
            QY_ERR_NO_MEMORY, "",
            std::string("could not create the thread for the log callback: ") + error.what());
    }
}

LogDispatcher::~LogDispatcher() { stop(); }

void LogDispatcher::post(LogLevel level, std::string message) {
    State &state = *state_;
    {
        MutexLock lock(state.mutex);
        if (state.stopping) return;
        if (state.lines.size() >= state.capacity) {
            ++state.dropped;
            return;
        }
        state.lines.push_back({level, std::move(message), std::exchange(state.dropped, 0)});
    }
    state.wake.notify_one();
}

void LogDispatcher::stop(std::chrono::milliseconds drain) {
    std::call_once(stopped_, [&] {
        State &state = *state_;
        MutexLock lock(state.mutex);
        state.stopping = true;
        state.drain_deadline = Clock::now() + drain;
        state.wake.notify_one();
        // The sink itself (a callback closing its client) cannot wait for its own thread.
        const bool waits = thread_.get_id() != std::this_thread::get_id();
        while (waits && !state.done)
            if (state.ended.wait_until(lock.for_wait(), state.drain_deadline) ==
                std::cv_status::timeout)
                break;
        const bool done = state.done;
        lock.unlock();
        if (done)
            thread_.join();
        else
            thread_.detach();  // ends after the sink call under way, calling no more
    });
}

void LogDispatcher::run(State &state) {
    MutexLock lock(state.mutex);
    while (true) {
        while (state.lines.empty() && !state.dropped && !state.stopping)
            state.wake.wait(lock.for_wait());
        if (state.stopping && Clock::now() >= state.drain_deadline) break;
        // One sink call per turn, so that the deadline is checked before each.
        LogLevel level = LogLevel::warn;
        std::string message;
        if (!state.lines.empty() && state.lines.front().dropped_before == 0) {
            level = state.lines.front().level;
            message = std::move(state.lines.front().message);
            state.lines.pop_front();
        } else if (!state.lines.empty()) {
            message = dropped_warning(std::exchange(state.lines.front().dropped_before, 0),
                                      state.capacity);
        } else if (state.dropped) {
            message = dropped_warning(std::exchange(state.dropped, 0), state.capacity);
        } else {
            break;  // stopping, and everything is delivered
        }
        lock.unlock();
        try {
            state.sink(level, message);
        } catch (...) {
            // A sink that throws loses its line, not the lines after it.
        }
        lock.lock();
    }
    state.lines.clear();
    state.done = true;
    lock.unlock();
    state.ended.notify_all();
    state.sink = nullptr;  // the application's user_data goes here, after the last call
}

}  // namespace queuey

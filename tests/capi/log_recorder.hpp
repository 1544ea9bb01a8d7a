// Records log lines with the threads they arrived on, and can hold the call for the first
// line until the test opens it: a slow syslog or a callback waiting for a lock, made
// certain. Standard library and the public C API only: the unit, capi and integration
// tests share it.
#pragma once

#include <queuey/queuey.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace qyt {

class LogRecorder {
public:
    // With hold_first, the call that records the first line returns only after open(), or
    // after hold at the latest.
    explicit LogRecorder(bool hold_first = false,
                         std::chrono::milliseconds hold = std::chrono::seconds(10))
        : hold_first_(hold_first), hold_(hold) {}

    // Records "<level> <message>" (level as a number), on the caller's thread.
    void record(int level, const std::string &message) {
        std::unique_lock lock(mutex_);
        lines_.push_back(std::to_string(level) + " " + message);
        threads_.push_back(std::this_thread::get_id());
        changed_.notify_all();
        if (hold_first_ && lines_.size() == 1)
            changed_.wait_for(lock, hold_, [this] { return open_; });
    }

    // A qy_log_fn whose user_data is a LogRecorder.
    static void callback(qy_log_level level, const char *message, void *user_data) {
        static_cast<LogRecorder *>(user_data)->record(level, message);
    }
    // Registers callback on opts (this must outlive the clients made from them).
    qy_status install(qy_client_options *opts) {
        return qy_client_options_set_log(opts, &LogRecorder::callback, this, nullptr, nullptr);
    }

    // Lets the call for the first line return.
    void open() {
        std::lock_guard lock(mutex_);
        open_ = true;
        changed_.notify_all();
    }

    bool wait_for_lines(std::size_t count, std::chrono::milliseconds timeout) {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, timeout, [&] { return lines_.size() >= count; });
    }
    std::vector<std::string> lines() const {
        std::lock_guard lock(mutex_);
        return lines_;
    }
    std::vector<std::thread::id> threads() const {  // one entry per line
        std::lock_guard lock(mutex_);
        return threads_;
    }

private:
    const bool hold_first_;
    const std::chrono::milliseconds hold_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<std::string> lines_;
    std::vector<std::thread::id> threads_;
    bool open_ = false;
};

}  // namespace qyt

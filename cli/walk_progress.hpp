// A progress bar on stderr for a command that walks a long queue (dead replay, purge,
// list): while the walk takes the messages one at a time, the queue's ready count falls
// by one per message examined, so a second connection that counts the queue shows how
// far it got, without anything from the walk itself. Drawn only when stderr is a
// terminal and the queue holds more than a few hundred messages.
#pragma once

#include "global_options.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace queuey_cli {

class WalkProgress {
public:
    // Counts queue_name once; starts drawing when there is enough to draw. Never throws:
    // a progress bar that cannot count is no reason to fail the command.
    WalkProgress(const GlobalOptions &global, std::string queue_name, std::string what);
    // Stops drawing and clears the line.
    ~WalkProgress();
    WalkProgress(const WalkProgress &) = delete;
    WalkProgress &operator=(const WalkProgress &) = delete;

private:
    void draw(std::uint64_t examined) const;
    void run();

    const std::string queue_name_, what_;
    std::optional<queuey::Client> client_;
    std::uint64_t total_ = 0;
    std::mutex mutex_;
    std::condition_variable stop_;
    bool stopping_ = false;
    std::thread thread_;
};

// Enough messages to be worth a bar.
inline constexpr std::uint64_t progress_threshold = 300;

}  // namespace queuey_cli

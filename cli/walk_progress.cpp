#include "walk_progress.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace queuey_cli {

namespace {

constexpr int bar_width = 30;
constexpr auto redraw_every = std::chrono::milliseconds(200);

}  // namespace

WalkProgress::WalkProgress(const GlobalOptions &global, std::string queue_name, std::string what)
    : queue_name_(std::move(queue_name)), what_(std::move(what)) {
    if (!isatty(STDERR_FILENO)) return;
    try {
        client_.emplace(global.connect());
        total_ = client_->queue_counts(queue_name_).ready;
    } catch (const std::exception &) {
        client_.reset();
        return;
    }
    if (total_ <= progress_threshold) return;
    draw(0);
    thread_ = std::thread([this] { run(); });
}

WalkProgress::~WalkProgress() {
    if (!thread_.joinable()) return;
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    stop_.notify_one();
    thread_.join();
    std::fprintf(stderr, "\r\033[K");  // the bar's line, cleared for the result line
}

void WalkProgress::draw(std::uint64_t examined) const {
    const int filled = static_cast<int>(bar_width * examined / total_);
    std::fprintf(stderr, "\r[%-*.*s] %llu/%llu %s", bar_width, filled,
                 "##############################", static_cast<unsigned long long>(examined),
                 static_cast<unsigned long long>(total_), what_.c_str());
    std::fflush(stderr);
}

void WalkProgress::run() {
    std::unique_lock lock(mutex_);
    while (!stop_.wait_for(lock, redraw_every, [this] { return stopping_; })) {
        try {
            const std::uint64_t ready = client_->queue_counts(queue_name_).ready;
            draw(ready < total_ ? total_ - ready : 0);
        } catch (const std::exception &) {
            return;  // the queue is gone or the connection lost: the walk will say so
        }
    }
}

}  // namespace queuey_cli

// The like-for-like baseline of a worker with several threads: the drain as a rabbitmq-c
// program with that many handler threads does it. A connection of rabbitmq-c is not
// thread-safe, so one thread reads the deliveries and sends the acks: it hands each
// delivery's tag to the handler threads through a queue, a handler hands the tag back
// when done, and wakes the reader through an eventfd only when the reader sleeps in
// poll. Acks go one per delivery, as raw_run's. What raw_run does not pay: the hand-offs
// that running handlers on other threads costs any program.
#include "raw_amqp.hpp"
#include "workload.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

constexpr int poll_limit_ms = 30'000;  // a broker that says nothing this long is stuck

// Delivery tags on their way to the handlers.
class TagQueue {
public:
    void push(std::uint64_t tag) {
        {
            std::lock_guard lock(mutex_);
            tags_.push_back(tag);
        }
        ready_.notify_one();
    }
    // The next tag, or false once closed.
    bool pop(std::uint64_t &tag) {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return !tags_.empty() || closed_; });
        if (tags_.empty()) return false;
        tag = tags_.front();
        tags_.pop_front();
        return true;
    }
    void close() {
        {
            std::lock_guard lock(mutex_);
            closed_ = true;
        }
        ready_.notify_all();
    }

private:
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::uint64_t> tags_;
    bool closed_ = false;
};

// Tags handed back by the handlers, and the reader's wake-up.
class Handback {
public:
    Handback() : wakeup_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
        if (wakeup_ < 0) throw std::runtime_error("raw_threads: eventfd failed");
    }
    ~Handback() { close(wakeup_); }
    Handback(const Handback &) = delete;
    Handback &operator=(const Handback &) = delete;

    void give(std::uint64_t tag) {
        {
            std::lock_guard lock(mutex_);
            tags_.push_back(tag);
        }
        if (reader_sleeps_.load()) {
            const std::uint64_t one = 1;
            [[maybe_unused]] const ssize_t wrote = write(wakeup_, &one, sizeof one);
        }
    }
    std::vector<std::uint64_t> take() {
        std::vector<std::uint64_t> tags;
        std::lock_guard lock(mutex_);
        tags.swap(tags_);
        return tags;
    }
    // Sleeps in poll until the wake-up, or the socket when watch_socket, is ready;
    // returns whether the socket is. At once when tags were handed back meanwhile.
    bool sleep_until_ready(int socket, bool watch_socket) {
        reader_sleeps_.store(true);  // before the check: a give() after it writes the eventfd
        bool handed;
        {
            std::lock_guard lock(mutex_);
            handed = !tags_.empty();
        }
        pollfd fds[2] = {{wakeup_, POLLIN, 0}, {socket, POLLIN, 0}};
        const int ready = handed ? 1 : poll(fds, watch_socket ? 2 : 1, poll_limit_ms);
        reader_sleeps_.store(false);
        if (ready == 0) throw std::runtime_error("raw_threads: nothing came for 30 s");
        if (fds[0].revents & POLLIN) {
            std::uint64_t count;
            [[maybe_unused]] const ssize_t got = read(wakeup_, &count, sizeof count);
        }
        return !handed && ready > 0 && (fds[1].revents & POLLIN);
    }

private:
    std::mutex mutex_;
    std::vector<std::uint64_t> tags_;
    std::atomic<bool> reader_sleeps_{false};
    int wakeup_;
};

// The handler threads: each takes a tag, runs the no-op, hands the tag back.
class Handlers {
public:
    Handlers(const WorkerWorkload &w, TagQueue &work, Handback &done) : work_(work) {
        for (std::uint32_t i = 0; i < w.concurrency; ++i)
            threads_.emplace_back([&w, &work, &done] {
                for (std::uint64_t tag; work.pop(tag);) {
                    if (w.after_job) w.after_job();
                    done.give(tag);
                }
            });
    }
    ~Handlers() {  // also when the reader throws
        work_.close();
        for (auto &thread : threads_) thread.join();
    }
    Handlers(const Handlers &) = delete;
    Handlers &operator=(const Handlers &) = delete;

private:
    TagQueue &work_;
    std::vector<std::thread> threads_;
};

}  // namespace

Timing raw_threads_run(const WorkerWorkload &w) {
    RawConnection consumer(w.url);
    TagQueue work;
    Handback done;
    const Stopwatch stopwatch;
    const Handlers handlers(w, work, done);  // joined after the timed part, as queuey_run's
    consumer.consume(w.queue, w.prefetch);
    std::size_t received = 0, acked = 0;
    while (acked < w.count) {
        for (const std::uint64_t tag : done.take()) {
            consumer.ack(tag);
            ++acked;
        }
        if (acked == w.count) break;
        const bool more = received < w.count;
        if ((more && consumer.has_buffered_input()) ||
            done.sleep_until_ready(consumer.socket_fd(), more)) {
            work.push(consumer.next_delivery_tag());
            ++received;
        }
    }
    return stopwatch.elapsed();
}

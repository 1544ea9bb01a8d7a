// The harness of the worker tests: one backend-neutral view of "where jobs live", so that
// every behaviour test of the worker runs unchanged on the in-memory backend and on a
// RabbitBackend against the real broker (behaviour.md sections 5, 6 and 9).
//
// What differs between the backends is hidden here, in one place:
// - dead letters: the memory backend keeps them with their reason (its snapshot); on
//   RabbitMQ they are messages in q.dead, read with a plain rabbit-c connection
//   (basic.get) and their x-death-reason header. (Declaring `q.dead` as a logical queue
//   to consume it with queuey would create `q.dead.dead`: not done.)
// - jobs waiting in q: the memory snapshot, or a passive queue.declare's message count.
// - a worker that is lost while holding a job: a memory Delivery dropped unsettled, or a
//   second connection that takes the job and closes without settling it.
#pragma once

#include "backend.hpp"
#include "envelope.hpp"
#include "producer.hpp"
#include "topology.hpp"
#include "worker/worker.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace queuey_wt {

enum class BackendKind { memory, rabbitmq };

std::string name_of(BackendKind kind);

// The step RabbitMQ hold queues are rounded up to in these tests (behaviour.md section 3:
// the default is 1 s, which would make every retry take a second). Not shorter: a hold
// queue's lease is twice its TTL (docs/broker.md "Short holds can lose jobs"), and with
// 50 ms a loaded machine lost a retried job in about 1 of 4,200 runs of the retry policy
// tests, before and after the hand-over's rewrite alike.
inline constexpr std::chrono::milliseconds test_granularity{200};

struct DeadLetter {
    queuey::Envelope envelope;
    std::string reason;
    // RabbitMQ only: the other dead-letter headers (empty / 0 on memory).
    std::string original_queue;
    std::int64_t attempts_header = -1;
};

class BackendUnderTest {
public:
    virtual ~BackendUnderTest() = default;

    virtual BackendKind kind() const = 0;
    virtual std::shared_ptr<queuey::Backend> backend() = 0;

    // A fresh, uniquely named logical queue (delay granularity test_granularity), declared
    // on the backend after tweak changed its config. Removed again at the end (RabbitMQ).
    queuey::QueueConfig declare_queue(const std::function<void(queuey::QueueConfig &)> &tweak = {});

    // Every dead letter of logical queue q so far, oldest first. Thread-safe (a dead-letter
    // hook may call it).
    virtual std::vector<DeadLetter> dead_letters(const std::string &queue) = 0;
    // Jobs waiting in q right now (not held for a delay, not delivered).
    virtual std::size_t ready_count(const std::string &queue) = 0;
    // Jobs delivered from q and not settled. Only the memory backend can tell; RabbitMQ
    // gives nullopt (rabbitmqctl could, but not cheaply).
    virtual std::optional<std::size_t> in_flight_count(const std::string &queue) = 0;
    // Simulates a worker that dies while it runs a job: another consumer takes the next
    // job of q and goes away without settling it. Returns the job taken.
    virtual queuey::Envelope lose_a_worker(const std::string &queue) = 0;

    // The backend another process would have: on RabbitMQ a second connection, with q
    // declared on it; on memory the same backend (nothing outlives a process there).
    virtual std::shared_ptr<queuey::Backend> another_process(const queuey::QueueConfig &queue) = 0;

    // Deletes q.dead behind queuey's back, so that dead-lettering fails (unroutable).
    // False where that cannot be done (memory: queues are never removed).
    virtual bool remove_dead_letter_queue(const std::string &queue) = 0;

    // Enqueues envelope in its queue as a schedule's fire: on RabbitMQ with the headers
    // the scheduler gives a fire (a raw publish); on memory marked as its scheduler marks
    // one. Throws std::runtime_error when it is not enqueued.
    virtual void publish_fire(const queuey::Envelope &envelope,
                              const queuey::ScheduledFire &fire) = 0;

    // Closes backend()'s connection from the broker's side (rabbitmqctl close_connection),
    // as a network blip would; it reconnects. False where there is none (memory).
    virtual bool close_connection() = 0;

    // Removes what the test created (RabbitMQ: q and q.dead).
    virtual void clean_up() = 0;

protected:
    virtual void remember_queue(const std::string &queue) = 0;
};

// Throws std::runtime_error when the broker cannot be had (RabbitMQ).
std::unique_ptr<BackendUnderTest> make_backend(BackendKind kind);

// The fixture of the tests that run on each backend: the backend under test and a
// producer on it. A subclass stops its workers before it calls TearDown().
class OnEachBackend : public ::testing::TestWithParam<BackendKind> {
protected:
    void SetUp() override;
    void TearDown() override;

    std::unique_ptr<BackendUnderTest> under_;
    std::optional<queuey::Producer> producer_;
};

// INSTANTIATE_TEST_SUITE_P(Backends, Suite, ::testing::ValuesIn(each_backend), backend_name).
inline const std::vector<BackendKind> each_backend{BackendKind::memory, BackendKind::rabbitmq};
std::string backend_name(const ::testing::TestParamInfo<BackendKind> &info);

// Polls until done() or timeout.
bool wait_until(const std::function<bool()> &done,
                std::chrono::milliseconds timeout = std::chrono::seconds(10),
                std::chrono::milliseconds step = std::chrono::milliseconds(5));

// What a handler saw of one run.
struct Seen {
    std::string job_id;
    std::string job_type;
    std::uint32_t attempt = 0;
    std::uint32_t deferrals = 0;
    std::uint8_t priority = 0;
    std::string payload;
    std::chrono::steady_clock::time_point at;
};

// Thread-safe record of handler runs.
class Runs {
public:
    void record(const queuey::Job &job);
    std::vector<Seen> all() const;
    std::size_t count() const;
    // Runs of one job, in order.
    std::vector<Seen> of(const std::string &job_id) const;
    bool wait_for(std::size_t n,
                  std::chrono::milliseconds timeout = std::chrono::seconds(10)) const;

private:
    mutable std::mutex mutex_;
    mutable std::condition_variable changed_;
    std::vector<Seen> runs_;
};

// Thread-safe record of dead-letter hook calls.
struct HookCall {
    queuey::Envelope envelope;
    std::string reason;
    // How many dead letters q had when the hook ran (to show it runs before).
    std::optional<std::size_t> dead_letters_then;
};

// Runs a worker on a thread of its own; stops it (shutdown + join) when destroyed.
class WorkerThread {
public:
    explicit WorkerThread(queuey::Worker &worker);
    ~WorkerThread();
    WorkerThread(const WorkerThread &) = delete;
    WorkerThread &operator=(const WorkerThread &) = delete;

    // Waits up to timeout for run() to return; true if it did.
    bool wait_returned(std::chrono::milliseconds timeout);
    bool returned() const;
    std::chrono::steady_clock::time_point returned_at() const;
    // shutdown(), then waits for run() (up to 30 s). Rethrows what run() threw.
    void stop();
    std::exception_ptr failure() const;

private:
    queuey::Worker &worker_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    bool returned_ = false;
    std::chrono::steady_clock::time_point returned_at_;
    std::exception_ptr failure_;
    std::thread thread_;
};

// A retry policy of max_attempts with a fixed delay (zero: none).
queuey::RetryPolicy attempts(std::uint32_t max_attempts,
                             std::chrono::milliseconds delay = std::chrono::milliseconds(0));

}  // namespace queuey_wt

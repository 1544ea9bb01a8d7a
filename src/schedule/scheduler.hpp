// One scheduler process of a cluster (docs/scheduling.md): it joins the election on the
// broker, and while it leads it enqueues each schedule's fires, each with its record. A
// thread of its own owns its connection: the connection's life is the candidacy, so a
// process that dies, or loses its connection, hands the lead to the next at once.
#pragma once

#include "../broker/amqp_session.hpp"
#include "../broker/reconnect_policy.hpp"
#include "../log.hpp"
#include "../mutex.hpp"
#include "../topology.hpp"
#include "schedule.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace queuey {

struct SchedulerOptions {
    std::vector<AmqpUrl> urls;  // tried in turn (the nodes of a cluster)
    SessionOptions session;     // its connection_name is how `queuey schedule list` names a leader
    ReconnectPolicy reconnect;
    Logger logger;
    std::vector<Schedule> schedules;
    // Schedulers of one group elect one leader among them (schedule_queues.hpp); "" is
    // the vhost's default group.
    std::string group;
    // The configs of the queues the schedules fire into, declared when this process takes
    // the lead; a queue without one is declared with QueueConfig's defaults.
    std::vector<QueueConfig> queues;
    // The leader gives its token back and takes it again this often, well inside the
    // broker's consumer timeout (30 min by default), which would otherwise take it.
    std::chrono::milliseconds token_renewal{std::chrono::minutes{10}};
    // How often a scheduler that does not lead reads the leader's definitions, to log how
    // its own differ (once per difference); also when it joins the election.
    std::chrono::milliseconds definitions_check{std::chrono::minutes{1}};
};

// What this process did as leader; every field only grows.
struct SchedulerCounters {
    std::uint64_t fires = 0;      // enqueued and confirmed
    std::uint64_t skipped = 0;    // missed fires the policy skipped
    std::uint64_t caught_up = 0;  // of fires, those enqueued later than the grace
    std::uint64_t leads = 0;      // times this process took the lead
    std::uint64_t failures = 0;   // connections lost or fires refused by the broker
};

// The state a session reads and writes, shared with callers of Scheduler.
struct SchedulerState {
    std::atomic<bool> stopping{false};
    std::atomic<bool> leading{false};
    std::atomic<std::uint64_t> fires{0}, skipped{0}, caught_up{0}, leads{0}, failures{0};
    // The differences from a leader's definitions logged so far (the scheduler's thread
    // only): each is logged once for the process's life.
    std::set<std::string> logged_differences;
};

class Scheduler {
public:
    // Starts the thread. Throws Error(QY_ERR_INVALID_ARGUMENT) for no URL, no schedule, or
    // two schedules of one name.
    explicit Scheduler(SchedulerOptions options);
    ~Scheduler();  // stop()
    Scheduler(const Scheduler &) = delete;
    Scheduler &operator=(const Scheduler &) = delete;

    // Leaves the election (its connection closes: the next candidate leads) and joins the
    // thread. Idempotent.
    void stop();
    bool leading() const { return state_.leading.load(); }
    SchedulerCounters counters() const;

private:
    void run();
    // Waits before reconnect attempt `attempt`; false when stopping or the policy gave up.
    bool wait_to_reconnect(std::uint32_t attempt);

    SchedulerOptions options_;
    SchedulerState state_;
    // Wakes a wait to reconnect when stop() is called; stopping is set under it.
    Mutex wake_mutex_;
    std::condition_variable wake_;
    std::thread thread_;
};

}  // namespace queuey

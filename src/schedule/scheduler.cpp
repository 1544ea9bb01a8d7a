#include "scheduler.hpp"

#include "../error.hpp"
#include "schedule_queues.hpp"
#include "scheduler_session.hpp"

#include <random>
#include <set>

namespace queuey {

namespace {

void check_options(const SchedulerOptions &options) {
    if (options.urls.empty())
        throw Error(QY_ERR_INVALID_ARGUMENT, "urls", "a scheduler needs a broker URL");
    if (options.schedules.empty())
        throw Error(QY_ERR_INVALID_ARGUMENT, "schedules", "a scheduler needs a schedule");
    check_scheduler_group(options.group);
    std::set<std::string> names;
    for (const Schedule &schedule : options.schedules)
        if (!names.insert(schedule.definition().name).second)
            throw Error(QY_ERR_INVALID_ARGUMENT, "name",
                        "two schedules are named \"" + schedule.definition().name + "\"");
}

}  // namespace

Scheduler::Scheduler(SchedulerOptions options) : options_(std::move(options)) {
    check_options(options_);
    thread_ = std::thread([this] { run(); });
}

Scheduler::~Scheduler() { stop(); }

void Scheduler::stop() {
    {
        MutexLock lock(wake_mutex_);
        state_.stopping.store(true);
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

SchedulerCounters Scheduler::counters() const {
    return {state_.fires.load(), state_.skipped.load(), state_.caught_up.load(),
            state_.leads.load(), state_.failures.load()};
}

void Scheduler::run() {
    std::uint32_t attempt = 0;  // connects since the last session that got going
    std::size_t url = 0;
    while (wait_to_reconnect(++attempt)) {
        try {
            AmqpSession session(options_.urls[url], options_.session);
            attempt = 0;
            SchedulerSession(session, options_, state_).run();
        } catch (const Error &e) {
            state_.failures.fetch_add(1);
            options_.logger.warn("scheduler: " + std::string(e.what()) +
                                 (state_.leading.load() ? "; leading no more" : ""));
            url = (url + 1) % options_.urls.size();
        }
        state_.leading.store(false);
    }
}

bool Scheduler::wait_to_reconnect(std::uint32_t attempt) {
    thread_local std::mt19937_64 random{std::random_device{}()};
    const auto wait = options_.reconnect.wait_before(attempt, random);
    if (!wait) return false;
    MutexLock lock(wake_mutex_);
    return !wake_.wait_for(lock.for_wait(), *wait, [this] { return state_.stopping.load(); });
}

}  // namespace queuey

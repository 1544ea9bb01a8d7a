#include "stats_command.hpp"

#include "duration.hpp"
#include "usage_error.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

namespace queuey_cli {

namespace {

using Clock = std::chrono::steady_clock;

struct StatsArguments {
    std::vector<std::string> queues;
    std::vector<std::uint64_t> holds;  // extra hold TTLs to look at, ms
    std::uint64_t granularity_ms = 1000;
    std::string probe_up_to = "5m";
    double watch_seconds = 0;
    std::size_t count = 0;  // reports before --watch stops; 0: until interrupted
};

// One look at one work queue.
struct QueueStats {
    queuey::QueueCounts work;
    std::uint64_t dead = 0;
    std::map<std::uint64_t, std::uint64_t> holds;  // by TTL: the ready messages of each
    std::uint64_t held() const {
        std::uint64_t total = 0;
        for (const auto &[ttl, ready] : holds) total += ready;
        return total;
    }
};

std::string hold_name(const std::string &queue, std::uint64_t ttl_ms) {
    return queue + ".deferred." + std::to_string(ttl_ms);  // the topology's rule (docs/broker.md)
}

// AMQP cannot list queues: the holds are found by name. Every multiple of the delay
// granularity up to the probe limit (the delays a retry policy gives, rounded up as the
// topology rounds them), and the TTLs given with --hold.
std::vector<std::uint64_t> hold_ttls(const StatsArguments &args) {
    if (args.granularity_ms == 0) throw UsageError("--granularity must be at least 1 ms");
    const auto up_to = static_cast<std::uint64_t>(parse_duration(args.probe_up_to).count());
    if (up_to / args.granularity_ms > 100000)
        throw UsageError("--probe-up-to / --granularity: more than 100000 hold queues to look for");
    std::vector<std::uint64_t> ttls;
    for (std::uint64_t ttl = args.granularity_ms; ttl <= up_to; ttl += args.granularity_ms)
        ttls.push_back(ttl);
    ttls.insert(ttls.end(), args.holds.begin(), args.holds.end());
    return ttls;
}

std::optional<queuey::QueueCounts> counts_if_there(queuey::Client &client,
                                                   const std::string &name) {
    try {
        return client.queue_counts(name);
    } catch (const queuey::Error &error) {
        if (error.status() == QY_ERR_NOT_FOUND) return std::nullopt;
        throw;
    }
}

QueueStats look(queuey::Client &client, const std::string &queue,
                const std::vector<std::uint64_t> &ttls) {
    QueueStats stats;
    stats.work = client.queue_counts(queue);  // a missing work queue is an error
    if (const auto dead = counts_if_there(client, queue + ".dead")) stats.dead = dead->ready;
    for (const std::uint64_t ttl : ttls)
        if (const auto hold = counts_if_there(client, hold_name(queue, ttl)))
            stats.holds[ttl] = hold->ready;
    return stats;
}

std::string rate_text(double per_second) {
    char text[32];
    std::snprintf(text, sizeof text, " (%+.1f/s)", per_second);
    return text;
}

void print(const GlobalOptions &global, const std::string &queue, const QueueStats &now,
           const QueueStats *before, double seconds) {
    JsonLine line;
    line.add("queue", queue)
        .add("ready", static_cast<std::int64_t>(now.work.ready))
        .add("consumers", static_cast<std::int64_t>(now.work.consumers))
        .add("held", static_cast<std::int64_t>(now.held()))
        .add("dead", static_cast<std::int64_t>(now.dead));
    std::string holds = "{";
    for (const auto &[ttl, ready] : now.holds)
        holds += std::string(holds.size() > 1 ? "," : "") + json_string(hold_name(queue, ttl)) +
                 ":" + std::to_string(ready);
    line.add_json("holds", holds + "}");
    std::string ready_rate, dead_rate;
    if (before) {
        const auto per_second = [seconds](std::uint64_t after, std::uint64_t earlier) {
            return (static_cast<double>(after) - static_cast<double>(earlier)) / seconds;
        };
        const double ready_per_s = per_second(now.work.ready, before->work.ready);
        const double dead_per_s = per_second(now.dead, before->dead);
        line.add_json("ready_change_per_s", std::to_string(ready_per_s));
        line.add_json("dead_change_per_s", std::to_string(dead_per_s));
        ready_rate = rate_text(ready_per_s);
        dead_rate = rate_text(dead_per_s);
    }
    std::string human = queue + ": " + std::to_string(now.work.ready) + " ready" + ready_rate +
                        ", " + std::to_string(now.work.consumers) + " consumer(s), " +
                        std::to_string(now.held()) + " held in " +
                        std::to_string(now.holds.size()) + " hold queue(s), " +
                        std::to_string(now.dead) + " dead" + dead_rate;
    global.print(line, human);
}

void stats(const GlobalOptions &global, const StatsArguments &args) {
    if (!(args.watch_seconds >= 0) || !std::isfinite(args.watch_seconds))
        throw UsageError("--watch takes a number of seconds");
    const std::vector<std::uint64_t> ttls = hold_ttls(args);
    queuey::Client client = global.connect();
    std::map<std::string, QueueStats> before;
    auto taken = Clock::now();
    for (std::size_t report = 1;; ++report) {
        const double seconds = std::chrono::duration<double>(Clock::now() - taken).count();
        taken = Clock::now();
        for (const std::string &queue : args.queues) {
            const QueueStats now = look(client, queue, ttls);
            const auto earlier = before.find(queue);
            print(global, queue, now, earlier == before.end() ? nullptr : &earlier->second,
                  seconds);
            before[queue] = now;
        }
        std::fflush(stdout);
        if (args.watch_seconds == 0 || (args.count != 0 && report >= args.count)) return;
        std::this_thread::sleep_for(std::chrono::duration<double>(args.watch_seconds));
    }
}

}  // namespace

void add_stats_command(CLI::App &app, const GlobalOptions &global) {
    auto args = std::make_shared<StatsArguments>();
    CLI::App *command = app.add_subcommand(
        "stats",
        "For each work queue: its ready messages and consumers, the jobs held in its hold "
        "queues, and its dead letters. From passive declares (no management plugin): AMQP "
        "has no count of delivered and unacknowledged messages, and cannot list queues, so "
        "the hold queues are looked for by name (QUEUE.deferred.TTL for each multiple of "
        "--granularity up to --probe-up-to, and each --hold). With --watch, the change per "
        "second of the ready and dead counts (jobs in minus jobs out: AMQP cannot tell the "
        "two apart).");
    command->add_option("queues", args->queues, "the work queues")->required();
    command->add_option("--watch", args->watch_seconds,
                        "print again every SECONDS, with rates, until interrupted");
    command->add_option("--count", args->count, "with --watch: stop after this many reports");
    command->add_option("--granularity", args->granularity_ms,
                        "the queues' delay granularity in ms (default 1000)");
    command->add_option("--probe-up-to", args->probe_up_to,
                        "the longest hold to look for (default 5m)");
    command->add_option("--hold", args->holds, "also look for the hold of this TTL in ms");
    command->callback([&global, args] { stats(global, *args); });
}

}  // namespace queuey_cli

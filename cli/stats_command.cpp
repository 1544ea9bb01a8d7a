#include "stats_command.hpp"

#include "duration.hpp"
#include "queue_names.hpp"
#include "usage_error.hpp"
#include "utf8_text.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
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
    std::size_t count = 0;   // reports before --watch stops; 0: until interrupted
    bool consumers = false;  // --consumers: each consumer of the queue (management API)
};

// One look at one work queue.
struct QueueStats {
    queuey::QueueCounts work;
    std::uint64_t dead = 0;
    std::map<std::uint64_t, std::uint64_t> holds;  // by TTL: the ready messages of each
    std::optional<std::uint64_t> unacknowledged;   // known to the management API only
    std::vector<ManagedConsumer> consumers;        // with --consumers
    std::uint64_t held() const {
        std::uint64_t total = 0;
        for (const auto &[ttl, ready] : holds) total += ready;
        return total;
    }
};

// Without the management API the holds are found by name (AMQP cannot list queues). Every multiple
// of the delay granularity up to the probe limit (the delays a retry policy gives, rounded up as
// the topology rounds them), and the TTLs given with --hold.
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

// The TTLs of the holds named in the queue's hold index (src/hold_index.hpp), which queuey
// keeps without the management API: browsed, not consumed. An entry that names no hold of
// this queue is passed over; a queue only the Rust crates used has no index.
std::set<std::uint64_t> indexed_hold_ttls(queuey::Client &client, const std::string &queue) {
    std::set<std::uint64_t> ttls;
    try {
        client.browse(hold_index_name(queue), [&](const queuey::MessageView &entry) {
            if (const auto ttl = hold_ttl_of(queue, std::string(entry.body()))) ttls.insert(*ttl);
            return true;
        });
    } catch (const queuey::Error &error) {
        if (error.status() != QY_ERR_NOT_FOUND) throw;
    }
    return ttls;
}

// Where the holds and the unacknowledged count come from: every queue of the vhost as the
// management API listed it, or the hold TTLs to probe by name.
struct HoldSource {
    std::optional<std::vector<ManagedQueue>> listed;
    std::vector<std::uint64_t> probed_ttls;
};

QueueStats look(queuey::Client &client, const std::string &queue, const HoldSource &source) {
    QueueStats stats;
    stats.work = client.queue_counts(queue);  // a missing work queue is an error
    if (const auto dead = counts_if_there(client, dead_name(queue))) stats.dead = dead->ready;
    if (source.listed) {
        // The API names the holds; their counts come from AMQP, which is exact now, where
        // the API's lag its statistics interval (a hold declared a moment ago shows 0).
        for (const ManagedQueue &listed : *source.listed) {
            if (listed.name == queue) stats.unacknowledged = listed.unacknowledged;
            if (const auto ttl = hold_ttl_of(queue, listed.name))
                if (const auto hold = counts_if_there(client, listed.name))
                    stats.holds[*ttl] = hold->ready;
        }
        return stats;
    }
    std::set<std::uint64_t> ttls(source.probed_ttls.begin(), source.probed_ttls.end());
    ttls.merge(indexed_hold_ttls(client, queue));
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

std::string consumers_json(const std::vector<ManagedConsumer> &consumers) {
    std::string json = "[";
    for (const ManagedConsumer &consumer : consumers) {
        JsonLine item;
        item.add("tag", consumer.tag)
            .add("connection_name", consumer.connection_name)
            .add("peer", consumer.peer)
            .add("prefetch", static_cast<std::int64_t>(consumer.prefetch))
            .add("ack_required", consumer.ack_required);
        json += (json.size() > 1 ? "," : "") + item.str();
    }
    return json + "]";
}

std::string consumer_lines(const std::vector<ManagedConsumer> &consumers) {
    std::string lines;
    for (const ManagedConsumer &consumer : consumers)
        lines += "\n  consumer " + terminal_text(consumer.tag) + ": connection '" +
                 terminal_text(consumer.connection_name) + "' from " + consumer.peer +
                 ", prefetch " +
                 (consumer.prefetch == 0 ? "unlimited" : std::to_string(consumer.prefetch)) +
                 (consumer.ack_required ? "" : ", no acks");
    return lines;
}

void print(const GlobalOptions &global, const std::string &queue, const QueueStats &now,
           const QueueStats *before, double seconds, const std::string &holds_counted) {
    JsonLine line;
    line.add("queue", queue)
        .add("ready", static_cast<std::int64_t>(now.work.ready))
        .add("consumers", static_cast<std::int64_t>(now.work.consumers))
        .add("held", static_cast<std::int64_t>(now.held()))
        .add("holds_counted", holds_counted)
        .add("dead", static_cast<std::int64_t>(now.dead));
    if (now.unacknowledged)
        line.add("unacknowledged", static_cast<std::int64_t>(*now.unacknowledged));
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
    std::string human =
        queue + ": " + std::to_string(now.work.ready) + " ready" + ready_rate + ", " +
        (now.unacknowledged ? std::to_string(*now.unacknowledged) + " unacknowledged, " : "") +
        std::to_string(now.work.consumers) + " consumer(s), " + std::to_string(now.held()) +
        " held in " + std::to_string(now.holds.size()) + " hold queue(s)" +
        (holds_counted == "all" ? "" : " (" + holds_counted + ")") + ", " +
        std::to_string(now.dead) + " dead" + dead_rate;
    if (!now.consumers.empty()) {
        line.add_json("consumer_details", consumers_json(now.consumers));
        human += consumer_lines(now.consumers);
    }
    global.print(line, human);
}

void stats(const GlobalOptions &global, const StatsArguments &args) {
    if (!(args.watch_seconds >= 0) || !std::isfinite(args.watch_seconds))
        throw UsageError("--watch takes a number of seconds");
    const std::optional<ManagementApi> management = global.management();
    if (args.consumers && !management)
        throw UsageError(
            "--consumers needs RabbitMQ's management API: pass --management-url "
            "or set QUEUEY_MANAGEMENT_URL (AMQP cannot list a queue's consumers)");
    HoldSource source;
    // With the API every hold queue is listed; without it, those queuey indexed and those
    // up to --probe-up-to (the Rust crates index none).
    const std::string holds_counted =
        management ? "all" : "indexed, and up to " + args.probe_up_to + " probed";
    if (!management) source.probed_ttls = hold_ttls(args);
    queuey::Client client = global.connect();
    std::map<std::string, QueueStats> before;
    auto taken = Clock::now();
    for (std::size_t report = 1;; ++report) {
        const double seconds = std::chrono::duration<double>(Clock::now() - taken).count();
        taken = Clock::now();
        if (management) source.listed = management->queues();
        for (const std::string &queue : args.queues) {
            QueueStats now = look(client, queue, source);
            if (args.consumers) now.consumers = management->consumers_of(queue);
            const auto earlier = before.find(queue);
            print(global, queue, now, earlier == before.end() ? nullptr : &earlier->second, seconds,
                  holds_counted);
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
        "queues, and its dead letters. With the management API (--management-url) every "
        "hold queue is counted, and the unacknowledged jobs (--consumers: each consumer). "
        "Without it, from passive declares: AMQP has no count of unacknowledged messages and "
        "cannot list queues, so the hold queues are those named in QUEUE.deferred.index (where "
        "queuey notes each hold queue it declares) and those found by name (QUEUE.deferred.TTL "
        "for each multiple of --granularity up to --probe-up-to, and each --hold). With "
        "--watch, the change per second of the ready and dead counts (jobs in minus jobs "
        "out: AMQP cannot tell the two apart).");
    command->add_option("queues", args->queues, "the work queues")->required();
    command->add_option("--watch", args->watch_seconds,
                        "print again every SECONDS, with rates, until interrupted");
    command->add_option("--count", args->count, "with --watch: stop after this many reports");
    command->add_option("--granularity", args->granularity_ms,
                        "the queues' delay granularity in ms (default 1000)");
    command->add_option("--probe-up-to", args->probe_up_to,
                        "the longest hold to look for (default 5m)");
    command->add_option("--hold", args->holds, "also look for the hold of this TTL in ms");
    command->add_flag("--consumers", args->consumers,
                      "each consumer of the queue: its connection's name, peer and prefetch "
                      "(needs the management API)");
    command->callback([&global, args] { stats(global, *args); });
}

}  // namespace queuey_cli

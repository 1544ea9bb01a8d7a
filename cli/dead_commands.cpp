#include "dead_commands.hpp"

#include "message_filter_options.hpp"
#include "message_lines.hpp"
#include "pretty_json.hpp"
#include "usage_error.hpp"
#include "utf8_text.hpp"
#include "walk_progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>

namespace queuey_cli {

namespace {

std::string dead_queue(const std::string &queue) { return queue + ".dead"; }

struct DeadArguments {
    std::string queue, job_id;
    FilterArguments filter;
    std::size_t limit = 100;
    bool keep_attempt = false, yes = false;
};

void list(const GlobalOptions &global, const DeadArguments &args) {
    const queuey::MessageFilter filter = build_filter(args.filter, false);
    queuey::Client client = global.connect();
    const std::uint64_t now = now_ms();
    std::size_t shown = 0;
    client.browse(
        dead_queue(args.queue),
        [&](const queuey::MessageView &message) {
            global.print(message_json(message, now), message_human(message, now));
            ++shown;
            return true;
        },
        &filter, args.limit);
    if (global.json) return;
    std::printf("%zu dead letter(s) of '%s' shown%s\n", shown, args.queue.c_str(),
                args.limit != 0 && shown == args.limit ? " (the limit; --limit 0 shows all)" : "");
}

void show(const GlobalOptions &global, const DeadArguments &args) {
    queuey::Client client = global.connect();
    queuey::MessageFilter filter;
    filter.job_id(args.job_id);
    bool found = false;
    const std::uint64_t now = now_ms();
    client.browse(
        dead_queue(args.queue),
        [&](const queuey::MessageView &message) {
            found = true;
            if (global.json) {
                JsonLine line = message_json(message, now);
                line.add_json("headers", message.headers_json());
                if (message.envelope())
                    line.add_json("envelope", message.body());
                else
                    line.add("body", message.body());
                global.print(line, "");
                return false;
            }
            std::printf("%s\n", message_human(message, now).c_str());
            if (const auto envelope = message.envelope()) {
                std::printf(
                    "envelope:\n  queue %s, attempt %u, deferrals %u, priority %u, "
                    "enqueued %s%s%s\n",
                    std::string(envelope->queue()).c_str(), envelope->attempt(),
                    envelope->deferrals(), unsigned(envelope->priority()),
                    utc_time(envelope->enqueued_at_ms()).c_str(),
                    envelope->correlation_id().empty() ? "" : ", correlation id ",
                    std::string(envelope->correlation_id()).c_str());
                std::printf("payload:\n  %s\n", pretty_json(envelope->payload(), "  ").c_str());
            } else {
                std::printf("body (not an envelope):\n  %s\n", std::string(message.body()).c_str());
            }
            std::printf("headers:\n  %s\n", pretty_json(message.headers_json(), "  ").c_str());
            // The exception's type and traceback as they were written, line by line (in
            // the headers above they are one JSON string, newlines escaped).
            const std::string exception = json_string_member(message.headers_json(), "x-exception");
            if (!exception.empty()) {
                std::printf("exception:\n");
                std::size_t start = 0;
                while (start < exception.size()) {
                    const std::size_t end = std::min(exception.find('\n', start), exception.size());
                    const std::string_view line(exception.data() + start, end - start);
                    std::printf("  %s\n", terminal_text(line).c_str());
                    start = end + 1;
                }
            }
            return false;  // the first copy; a job dead-lettered twice has two
        },
        &filter, 1);
    if (!found)
        throw queuey::Error(QY_ERR_NOT_FOUND, "no dead letter with job id " + args.job_id +
                                                  " in '" + dead_queue(args.queue) + "'");
}

// Runs a walk over QUEUE.dead with a progress bar, then reports what it did, also when
// it failed (then before the failure's line on stderr).
void walk_then_report(const GlobalOptions &global, const std::string &queue,
                      const std::function<void()> &walk, const std::function<void()> &report) {
    try {
        WalkProgress progress(global, dead_queue(queue), "dead letters examined");
        walk();
    } catch (const queuey::Error &) {
        report();
        throw;
    }
    report();
}

void replay(const GlobalOptions &global, const DeadArguments &args) {
    const queuey::MessageFilter filter = build_filter(args.filter, true);
    queuey::Client client = global.connect();
    uint64_t replayed = 0;
    auto report = [&] {
        JsonLine line;
        line.add("queue", args.queue).add("replayed", static_cast<std::int64_t>(replayed));
        global.print(line, "replayed " + std::to_string(replayed) + " dead letter(s) of '" +
                               args.queue + "'" + (args.keep_attempt ? "" : " as attempt 1"));
    };
    walk_then_report(
        global, args.queue,
        [&] { client.replay_dead_letters(args.queue, &filter, args.keep_attempt, &replayed); },
        report);
}

// The dead letters purge would remove, counted by a browse.
std::uint64_t count_selected(queuey::Client &client, const std::string &queue,
                             const queuey::MessageFilter &filter) {
    std::uint64_t count = 0;
    client.browse(
        dead_queue(queue),
        [&](const queuey::MessageView &) {
            ++count;
            return true;
        },
        &filter);
    return count;
}

void purge(const GlobalOptions &global, const DeadArguments &args) {
    const queuey::MessageFilter filter = build_filter(args.filter, true);
    queuey::Client client = global.connect();
    if (!args.yes) {
        if (!isatty(STDIN_FILENO))
            throw UsageError(
                "purge removes dead letters for good: confirm with --yes when "
                "standard input is not a terminal");
        const std::uint64_t selected = count_selected(client, args.queue, filter);
        std::fprintf(stderr, "remove %llu dead letter(s) of '%s' for good? [y/N] ",
                     static_cast<unsigned long long>(selected), args.queue.c_str());
        std::string answer;
        std::getline(std::cin, answer);
        if (answer != "y" && answer != "yes") {
            std::fprintf(stderr, "nothing removed\n");
            return;
        }
    }
    uint64_t purged = 0;
    auto report = [&] {
        JsonLine line;
        line.add("queue", args.queue).add("purged", static_cast<std::int64_t>(purged));
        global.print(
            line, "removed " + std::to_string(purged) + " dead letter(s) of '" + args.queue + "'");
    };
    walk_then_report(
        global, args.queue, [&] { client.purge_dead_letters(args.queue, &filter, &purged); },
        report);
}

CLI::App *add_queue(CLI::App *command, DeadArguments &args) {
    command->add_option("queue", args.queue, "the work queue whose dead letters (QUEUE.dead)")
        ->required();
    return command;
}

}  // namespace

void add_dead_command(CLI::App &app, const GlobalOptions &global) {
    auto args = std::make_shared<DeadArguments>();
    CLI::App *dead = app.add_subcommand(
        "dead",
        "The dead letters of a work queue QUEUE (in QUEUE.dead): list, show, replay, purge.");
    dead->require_subcommand(1);

    CLI::App *list_command = add_queue(
        dead->add_subcommand("list",
                             "Lists dead letters (job id, type, attempt, age, original queue, "
                             "reason) in queue order. Leaves the queue exactly as it was."),
        *args);
    list_command->add_option("--limit", args->limit, "at most this many (default 100; 0: all)");
    add_filter_options(*list_command, args->filter, false);
    list_command->callback([&global, args] { list(global, *args); });

    CLI::App *show_command =
        add_queue(dead->add_subcommand("show",
                                       "Shows one dead letter: its envelope, pretty-printed "
                                       "payload and every header. Leaves the queue as it was."),
                  *args);
    show_command->add_option("job_id", args->job_id, "the job id")->required();
    show_command->callback([&global, args] { show(global, *args); });

    CLI::App *replay_command = add_queue(
        dead->add_subcommand(
            "replay",
            "Puts dead letters back on their original queue as attempt 1 with 0 deferrals "
            "(same job id, type, payload, correlation id), without the dead-letter headers; "
            "each leaves QUEUE.dead only once the broker confirmed its replay, so a crash "
            "duplicates and never loses. Prints how many were replayed."),
        *args);
    add_filter_options(*replay_command, args->filter, true);
    replay_command->add_flag("--keep-attempt", args->keep_attempt,
                             "replay the envelope as it is (its attempt and deferrals)");
    replay_command->callback([&global, args] { replay(global, *args); });

    CLI::App *purge_command =
        add_queue(dead->add_subcommand("purge",
                                       "Removes dead letters for good; asks first on a terminal. "
                                       "Prints how many were removed."),
                  *args);
    add_filter_options(*purge_command, args->filter, true);
    purge_command->add_flag("--yes", args->yes, "do not ask (needed when stdin is no terminal)");
    purge_command->callback([&global, args] { purge(global, *args); });
}

}  // namespace queuey_cli

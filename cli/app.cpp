#include "app.hpp"

#include "broker_url.hpp"
#include "dead_commands.hpp"
#include "enqueue_command.hpp"
#include "global_options.hpp"
#include "peek_command.hpp"
#include "queues_command.hpp"
#include "schedule_command.hpp"
#include "stats_command.hpp"
#include "usage_error.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>

namespace queuey_cli {

namespace {

constexpr int exit_failed = 1;
constexpr int exit_usage = 2;

// One line on stderr; a URL in the message never shows its password.
int fail(int status, const std::string &message) {
    std::fprintf(stderr, "queuey: %s\n", message.c_str());
    return status;
}

}  // namespace

int run(int argc, char **argv) {
    GlobalOptions global;
    CLI::App app{
        "queuey: jobs on RabbitMQ, for the person on call. Every command takes --url (or "
        "$QUEUEY_URL) and --json (one JSON object a line on stdout). Exit status: 0 done, "
        "1 failed, 2 not a valid command line.",
        "queuey"};
    app.set_version_flag("--version", qy_version_string());
    app.add_option("--url", global.url,
                   "the broker, amqp://user:pass@host:5672/vhost (a list URL,URL,... for a "
                   "cluster); default $QUEUEY_URL");
    app.add_flag("--json", global.json, "one JSON object a line on stdout");
    app.add_option("--management-url", global.management_url,
                   "RabbitMQ's management API, http://user:pass@host:15672, where the plugin "
                   "is enabled: stats then counts every hold queue, unacknowledged jobs and "
                   "consumers, and `queues` lists the queues; default $QUEUEY_MANAGEMENT_URL");
    app.require_subcommand(1);
    app.fallthrough();  // --url and --json also after the command
    add_enqueue_command(app, global);
    add_stats_command(app, global);
    add_dead_command(app, global);
    add_peek_command(app, global);
    add_queues_command(app, global);
    add_schedule_command(app, global);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &error) {
        const int status = app.exit(error);  // prints the message, or the help
        return status == 0 ? 0 : exit_usage;
    } catch (const UsageError &error) {
        return fail(exit_usage, redacted(error.what()));
    } catch (const queuey::Error &error) {
        return fail(exit_failed, std::string(error.status_name()) + ": " + redacted(error.what()));
    } catch (const std::exception &error) {
        return fail(exit_failed, redacted(error.what()));
    }
    return 0;
}

}  // namespace queuey_cli

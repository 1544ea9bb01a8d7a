#include "peek_command.hpp"

#include "message_lines.hpp"

#include <cstdio>
#include <memory>

namespace queuey_cli {

namespace {

struct PeekArguments {
    std::string queue;
    std::size_t limit = 10;
};

void peek(const GlobalOptions &global, const PeekArguments &args) {
    queuey::Client client = global.connect();
    const std::uint64_t now = now_ms();
    std::size_t shown = 0;
    client.browse(
        args.queue,
        [&](const queuey::MessageView &message) {
            JsonLine line = message_json(message, now);
            if (const auto envelope = message.envelope())
                line.add_json("payload", envelope->payload());
            global.print(line, message_human(message, now));
            ++shown;
            return true;
        },
        nullptr, args.limit);
    if (!global.json) std::printf("%zu job(s) of '%s' shown\n", shown, args.queue.c_str());
}

}  // namespace

void add_peek_command(CLI::App &app, const GlobalOptions &global) {
    auto args = std::make_shared<PeekArguments>();
    CLI::App *command = app.add_subcommand(
        "peek",
        "Shows the next jobs of QUEUE (any queue: a work queue, QUEUE.dead) and leaves them "
        "where they are. What it costs: each job shown goes back marked redelivered, and a "
        "worker that receives it next counts it as one lost run (3 are allowed by default, "
        "docs/worker.md; on a quorum queue one x-delivery-count): so peek a busy work queue "
        "rarely and with a small --limit; while the peek lasts, the jobs it holds are not "
        "delivered.");
    command->add_option("queue", args->queue, "the queue's full name")->required();
    command->add_option("--limit", args->limit, "at most this many (default 10; 0: all)");
    command->callback([&global, args] { peek(global, *args); });
}

}  // namespace queuey_cli

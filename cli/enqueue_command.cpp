#include "enqueue_command.hpp"

#include "duration.hpp"

#include <iostream>
#include <iterator>
#include <memory>
#include <stdexcept>

namespace queuey_cli {

namespace {

struct EnqueueArguments {
    std::string queue, job_type, payload = "{}", after, correlation_id, queue_type = "classic";
    const CLI::Option *after_given = nullptr;  // --after "" is a bad duration, not none
};

std::string read_stdin() {
    std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    if (std::cin.bad()) throw std::runtime_error("could not read the payload from standard input");
    return text;
}

void enqueue(const GlobalOptions &global, const EnqueueArguments &args) {
    const auto delay =
        args.after_given->count() == 0 ? std::chrono::milliseconds(-1) : parse_duration(args.after);
    const std::string payload = args.payload == "-" ? read_stdin() : args.payload;
    queuey::Envelope envelope(args.job_type, args.queue, payload);
    if (!args.correlation_id.empty()) envelope.set_correlation_id(args.correlation_id);

    queuey::Client client = global.connect();
    queuey::Producer producer(client);
    if (delay.count() < 0) {
        producer.enqueue(envelope);  // an unknown queue's error names it
    } else {
        // A held job routes back to its queue by name: the client must declare it first.
        client.declare(queuey::QueueConfig(args.queue)
                           .type(args.queue_type == "quorum" ? queuey::QueueType::quorum
                                                             : queuey::QueueType::classic));
        producer.enqueue_after(envelope, delay);
    }
    JsonLine line;
    line.add("queue", args.queue).add("job_id", envelope.job_id()).add("job_type", args.job_type);
    if (delay.count() >= 0) line.add("after_ms", delay.count());
    global.print(line, "enqueued job " + std::string(envelope.job_id()) + " (" + args.job_type +
                           ") on queue '" + args.queue + "'" +
                           (delay.count() < 0 ? "" : ", to run in " + describe_duration(delay)));
}

}  // namespace

void add_enqueue_command(CLI::App &app, const GlobalOptions &global) {
    auto args = std::make_shared<EnqueueArguments>();
    CLI::App *command = app.add_subcommand(
        "enqueue",
        "Puts one job on QUEUE and waits for the broker's confirm. Without --after the queue "
        "must exist (an unknown queue is an error, nothing is created); with --after the "
        "queue is declared first with queuey's defaults and --queue-type, as any producer "
        "declares it.");
    command->add_option("queue", args->queue, "the logical queue")->required();
    command->add_option("job_type", args->job_type, "the job type its workers route on")
        ->required();
    command->add_option("payload", args->payload,
                        "the payload, one JSON value (default {}); - reads it from stdin");
    args->after_given =
        command->add_option("--after", args->after,
                            "run it no sooner than this from now: 30s, 5m, 1h30m (ms, s, m, h, d)");
    command->add_option("--correlation-id", args->correlation_id, "the job's correlation id");
    command
        ->add_option("--queue-type", args->queue_type,
                     "with --after: the queue's type, classic (default) or quorum")
        ->check(CLI::IsMember({"classic", "quorum"}));
    command->callback([&global, args] { enqueue(global, *args); });
}

}  // namespace queuey_cli

// worker.cpp: runs the render_report jobs of the queue example.reports with 4 threads
// until COUNT of them (default 100) have succeeded, with queuey.hpp. A report whose
// data is not ready (here: every tenth, on its first run) is deferred for a second.
//
//   worker [URL [COUNT]]        URL defaults to $QUEUEY_URL
#include <queuey/queuey.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace std::chrono_literals;

int main(int argc, char **argv) try {
    const char *url = argc > 1 ? argv[1] : std::getenv("QUEUEY_URL");
    const unsigned wanted = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 100;
    if (url == nullptr) {
        std::fprintf(stderr, "usage: worker [URL [COUNT]] (or set QUEUEY_URL)\n");
        return 2;
    }
    queuey::ClientOptions options;
    options.log([](qy_log_level level, std::string_view message) {
        if (level >= QY_LOG_WARN)
            std::fprintf(stderr, "queuey: %.*s\n", int(message.size()), message.data());
    });
    queuey::Client client(url, options);
    client.declare(queuey::QueueConfig("example.reports"));

    queuey::Worker worker(client, {"example.reports"});
    std::atomic<unsigned> seen{0}, done{0};
    // Ctrl-C or SIGTERM (a deploy): run() returns once what was received is settled.
    worker.concurrency(4).shutdown_on_signals().handle("render_report", [&](queuey::Job &job) {
        if (job.deferrals() == 0 && seen++ % 10 == 9) return job.defer(1s, "data not ready yet");
        std::printf("rendered %.*s\n", int(job.payload().size()), job.payload().data());
        if (++done == wanted) worker.shutdown();  // run() returns once running jobs settled
        return queuey::Outcome::success;
    });
    worker.run();
    std::printf("done: %u rendered, %llu deferrals\n", done.load(),
                static_cast<unsigned long long>(worker.counter(queuey::Counter::deferred)));
    return 0;
} catch (const queuey::Error &e) {
    std::fprintf(stderr, "worker: %s: %s\n", e.status_name(), e.what());
    return 1;
}

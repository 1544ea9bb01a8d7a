// counting_worker URL QUEUE COUNT SECONDS: a queuey worker on QUEUE (declared with
// queuey's defaults) that runs every job of type "bulk" by printing its job id and
// attempt, one line each, and stops once COUNT distinct jobs have run or after SECONDS.
// It prints "ready" once QUEUE is declared, and last "ran N distinct job(s) in M run(s)".
// The cli suite runs it beside `queuey dead replay` to count what a replay delivers.
#include <queuey/queuey.hpp>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <thread>

int main(int argc, char **argv) try {
    if (argc != 5) {
        std::fprintf(stderr, "usage: counting_worker URL QUEUE COUNT SECONDS\n");
        return 2;
    }
    const std::string queue = argv[2];
    const std::size_t wanted = std::strtoul(argv[3], nullptr, 10);
    const auto give_up_after = std::chrono::seconds(std::strtoul(argv[4], nullptr, 10));

    queuey::Client client(argv[1]);
    client.declare(queuey::QueueConfig(queue));
    queuey::Worker worker(client, {queue});

    std::mutex mutex;
    std::condition_variable finished;
    bool stopped = false;
    std::set<std::string, std::less<>> distinct;
    std::size_t runs = 0;
    worker.concurrency(4).handle("bulk", [&](queuey::Job &job) {
        std::lock_guard lock(mutex);
        std::printf("%.*s %u\n", int(job.job_id().size()), job.job_id().data(), job.attempt());
        ++runs;
        distinct.emplace(job.job_id());
        if (distinct.size() == wanted) finished.notify_one();
        return QY_JOB_SUCCESS;
    });
    // Stops the worker once COUNT jobs ran, or at the deadline; run() settles what it holds.
    std::thread stopper([&] {
        std::unique_lock lock(mutex);
        finished.wait_for(lock, give_up_after,
                          [&] { return stopped || distinct.size() >= wanted; });
        worker.shutdown();
    });
    std::printf("ready\n");
    std::fflush(stdout);
    try {
        worker.run();
    } catch (...) {
        {
            std::lock_guard lock(mutex);
            stopped = true;
        }
        finished.notify_one();
        stopper.join();
        throw;
    }
    stopper.join();
    std::printf("ran %zu distinct job(s) in %zu run(s)\n", distinct.size(), runs);
    return 0;
} catch (const queuey::Error &e) {
    std::fprintf(stderr, "counting_worker: %s: %s\n", e.status_name(), e.what());
    return 1;
}

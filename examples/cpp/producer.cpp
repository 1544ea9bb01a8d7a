// producer.cpp: puts COUNT render_report jobs (default 100) on the queue example.reports,
// all in one batch, with queuey.hpp.
//
//   producer [URL [COUNT]]      URL defaults to $QUEUEY_URL
#include <queuey/queuey.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char **argv) try {
    const char *url = argc > 1 ? argv[1] : std::getenv("QUEUEY_URL");
    const int count = argc > 2 ? std::atoi(argv[2]) : 100;
    if (url == nullptr) {
        std::fprintf(stderr, "usage: producer [URL [COUNT]] (or set QUEUEY_URL)\n");
        return 2;
    }
    queuey::Client client(url);
    client.declare(queuey::QueueConfig("example.reports"));
    queuey::Producer producer(client);

    std::vector<queuey::Envelope> jobs;
    for (int i = 0; i < count; ++i)
        jobs.emplace_back("render_report", "example.reports",
                          R"({"report":"sales-)" + std::to_string(i) + R"(","format":"pdf"})");
    producer.enqueue_batch(jobs);  // returns once the broker has confirmed every job
    std::printf("enqueued %zu jobs, the first %s\n", jobs.size(),
                jobs.empty() ? "-" : std::string(jobs[0].job_id()).c_str());
    return 0;
} catch (const queuey::Error &e) {
    std::fprintf(stderr, "producer: %s: %s\n", e.status_name(), e.what());
    return 1;
}

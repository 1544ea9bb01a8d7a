// producers_bench: many threads enqueueing through one queuey client against raw
// rabbitmq-c pipelining the same publishes on the same broker in the same run (issue 14).
// Runs alternate raw (window T), raw (window W), queuey (T threads) on a freshly declared
// queue; each figure is the median of the runs. See flags.cpp for the command line and
// what it prints. stderr: every run.
#include "flags.hpp"
#include "jobs.hpp"
#include "raw_amqp.hpp"
#include "report.hpp"
#include "sides.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// A contender at one thread count, and the percentiles of each of its runs.
struct Contender {
    std::string name;   // in the runs on stderr and the latency line
    std::string label;  // in its report lines
    std::function<ProducerRun(const Workload &)> run;
    std::vector<double> p50_us{}, p99_us{};  // filled by the runs
};

// The nearest-rank percentile (0 < p <= 1) of values (not empty).
double percentile(std::vector<double> &values, double p) {
    const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(values.size())));
    const auto nth =
        values.begin() + static_cast<std::ptrdiff_t>(std::max<std::size_t>(rank, 1) - 1);
    std::nth_element(values.begin(), nth, values.end());
    return *nth;
}

// One timed run on a fresh queue, checked afterwards; its percentiles go to contender.
Sample run_once(RawConnection &admin, Contender &contender, const Workload &w) {
    admin.delete_queue(w.queue);
    admin.declare_queue(w.queue, w.shape);
    ProducerRun run = contender.run(w);
    if (const std::uint32_t ready = admin.ready_count(w.queue); ready != w.count)
        throw std::runtime_error(contender.name + ": " + std::to_string(ready) +
                                 " jobs in the queue afterwards, expected " +
                                 std::to_string(w.count));
    if (run.latencies_us.size() != w.count)
        throw std::runtime_error(contender.name + ": " + std::to_string(run.latencies_us.size()) +
                                 " latencies for " + std::to_string(w.count) + " jobs");
    contender.p50_us.push_back(percentile(run.latencies_us, 0.50));
    contender.p99_us.push_back(percentile(run.latencies_us, 0.99));
    return sample_of(run.timing, w.count);
}

// "NAME p50 X us, p99 Y us" of the contenders named queuey and raw that ran, "; " between.
std::string latency_line(const std::vector<Contender> &contenders) {
    std::string line;
    for (const char *name : {"queuey", "raw"}) {
        for (const Contender &c : contenders) {
            if (c.name != name) continue;
            char text[128];
            std::snprintf(text, sizeof text, "%s p50 %.0f us, p99 %.0f us", name, median(c.p50_us),
                          median(c.p99_us));
            line += (line.empty() ? "" : "; ") + std::string(text);
        }
    }
    return line;
}

void run_thread_count(RawConnection &admin, const Flags &flags, const JobSet &jobs,
                      std::size_t threads) {
    const Workload w{flags.url, flags.queue, &jobs, flags.jobs * threads, flags.shape};
    const std::string label = flags.label("producers_t" + std::to_string(threads));
    const std::string window = "raw_window=" + std::to_string(flags.ceiling);
    std::vector<Contender> contenders;  // raw first: the runs go raw, queuey, raw, ...
    if (flags.side != "queuey") {
        contenders.push_back(
            {"raw", label, [=](const Workload &work) { return raw_run(work, threads); }});
        if (flags.ceiling > threads)
            contenders.push_back({window, label + " " + window, [&](const Workload &work) {
                                      return raw_run(work, flags.ceiling);
                                  }});
        if (threads > 1)  // one blocking thread is the window-1 run above
            contenders.push_back({"raw_blocking", label + " raw_blocking",
                                  [=](const Workload &work) {
                                      return raw_blocking_run(work, threads);
                                  }});
    }
    if (flags.side != "raw")
        contenders.push_back(
            {"queuey", label, [=](const Workload &work) { return queuey_run(work, threads); }});

    std::vector<Side> sides;
    for (Contender &contender : contenders)
        sides.push_back({contender.name.c_str(),
                         [&admin, &contender, &w] { return run_once(admin, contender, w); }});
    const std::vector<Sample> medians = measure_interleaved(sides, flags.runs, label);

    if (flags.side.empty()) {
        print_pair(label, medians.back(), medians.front(), true);
        for (std::size_t i = 1; i + 1 < contenders.size(); ++i)
            print_pair(contenders[i].label, medians.back(), medians[i], false);
    } else {
        for (std::size_t i = 0; i < contenders.size(); ++i)
            print_one(contenders[i].label, flags.side.c_str(), medians[i]);
    }
    std::printf("latency %s: %s\n", label.c_str(), latency_line(contenders).c_str());
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char **argv) {
    const Flags flags = parse_flags(argc, argv);
    try {
        const JobSet jobs(flags.queue, flags.most_jobs(), flags.payload_bytes);
        std::fprintf(stderr,
                     "producers_bench: %zu-byte bodies, %zu jobs per thread, %zu runs per side, %s "
                     "queue %s\n",
                     jobs[0].message.body.size(), flags.jobs, flags.runs,
                     queue_type_name(flags.shape).c_str(), flags.queue.c_str());
        RawConnection admin(flags.url);
        for (const std::size_t threads : flags.threads)
            run_thread_count(admin, flags, jobs, threads);
        admin.delete_queue(flags.queue);
        admin.delete_queue(flags.queue + ".dead");  // declared by queuey's clients
    } catch (const std::exception &error) {
        std::fprintf(stderr, "producers_bench: %s\n", error.what());
        return 1;
    }
    return 0;
}

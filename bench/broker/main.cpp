// broker_bench: queuey against raw rabbitmq-c doing the same work on the same broker in
// the same run, and the ceiling: raw rabbitmq-c on a queue without arguments. Runs
// alternate ceiling, raw, queuey, ceiling, ... on a freshly declared queue; each side's
// figure is the median of its runs. See flags.cpp for the command line.
//
// stdout, per benchmark (the first prefetch for consume_ack): the bench, raw, cpu and
// ceiling lines of common/report.hpp. Further prefetch values print `also consume_ack
// prefetch=P: ...`, the cpu and the ceiling line. stderr: every run.
#include "cli.hpp"
#include "flags.hpp"
#include "jobs.hpp"
#include "raw_amqp.hpp"
#include "report.hpp"
#include "workload.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Benchmark {
    const char *name;
    RunFn Contender::*run;
    bool consumes;  // the queue is preloaded with the jobs, and empty afterwards
};

const Benchmark all_benchmarks[] = {
    {"enqueue_single", &Contender::enqueue_single, false},
    {"enqueue_batch", &Contender::enqueue_batch, false},
    {"consume_ack", &Contender::consume_ack, true},
};

// One timed run of one side on a fresh queue, checked afterwards.
Sample run_once(RawConnection &admin, const Contender &side, const Benchmark &benchmark,
                Workload w) {
    if (side.on_plain_queue) w.shape = plain_queue;
    admin.delete_queue(w.queue);
    admin.declare_queue(w.queue, w.shape);
    if (benchmark.consumes) preload(w);
    const Timing t = (side.*benchmark.run)(w);
    const std::uint32_t ready = admin.ready_count(w.queue);
    const std::size_t expected = benchmark.consumes ? 0 : w.count;
    if (ready != expected)
        throw std::runtime_error(
            std::string(side.name) + " " + benchmark.name + ": " + std::to_string(ready) +
            " jobs in the queue afterwards, expected " + std::to_string(expected));
    return sample_of(t, w.count);
}

std::size_t jobs_of(const Benchmark &benchmark, const Flags &flags) {
    return std::string(benchmark.name) == "enqueue_single" ? flags.single_jobs : flags.jobs;
}

void run_benchmark(RawConnection &admin, const std::vector<const Contender *> &sides,
                   const Benchmark &benchmark, const Flags &flags, const JobSet &jobs) {
    Workload w{flags.url,   flags.queue,
               &jobs,       jobs_of(benchmark, flags),
               flags.batch, flags.prefetch.front(),
               flags.shape};
    const std::size_t prefetches = benchmark.consumes ? flags.prefetch.size() : 1;
    for (std::size_t i = 0; i < prefetches; ++i) {
        w.prefetch = flags.prefetch[i];
        const std::string label =
            flags.label(benchmark.name) + (i == 0 ? "" : " prefetch=" + std::to_string(w.prefetch));
        std::vector<Side> runs;
        for (const Contender *side : sides)
            runs.push_back({side->name, [&admin, side, &benchmark, &w] {
                                return run_once(admin, *side, benchmark, w);
                            }});
        print_sides(label, runs, measure_interleaved(runs, flags.runs, label), i == 0);
    }
}

}  // namespace

int main(int argc, char **argv) {
    const Flags flags = parse_flags(argc, argv);
    const auto sides = chosen_sides(flags, ceiling_contender, raw_contender, queuey_contender);
    try {
        const auto benchmarks = select_benchmarks(all_benchmarks, flags.only);
        const JobSet jobs(flags.queue, most_jobs(benchmarks, flags, jobs_of), flags.payload_bytes);
        std::fprintf(stderr, "broker_bench: %zu-byte bodies, %zu runs per side, %s queue %s\n",
                     jobs[0].message.body.size(), flags.runs, queue_type_name(flags.shape).c_str(),
                     flags.queue.c_str());
        RawConnection admin(flags.url);
        for (const Benchmark *benchmark : benchmarks)
            run_benchmark(admin, sides, *benchmark, flags, jobs);
        admin.delete_queue(flags.queue);
        admin.delete_queue(flags.queue + ".dead");  // declared by queuey's clients
    } catch (const std::exception &error) {
        std::fprintf(stderr, "broker_bench: %s\n", error.what());
        return 1;
    }
    return 0;
}

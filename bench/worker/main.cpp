// worker_bench: a queuey worker against raw rabbitmq-c doing the same wire work on the
// same broker in the same run, and the ceiling: raw rabbitmq-c on a work queue without
// arguments. Runs alternate ceiling, raw, queuey, ceiling, ... on a freshly declared,
// preloaded queue; each side's figure is the median of its runs. What each benchmark
// does: flags.cpp (--help) and raw_side.cpp. stdout: the bench, raw, cpu and ceiling
// lines of common/report.hpp per benchmark; stderr: every run.
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

constexpr std::size_t preload_batch = 1000;

struct Benchmark {
    const char *name;
    std::uint32_t concurrency;
    bool fail_once;
};

const Benchmark all_benchmarks[] = {
    {"worker_drain_c1", 1, false},
    {"worker_drain_c2", 2, false},
    {"worker_retry_once", 1, true},
};

struct Contender {
    const char *name;
    Timing (*run)(const WorkerWorkload &);
    bool on_plain_queue;  // its queues are of plain_queue's shape, not the workload's
};

const Contender ceiling_side{"ceiling", raw_run, true};
const Contender raw_side{"raw", raw_run, false};
const Contender queuey_side{"queuey", queuey_run, false};
// A drain with handler threads, beside raw's one thread: its like-for-like line.
const Contender raw_threads_side{"raw_threads", raw_threads_run, false};

// The broker's side of a run: fresh queues, the preload, the check afterwards.
class Setup {
public:
    explicit Setup(const std::string &url) : admin_(url), loader_(url) { loader_.confirm_select(); }

    void fresh(const WorkerWorkload &w) {
        for (const std::string &queue : {w.queue, w.hold_queue, hold_queue_of(w.queue)})
            admin_.delete_queue(queue);
        admin_.declare_queue(w.queue, w.shape);
        if (w.fail_once) admin_.declare_hold_queue(w.hold_queue, hold_ttl_ms, w.queue, w.shape);
        publish_pipelined(loader_, w.queue, *w.jobs, w.count, preload_batch);
    }

    void check_drained(const WorkerWorkload &w, const char *side) {
        std::vector<std::string> queues{w.queue};
        if (w.fail_once) queues.push_back(w.hold_queue);
        for (const std::string &queue : queues) {
            if (const std::uint32_t ready = admin_.ready_count(queue); ready != 0)
                throw std::runtime_error(std::string(side) + ": " + std::to_string(ready) +
                                         " jobs left in " + queue + ", expected none");
        }
    }

    void delete_all(const WorkerWorkload &w) {
        for (const std::string &queue :
             {w.queue, w.hold_queue, hold_queue_of(w.queue), w.queue + ".dead"})
            admin_.delete_queue(queue);
    }

private:
    RawConnection admin_, loader_;
};

std::size_t jobs_of(const Benchmark &benchmark, const Flags &flags) {
    return benchmark.fail_once ? flags.retry_jobs : flags.jobs;
}

void run_benchmark(Setup &setup, const std::vector<const Contender *> &sides,
                   const Benchmark &benchmark, const Flags &flags, const JobSet &jobs) {
    WorkerWorkload w{flags.url,
                     flags.queue,
                     flags.queue + ".raw_hold",
                     &jobs,
                     jobs_of(benchmark, flags),
                     flags.prefetch,
                     benchmark.concurrency,
                     benchmark.fail_once,
                     flags.shape};
    const std::string label = flags.label(benchmark.name);
    std::vector<const Contender *> contenders = sides;
    // Every drain with two threads, tagged or not: raw_threads is its like-for-like line.
    const bool threads_too = benchmark.concurrency > 1 && !benchmark.fail_once &&
                             flags.runs_side(raw_threads_side.name);
    if (threads_too) contenders.push_back(&raw_threads_side);
    std::vector<Side> runs;
    for (const Contender *side : contenders)
        runs.push_back({side->name, [&setup, side, w]() mutable {
                            if (side->on_plain_queue) w.shape = plain_queue;
                            setup.fresh(w);
                            const Timing timing = side->run(w);
                            setup.check_drained(w, side->name);
                            return sample_of(timing, w.count);
                        }});
    std::vector<Sample> medians = measure_interleaved(runs, flags.runs, label);
    if (threads_too && runs.size() > 1) {
        const Sample threads = medians.back();
        runs.pop_back();
        medians.pop_back();
        print_sides(label, runs, medians, true);
        print_pair(label + " " + raw_threads_side.name, medians.back(), threads, false);
    } else {
        print_sides(label, runs, medians, true);
    }
    setup.delete_all(w);
}

}  // namespace

int main(int argc, char **argv) {
    const Flags flags = parse_flags(argc, argv);
    const auto sides = chosen_sides(flags, ceiling_side, raw_side, queuey_side);
    try {
        const auto benchmarks = select_benchmarks(all_benchmarks, flags.only);
        const JobSet jobs(flags.queue, most_jobs(benchmarks, flags, jobs_of), flags.payload_bytes);
        std::fprintf(stderr,
                     "worker_bench: %zu-byte bodies, %zu runs per side, prefetch %u, %s queue %s\n",
                     jobs[0].message.body.size(), flags.runs, unsigned{flags.prefetch},
                     queue_type_name(flags.shape).c_str(), flags.queue.c_str());
        Setup setup(flags.url);
        for (const Benchmark *benchmark : benchmarks)
            run_benchmark(setup, sides, *benchmark, flags, jobs);
    } catch (const std::exception &error) {
        std::fprintf(stderr, "worker_bench: %s\n", error.what());
        return 1;
    }
    return 0;
}

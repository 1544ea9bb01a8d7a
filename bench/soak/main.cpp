// soak_bench: worker_soak, many no-op jobs through a queuey worker on a live broker,
// with this process's resident memory (RSS) sampled as the jobs complete: a leak of a
// few bytes per job shows as growth from the first to the last tenth. See flags.cpp
// (--help) for what it does. stdout, per run, in the bench line format of
// common/report.hpp (`raw worker_soak: ...` for --side raw):
//   bench worker_soak: RSS F MiB first tenth, L MiB last tenth (R x: flat within 10%);
//     N jobs in S s, J jobs/s; preload P s
// stderr: progress.
#include "flags.hpp"
#include "jobs.hpp"
#include "raw_amqp.hpp"
#include "rss.hpp"
#include "stopwatch.hpp"
#include "workload.hpp"

#include <cmath>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

namespace {

constexpr std::size_t preload_batch = 1000;
constexpr std::size_t rss_samples = 1000;  // per run; a tenth of them per tenth of the jobs
constexpr double flat_within = 0.10;       // the goal: last tenth's RSS within 10% of the first's

struct SoakResult {
    Timing drain;
    double preload_seconds;
    double rss_first_tenth, rss_last_tenth;  // bytes, medians
};

// One run of one side on a fresh queue, checked afterwards.
SoakResult soak(RawConnection &admin, const Flags &flags, const JobSet &job_type) {
    admin.delete_queue(flags.queue);
    admin.declare_queue(flags.queue, flags.shape);
    const Stopwatch preload;
    {
        RawConnection loader(flags.url);
        loader.confirm_select();
        publish_new_jobs(loader, flags.queue, flags.jobs, preload_batch, flags.payload_bytes);
    }
    const double preload_seconds = preload.elapsed().seconds;
    std::fprintf(stderr, "worker_soak: %zu jobs preloaded in %.1f s, %s drains them\n", flags.jobs,
                 preload_seconds, flags.side.c_str());

    RssByProgress rss(flags.jobs, rss_samples);
    const WorkerWorkload w{
        flags.url,      flags.queue, "",    &job_type,   flags.jobs,
        flags.prefetch, 1,           false, flags.shape, [&rss] { rss.job_done(); }};
    const Timing drain = flags.side == "raw" ? raw_run(w) : queuey_run(w);  // checks its count
    if (const std::uint32_t ready = admin.ready_count(flags.queue); ready != 0)
        throw std::runtime_error(flags.side + ": " + std::to_string(ready) + " jobs left in " +
                                 flags.queue + ", expected none");
    admin.delete_queue(flags.queue);

    const std::size_t tenth = flags.jobs / 10;
    return {drain, preload_seconds, rss.median_between(1, tenth),
            rss.median_between(flags.jobs - tenth + 1, flags.jobs)};
}

void print_soak(const Flags &flags, const SoakResult &r) {
    constexpr double mib = 1024.0 * 1024.0;
    const double ratio = r.rss_last_tenth / r.rss_first_tenth;
    std::printf(
        "%s worker_soak: RSS %.1f MiB first tenth, %.1f MiB last tenth (%.3f x: %s within "
        "%.0f%%); %zu jobs in %.1f s, %.0f jobs/s; preload %.1f s\n",
        flags.side == "raw" ? "raw" : "bench", r.rss_first_tenth / mib, r.rss_last_tenth / mib,
        ratio, std::abs(ratio - 1) <= flat_within ? "flat" : "NOT flat", flat_within * 100,
        flags.jobs, r.drain.seconds, static_cast<double>(flags.jobs) / r.drain.seconds,
        r.preload_seconds);
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char **argv) {
    const Flags flags = parse_flags(argc, argv);
    try {
        const JobSet job_type(flags.queue, 1, flags.payload_bytes);  // the handler's job type
        RawConnection admin(flags.url);
        for (std::size_t run = 0; run < flags.runs; ++run)
            print_soak(flags, soak(admin, flags, job_type));
    } catch (const std::exception &error) {
        std::fprintf(stderr, "soak_bench: %s\n", error.what());
        return 1;
    }
    return 0;
}

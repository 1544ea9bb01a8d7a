// A worker whose threads cannot all be created: qy_worker_run() fails with an error that
// says so, after the threads it did start have stopped, and no job is lost. It used to
// end the whole process (std::terminate from a vector of joinable std::threads).
//
// How the failure is made real: the test runs in a child process (a death test) under
// an address-space limit (RLIMIT_AS) a little above what the process maps already. A
// thread's stack is a mapping of its own (8 MiB by default), so a few threads start and
// then pthread_create fails with EAGAIN, as it does on a machine out of memory or
// threads. Not RLIMIT_NPROC: root is exempt from it and the tests may run as root. Not a
// cgroup pids limit: that needs a writable cgroup tree, which a CI container may lack.
// Not a seam for thread creation: it would test the seam, not std::thread.
#include "memory_worker.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <string>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define QYT_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define QYT_SANITIZED 1
#endif
#endif

namespace {

constexpr int jobs = 40;
constexpr std::uint32_t asked_threads = 1000;  // 8 GB of stacks: far beyond the limit

qy_job_result succeed(qy_job *, void *) { return QY_JOB_SUCCESS; }

// The bytes this process maps now (/proc/self/statm counts pages).
rlim_t mapped_bytes() {
    std::ifstream statm("/proc/self/statm");
    rlim_t pages = 0;
    statm >> pages;
    return pages * static_cast<rlim_t>(sysconf(_SC_PAGESIZE));
}

// Exits 0 when the run failed as it should, else 1 with the reason on stderr; prints
// the error's message either way.
[[noreturn, maybe_unused]] void run_without_room_for_threads() {  // unused in sanitizer builds
    const qyt::Client client = qyt::memory_client("q");
    qyt::enqueue(client.get(), "q", "t", jobs);
    const qyt::Worker worker = qyt::worker_on(client.get(), "q", asked_threads);
    if (!client || !worker ||
        qy_worker_register(worker.get(), "t", succeed, nullptr, nullptr, nullptr, nullptr) != QY_OK)
        std::_Exit(2);

    // The soft limit only, so that a process without privileges can restore it.
    rlimit before{};
    if (getrlimit(RLIMIT_AS, &before) != 0) std::_Exit(3);
    const rlim_t room = 48u << 20;  // a few stacks, well below the 8 GB asked for
    const rlimit limited{mapped_bytes() + room, before.rlim_max};
    if (setrlimit(RLIMIT_AS, &limited) != 0) std::_Exit(4);
    qy_error *raw = nullptr;
    const qy_status status = qy_worker_run(worker.get(), &raw);
    if (setrlimit(RLIMIT_AS, &before) != 0) std::_Exit(5);

    const qyt::Error err(raw);
    const std::string message = err ? qy_error_message(err.get()) : "";
    std::fprintf(stderr, "qy_worker_run: %s\n", message.c_str());  // the parent matches it
    int failures = 0;
    const auto expect = [&](bool holds, const std::string &what) {
        if (!holds) {
            std::fprintf(stderr, "%s\n", what.c_str());
            ++failures;
        }
    };
    expect(status == QY_ERR_NO_MEMORY, std::string("status ") + qy_status_name(status));
    expect(
        message.find("threads") != std::string::npos && message.find("1000") != std::string::npos,
        "the message does not say that threads of the 1000 asked could not be created: " + message);
    // Nothing lost: each job either ran on a thread that did start or is back in q.
    const auto acked = qyt::memory_count(client.get(), "q", QY_MEMORY_ACKED);
    const auto pending = qyt::memory_count(client.get(), "q", QY_MEMORY_PENDING);
    const auto in_flight = qyt::memory_count(client.get(), "q", QY_MEMORY_IN_FLIGHT);
    expect(acked + pending == jobs && in_flight == 0,
           "acked " + std::to_string(acked) + ", pending " + std::to_string(pending) +
               ", in flight " + std::to_string(in_flight) + " of " + std::to_string(jobs) +
               " jobs");
    std::fflush(stderr);
    std::_Exit(failures == 0 ? 0 : 1);
}

TEST(WorkerThreads, ThreadsThatCannotBeCreatedFailTheRunAndLoseNoJob) {
#ifdef QYT_SANITIZED
    GTEST_SKIP() << "a sanitizer's shadow memory does not fit under an address-space limit";
#else
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(run_without_room_for_threads(), testing::ExitedWithCode(0),
                "qy_worker_run: could not create the worker's threads: [0-9]+ of the 1000");
#endif
}

}  // namespace

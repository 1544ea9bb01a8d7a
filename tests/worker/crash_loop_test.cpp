// Crash loops, RabbitMQ only (docs/worker.md, "Lost runs: a redelivered job runs again";
// behaviour.md section 10): worker processes (crash_worker.c, C API only) that die while
// they run a job, by their own hand (raise(SIGKILL)) or by the test's kill -9. Only a
// broker outlives a process; on the in-memory backend a crash is simulated in-process
// instead (worker_behaviour_test.cpp, AJobWhoseWorkerWasLost...).
#include "broker_fixture.hpp"
#include "core_fixture.hpp"
#include "raw_amqp.hpp"

#include "envelope_codec.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef QUEUEY_CRASH_WORKER
#error "meson passes QUEUEY_CRASH_WORKER, the path of crash_worker"
#endif

namespace queuey_it {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// One crash_worker process, its stdout read line by line on a thread.
class WorkerProcess {
public:
    // max_lost_runs 0: crash_worker keeps the default lost-run budget.
    WorkerProcess(const BrokerEndpoint &broker, const queuey::QueueConfig &queue, int max_attempts,
                  int max_lost_runs = 0) {
        int out[2];
        if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
        const std::string attempts = std::to_string(max_attempts);
        const std::string budget = std::to_string(max_lost_runs);
        // The child's environment, built before the fork: crash_worker declares the type.
        std::vector<std::string> env_strings;
        for (char **entry = environ; *entry != nullptr; ++entry) env_strings.emplace_back(*entry);
        if (queue.type == queuey::QueueType::quorum)
            env_strings.emplace_back("CRASH_WORKER_QUEUE_TYPE=quorum");
        std::vector<char *> env;
        for (std::string &entry : env_strings) env.push_back(entry.data());
        env.push_back(nullptr);
        const char *args[] = {QUEUEY_CRASH_WORKER,
                              broker.url.c_str(),
                              queue.name.c_str(),
                              attempts.c_str(),
                              max_lost_runs > 0 ? budget.c_str() : nullptr,
                              nullptr};
        pid_ = ::fork();
        if (pid_ < 0) throw std::runtime_error("fork failed");
        if (pid_ == 0) {
            ::dup2(out[1], STDOUT_FILENO);
            ::close(out[0]);
            ::close(out[1]);
            ::execve(QUEUEY_CRASH_WORKER, const_cast<char *const *>(args), env.data());
            static const char failed[] = "cannot execute " QUEUEY_CRASH_WORKER "\n";
            [[maybe_unused]] auto written = ::write(STDERR_FILENO, failed, sizeof failed - 1);
            ::_exit(127);
        }
        ::close(out[1]);
        reader_ = std::thread([this, fd = out[0]] { read_lines(fd); });
    }

    ~WorkerProcess() {
        if (!exited()) {
            ::kill(pid_, SIGKILL);
            wait_exit(5s);
        }
        join_reader();
    }

    // Once the process has ended: waits until everything it printed has been read.
    void join_reader() {
        if (reader_.joinable()) reader_.join();
    }

    pid_t pid() const { return pid_; }

    // Waits for a line that starts with prefix; returns it, or "" after timeout.
    std::string wait_line(const std::string &prefix, std::chrono::milliseconds timeout) {
        std::unique_lock lock(mutex_);
        std::string found;
        changed_.wait_for(lock, timeout, [&] {
            for (const auto &line : lines_)
                if (line.rfind(prefix, 0) == 0) {
                    found = line;
                    return true;
                }
            return end_of_output_;  // the process is gone: nothing more will come
        });
        return found;
    }

    std::vector<std::string> lines() const {
        std::lock_guard lock(mutex_);
        return lines_;
    }
    std::vector<std::string> lines_starting(const std::string &prefix) const {
        std::vector<std::string> found;
        for (const auto &line : lines())
            if (line.rfind(prefix, 0) == 0) found.push_back(line);
        return found;
    }

    // Waits up to timeout for the process to end; true if it did.
    bool wait_exit(std::chrono::milliseconds timeout) {
        const auto until = Clock::now() + timeout;
        while (!exited_) {
            int status = 0;
            const pid_t done = ::waitpid(pid_, &status, WNOHANG);
            if (done == pid_) {
                exited_ = true;
                status_ = status;
                break;
            }
            if (Clock::now() >= until) return false;
            std::this_thread::sleep_for(10ms);
        }
        return true;
    }
    bool exited() { return wait_exit(0ms); }
    bool killed_by(int signal) const {
        return exited_ && WIFSIGNALED(status_) && WTERMSIG(status_) == signal;
    }
    bool exited_with(int code) const {
        return exited_ && WIFEXITED(status_) && WEXITSTATUS(status_) == code;
    }
    std::string how_it_ended() const {
        if (!exited_) return "still running";
        if (WIFSIGNALED(status_)) return "killed by signal " + std::to_string(WTERMSIG(status_));
        return "exit " + std::to_string(WEXITSTATUS(status_));
    }

    // SIGTERM (a graceful shutdown), then waits; returns the counters line parsed.
    std::map<std::string, std::uint64_t> stop() {
        ::kill(pid_, SIGTERM);
        EXPECT_TRUE(wait_exit(15s)) << "crash_worker did not stop after SIGTERM";
        EXPECT_TRUE(exited_with(0)) << how_it_ended();
        join_reader();
        return counters();
    }

    std::map<std::string, std::uint64_t> counters() const {
        std::map<std::string, std::uint64_t> values;
        for (const auto &line : lines_starting("counters ")) {
            std::istringstream words(line.substr(9));
            std::string word;
            while (words >> word) {
                const auto eq = word.find('=');
                if (eq != std::string::npos)
                    values[word.substr(0, eq)] = std::stoull(word.substr(eq + 1));
            }
        }
        return values;
    }

private:
    void read_lines(int fd) {
        std::string pending;
        char buffer[4096];
        while (true) {
            const ssize_t n = ::read(fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            pending.append(buffer, static_cast<std::size_t>(n));
            for (std::size_t end; (end = pending.find('\n')) != std::string::npos;) {
                {
                    std::lock_guard lock(mutex_);
                    lines_.push_back(pending.substr(0, end));
                }
                changed_.notify_all();
                pending.erase(0, end + 1);
            }
        }
        ::close(fd);
        {
            std::lock_guard lock(mutex_);
            end_of_output_ = true;
        }
        changed_.notify_all();
    }

    pid_t pid_ = -1;
    bool exited_ = false;
    int status_ = 0;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<std::string> lines_;
    bool end_of_output_ = false;
    std::thread reader_;
};

// Each test on a classic and on a quorum queue: both count the lost runs through queuey's
// republished copies (a quorum queue's x-delivery-count also counts returns of jobs that
// never ran; worker/lost_runs.hpp).
class CrashLoops : public CoreTest, public ::testing::WithParamInterface<queuey::QueueType> {
protected:
    // The job's queue, declared as crash_worker declares it (defaults, granularity 50 ms).
    queuey::QueueConfig declare_crash_queue() {
        return declare_queue([](queuey::QueueConfig &config) {
            config.type = GetParam();
            config.delay_granularity = 50ms;
        });
    }

    queuey::Envelope enqueue(const std::string &queue, const std::string &payload) {
        queuey::Envelope env = queuey::Envelope::create("crash.job", queue, payload);
        producer_->enqueue(env);
        return env;
    }

    std::string started(const queuey::Envelope &env, int attempt) const {
        return "started " + env.job_id + " attempt " + std::to_string(attempt);
    }
    std::string ran(const queuey::Envelope &env, int attempt) const {
        return "ran " + env.job_id + " attempt " + std::to_string(attempt);
    }
};

TEST_P(CrashLoops, AJobThatCrashedItsWorkerOnceRunsAgainAtTheSameAttemptInTheNextWorker) {
    const auto q = declare_crash_queue();
    const std::string marker = ::testing::TempDir() + "crash-once-" + q.name;
    std::remove(marker.c_str());
    const auto env = enqueue(q.name, R"({"crash_unless":")" + marker + R"("})");

    WorkerProcess first(endpoint(), q, 3);
    ASSERT_FALSE(first.wait_line(started(env, 1), 10s).empty())
        << "the first worker never ran the job";
    ASSERT_TRUE(first.wait_exit(10s)) << "the job did not kill the first worker";
    first.join_reader();
    EXPECT_TRUE(first.killed_by(SIGKILL)) << first.how_it_ended();

    WorkerProcess second(endpoint(), q, 3);
    EXPECT_FALSE(second.wait_line(ran(env, 1), 10s).empty())
        << "the second worker did not run attempt 1 again; it printed:\n"
        << ::testing::PrintToString(second.lines());
    auto counters = second.stop();
    EXPECT_EQ(counters["worker_lost"], 1u) << "the lost run was counted";
    EXPECT_EQ(counters["retried"], 0u) << "a lost run is no failed attempt";
    EXPECT_EQ(counters["succeeded"], 1u);
    EXPECT_EQ(counters["dead_lettered_lost"], 0u);
    EXPECT_EQ(second.lines_starting("started ").size(), 1u) << "the republished copy runs once";
    // On both queue types the job goes back to its queue as a copy carrying the count.
    const std::string lost_line = second.wait_line("log 2 job " + env.job_id, 0ms);
    EXPECT_NE(lost_line.find("(lost run 1 of 3 allowed: the worker was lost while running the "
                             "job); it goes back to its queue"),
              std::string::npos)
        << lost_line;
    EXPECT_EQ(raw_->message_count(q.name), 0u);
    EXPECT_EQ(raw_->message_count(q.name + ".dead"), 0u);
    std::remove(marker.c_str());
}

TEST_P(CrashLoops, AJobThatKillsEveryWorkerEndsDeadLetteredAfterTheLostRunBudget) {
    const auto q = declare_crash_queue();
    const auto env = enqueue(q.name, R"({"crash":true})");
    const std::string expected_reason = "lost 3 times: the worker was lost while running the job";

    // Worker processes one after another until the job is dead-lettered; at most 6. Three
    // attempts are allowed too, to show that lost runs spend none of them.
    std::vector<std::string> history;  // how each process ended
    std::vector<int> attempts_run;
    std::map<std::string, std::uint64_t> last_counters;
    bool dead = false;
    for (int i = 0; i < 6 && !dead; ++i) {
        WorkerProcess worker(endpoint(), q, 3);
        const auto until = Clock::now() + 10s;
        while (Clock::now() < until) {
            if (!worker.wait_line("dead ", 20ms).empty()) {
                dead = true;
                break;
            }
            if (worker.wait_exit(20ms)) break;
        }
        if (worker.exited()) worker.join_reader();
        for (const auto &line : worker.lines_starting("started "))
            attempts_run.push_back(std::stoi(line.substr(line.rfind(' ') + 1)));
        if (dead) {
            EXPECT_EQ(worker.wait_line("dead ", 0ms), "dead " + env.job_id + " " + expected_reason);
            last_counters = worker.stop();
            history.push_back("dead-lettered the job");
        } else {
            ASSERT_TRUE(worker.exited())
                << "worker " << i + 1 << " neither crashed nor dead-lettered the job in 10 s";
            history.push_back(worker.how_it_ended());
            EXPECT_TRUE(worker.killed_by(SIGKILL))
                << "worker " << i + 1 << ": " << worker.how_it_ended();
        }
    }
    ASSERT_TRUE(dead) << "the job was never dead-lettered; workers: "
                      << ::testing::PrintToString(history);
    EXPECT_EQ(history.size(), 4u) << "three crashes, and the fourth worker dead-letters it: "
                                  << ::testing::PrintToString(history);
    EXPECT_EQ(attempts_run, (std::vector<int>{1, 1, 1}))
        << "attempt 1 three times, each on a fresh worker";
    EXPECT_EQ(last_counters["worker_lost"], 1u);
    EXPECT_EQ(last_counters["dead_lettered_lost"], 1u);
    EXPECT_EQ(last_counters["dead_lettered_exhausted"], 0u);
    EXPECT_EQ(last_counters["succeeded"], 0u);

    // It does not come back: another worker finds nothing to run.
    {
        WorkerProcess after(endpoint(), q, 3);
        std::this_thread::sleep_for(1s);
        EXPECT_TRUE(after.lines_starting("started ").empty()) << "the dead job came back";
        const auto counters = after.stop();
        EXPECT_EQ(counters.at("worker_lost"), 0u);
    }
    EXPECT_EQ(raw_->message_count(q.name), 0u);
    const auto letters = raw_->drain(q.name + ".dead");
    ASSERT_EQ(letters.size(), 1u);
    const RawMessage &letter = letters[0];
    const auto *reason = letter.header("x-death-reason");
    ASSERT_NE(reason, nullptr);
    EXPECT_EQ(reason->text, expected_reason);
    const auto *original = letter.header("x-original-queue");
    ASSERT_NE(original, nullptr);
    EXPECT_EQ(original->text, q.name);
    const auto *attempts = letter.header("x-attempts");
    ASSERT_NE(attempts, nullptr);
    EXPECT_EQ(attempts->kind, AMQP_FIELD_KIND_U32);
    EXPECT_EQ(attempts->integer, 1);
    EXPECT_EQ(letter.header("x-death"), nullptr) << "RabbitMQ's own x-death is never copied";
    const auto dead_env = queuey::decode_envelope(letter.body);
    EXPECT_EQ(dead_env.job_id, env.job_id);
    EXPECT_EQ(dead_env.attempt, 1u);
}

TEST_P(CrashLoops, WithABudgetOfOneTheFirstLossDeadLettersTheJob) {
    const auto q = declare_crash_queue();
    const auto env = enqueue(q.name, R"({"crash":true})");
    WorkerProcess first(endpoint(), q, 1, 1);
    ASSERT_TRUE(first.wait_exit(10s));
    EXPECT_TRUE(first.killed_by(SIGKILL)) << first.how_it_ended();

    WorkerProcess second(endpoint(), q, 1, 1);
    EXPECT_EQ(second.wait_line("dead ", 10s),
              "dead " + env.job_id + " lost 1 times: the worker was lost while running the job");
    const auto counters = second.stop();
    EXPECT_TRUE(second.lines_starting("started ").empty());
    EXPECT_EQ(counters.at("worker_lost"), 1u);
    EXPECT_EQ(counters.at("dead_lettered_lost"), 1u);
    EXPECT_EQ(raw_->wait_for_count(q.name + ".dead", 1, 5s), 1u);
}

TEST_P(CrashLoops, AWorkerKilledFromOutsideMidJobHasTheJobRunAgainInTheNextWorker) {
    const auto q = declare_crash_queue();
    const auto env = enqueue(q.name, R"({"sleep_ms":2000})");

    WorkerProcess first(endpoint(), q, 1);
    ASSERT_FALSE(first.wait_line(started(env, 1), 10s).empty());
    std::this_thread::sleep_for(100ms);          // in the middle of the slow job
    ASSERT_EQ(::kill(first.pid(), SIGKILL), 0);  // kill -9
    ASSERT_TRUE(first.wait_exit(5s));
    first.join_reader();
    EXPECT_TRUE(first.killed_by(SIGKILL));
    EXPECT_TRUE(first.lines_starting("ran ").empty());

    WorkerProcess second(endpoint(), q, 1);
    EXPECT_FALSE(second.wait_line(ran(env, 1), 10s).empty())
        << "the job did not run again; the second worker printed:\n"
        << ::testing::PrintToString(second.lines());
    const auto counters = second.stop();
    EXPECT_EQ(counters.at("worker_lost"), 1u);
    EXPECT_EQ(counters.at("succeeded"), 1u);
    EXPECT_EQ(counters.at("dead_lettered_lost"), 0u);
    EXPECT_EQ(raw_->message_count(q.name), 0u);
    EXPECT_EQ(raw_->message_count(q.name + ".dead"), 0u);
}

INSTANTIATE_TEST_SUITE_P(QueueTypes, CrashLoops,
                         ::testing::Values(queuey::QueueType::classic, queuey::QueueType::quorum),
                         [](const ::testing::TestParamInfo<queuey::QueueType> &info) {
                             return info.param == queuey::QueueType::quorum ? "quorum" : "classic";
                         });

}  // namespace
}  // namespace queuey_it

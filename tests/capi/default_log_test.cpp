// A client whose options name no log callback writes its warnings and errors to stderr
// (issue 41: C, C++ and Go programs said nothing of a failed handler, a dead letter or a
// reconnect); a NULL callback silences it. Each test runs a memory:// worker on one job
// of a type without a handler while fd 2 is a file, then reads what landed there.
#include "memory_worker.hpp"

#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

namespace {

using namespace std::chrono_literals;

// fd 2 goes to a temporary file from construction to taken().
class StderrCapture {
public:
    StderrCapture() : file_(std::tmpfile()), saved_(dup(2)) {
        std::fflush(stderr);
        dup2(fileno(file_), 2);
    }
    ~StderrCapture() { restore(); }
    std::string taken() {
        restore();
        std::rewind(file_);
        std::string text;
        char buffer[4096];
        while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, file_))
            text.append(buffer, n);
        return text;
    }

private:
    void restore() {
        if (saved_ < 0) return;
        std::fflush(stderr);
        dup2(saved_, 2);
        close(saved_);
        saved_ = -1;
    }
    std::FILE *file_;
    int saved_;
};

// Runs a worker on a job of type "nobody" (no handler: dead-lettered) on a memory://
// client made from opts (NULL: none), then frees the client; returns the job's id.
std::string dead_letter_one_job(const qy_client_options *opts) {
    qy_client *raw = nullptr;
    EXPECT_EQ(qy_client_new("memory://", opts, &raw, nullptr), QY_OK);
    qyt::Client client(raw);
    qy_queue_config *config = nullptr;
    EXPECT_EQ(qy_queue_config_new("q", &config, nullptr), QY_OK);
    const qyt::QueueConfig owned(config);
    EXPECT_EQ(qy_client_declare(client.get(), config, nullptr), QY_OK);
    qyt::enqueue(client.get(), "q", "nobody");
    qyt::Worker worker = qyt::worker_on(client.get(), "q");
    std::thread running([&] { EXPECT_EQ(qy_worker_run(worker.get(), nullptr), QY_OK); });
    for (const auto until = std::chrono::steady_clock::now() + 5s;
         qy_worker_counter(worker.get(), QY_COUNTER_DEAD_LETTERED_UNKNOWN_TYPE) == 0 &&
         std::chrono::steady_clock::now() < until;)
        std::this_thread::sleep_for(5ms);
    qy_worker_shutdown(worker.get());
    running.join();
    EXPECT_EQ(qy_worker_counter(worker.get(), QY_COUNTER_DEAD_LETTERED_UNKNOWN_TYPE), 1u);
    worker.reset();
    std::string job_id;
    qy_envelope *letter = nullptr;
    char *reason = nullptr;
    // The dead letter's id, from the memory backend's record of it.
    if (qy_client_memory_dead_letter(client.get(), 0, &letter, &reason, nullptr) == QY_OK) {
        job_id = qy_envelope_job_id(letter);
        qy_envelope_free(letter);
        qy_string_free(reason);
    }
    client.reset();  // delivers the lines still queued
    return job_id;
}

TEST(DefaultLog, WithoutACallbackWarningsAndErrorsGoToStderr) {
    StderrCapture capture;
    const std::string job_id = dead_letter_one_job(nullptr);
    const std::string text = capture.taken();
    ASSERT_FALSE(job_id.empty());
    const std::string dead_letter_line = "queuey: error: job " + job_id +
                                         " (type `nobody`, queue q) dead-lettered to q.dead at "
                                         "attempt 1: no handler for job type `nobody`\n";
    ASSERT_EQ(text.substr(0, dead_letter_line.size()), dead_letter_line);
    // The counter the test waits on is bumped just before the job's slot is freed, so the
    // shutdown may still count it as running (seen under TSan): 0 or 1.
    EXPECT_TRUE(std::regex_match(text.substr(dead_letter_line.size()),
                                 std::regex("queuey: info: shutting down: taking no new jobs; "
                                            "draining [01] running to their end; jobs received "
                                            "and not started go back to their queue\n")))
        << text;
}

TEST(DefaultLog, OptionsWithoutACallbackDoTheSame) {
    qy_client_options *opts = nullptr;
    ASSERT_EQ(qy_client_options_new(&opts, nullptr), QY_OK);
    StderrCapture capture;
    const std::string job_id = dead_letter_one_job(opts);
    qy_client_options_free(opts);
    EXPECT_NE(capture.taken().find("queuey: error: job " + job_id), std::string::npos);
}

TEST(DefaultLog, ANullCallbackSilencesTheClient) {
    qy_client_options *opts = nullptr;
    ASSERT_EQ(qy_client_options_new(&opts, nullptr), QY_OK);
    ASSERT_EQ(qy_client_options_set_log(opts, nullptr, nullptr, nullptr, nullptr), QY_OK);
    StderrCapture capture;
    dead_letter_one_job(opts);
    qy_client_options_free(opts);
    EXPECT_EQ(capture.taken(), "");
}

}  // namespace

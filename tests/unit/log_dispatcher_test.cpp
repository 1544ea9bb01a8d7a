// LogDispatcher: lines reach the sink in order on a thread of its own, posting never
// waits for the sink, a full queue drops and counts, stop() drains within its bound and
// nothing reaches the sink after it.
#include "log_dispatcher.hpp"

#include "../capi/log_recorder.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using queuey::LogDispatcher;
using queuey::LogLevel;

// How long a test watches for a line that must not arrive: a dispatcher's thread wakes on a
// post and hands a line to the recorder in microseconds, so a line that gets through does
// so well within it.
constexpr auto late_line_window = 50ms;

// A sink into recorder; while the dispatcher holds it, token's use count is above one.
queuey::LogSink sink_to(qyt::LogRecorder &recorder, std::shared_ptr<int> token = nullptr) {
    return [&recorder, token](LogLevel level, const std::string &message) {
        recorder.record(static_cast<int>(level), message);
    };
}
bool held(const std::shared_ptr<int> &token) { return token.use_count() > 1; }

std::string warn(const std::string &message) { return "2 " + message; }
std::string info(const std::string &message) { return "1 " + message; }

TEST(LogDispatcher, LinesReachTheSinkInOrderOnOneThreadOfItsOwn) {
    qyt::LogRecorder recorder;
    LogDispatcher dispatcher(sink_to(recorder));
    std::vector<std::string> expected;
    for (int i = 0; i < 1000; ++i) {
        dispatcher.post(LogLevel::info, "line " + std::to_string(i));
        expected.push_back(info("line " + std::to_string(i)));
    }
    dispatcher.stop();
    EXPECT_EQ(recorder.lines(), expected);
    const auto threads = recorder.threads();
    ASSERT_FALSE(threads.empty());
    EXPECT_NE(threads.front(), std::this_thread::get_id());
    EXPECT_EQ(std::count(threads.begin(), threads.end(), threads.front()), 1000);
}

TEST(LogDispatcher, PostingDoesNotWaitForASinkThatBlocks) {
    qyt::LogRecorder recorder(true);
    LogDispatcher dispatcher(sink_to(recorder));
    dispatcher.post(LogLevel::warn, "first");
    ASSERT_TRUE(recorder.wait_for_lines(1, 5s));
    auto posting = std::async(std::launch::async, [&] {
        for (int i = 0; i < 100; ++i) dispatcher.post(LogLevel::info, "more");
    });
    EXPECT_EQ(posting.wait_for(2s), std::future_status::ready) << "post() waited for the sink";
    EXPECT_EQ(recorder.lines().size(), 1u) << "the sink is still held on the first line";
    recorder.open();
    dispatcher.stop();
    EXPECT_EQ(recorder.lines().size(), 101u);
}

TEST(LogDispatcher, AFullQueueDropsLinesAndTheWarningStandsWhereTheyAreMissing) {
    qyt::LogRecorder recorder(true);
    LogDispatcher dispatcher(sink_to(recorder), 3);
    dispatcher.post(LogLevel::info, "0");
    ASSERT_TRUE(recorder.wait_for_lines(1, 5s));  // taken off the queue, held in the sink
    for (const char *line : {"1", "2", "3", "4", "5", "6"}) dispatcher.post(LogLevel::info, line);
    recorder.open();
    ASSERT_TRUE(recorder.wait_for_lines(4, 5s));
    dispatcher.post(LogLevel::error, "7");
    dispatcher.stop();
    const std::string warning =
        warn("queuey dropped 3 log line(s) here: 3 were waiting for the log callback already");
    EXPECT_EQ(recorder.lines(), (std::vector<std::string>{info("0"), info("1"), info("2"),
                                                          info("3"), warning, "3 7"}));
}

TEST(LogDispatcher, LinesDroppedLastAreReportedWhenTheQueueEmpties) {
    qyt::LogRecorder recorder(true);
    LogDispatcher dispatcher(sink_to(recorder), 1);
    dispatcher.post(LogLevel::info, "0");
    ASSERT_TRUE(recorder.wait_for_lines(1, 5s));
    for (const char *line : {"1", "2", "3"}) dispatcher.post(LogLevel::info, line);
    recorder.open();
    ASSERT_TRUE(recorder.wait_for_lines(3, 5s));
    EXPECT_EQ(recorder.lines(),
              (std::vector<std::string>{info("0"), info("1"),
                                        warn("queuey dropped 2 log line(s) here: 1 were waiting "
                                             "for the log callback already")}));
}

TEST(LogDispatcher, StopDeliversWhatIsQueuedThenNothingMore) {
    qyt::LogRecorder recorder(true);
    const auto token = std::make_shared<int>(0);
    LogDispatcher dispatcher(sink_to(recorder, token));
    for (int i = 0; i < 50; ++i) dispatcher.post(LogLevel::info, std::to_string(i));
    ASSERT_TRUE(recorder.wait_for_lines(1, 5s));
    std::thread releaser([&] {
        std::this_thread::sleep_for(100ms);
        recorder.open();
    });
    dispatcher.stop();
    releaser.join();
    EXPECT_EQ(recorder.lines().size(), 50u) << "stop() returned before the queue was delivered";
    EXPECT_FALSE(held(token)) << "the sink outlives stop()";
    dispatcher.post(LogLevel::info, "late");
    // Nothing to wait for: a line that got through after stop() would reach the sink within
    // this window.
    std::this_thread::sleep_for(late_line_window);
    EXPECT_EQ(recorder.lines().size(), 50u) << "a line reached the sink after stop()";
}

TEST(LogDispatcher, StopGivesUpOnASinkThatOutlastsTheDrain) {
    qyt::LogRecorder recorder(true);
    const auto token = std::make_shared<int>(0);
    LogDispatcher dispatcher(sink_to(recorder, token));
    for (const char *line : {"0", "1", "2"}) dispatcher.post(LogLevel::info, line);
    ASSERT_TRUE(recorder.wait_for_lines(1, 5s));
    const auto start = std::chrono::steady_clock::now();
    dispatcher.stop(200ms);
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_GE(took, 190ms);
    EXPECT_LT(took, 2s) << "stop() waited for the blocked sink";
    recorder.open();  // the call under way returns; the thread ends without another
    for (int i = 0; i < 100 && held(token); ++i) std::this_thread::sleep_for(10ms);
    EXPECT_FALSE(held(token)) << "the thread did not end after its last call";
    EXPECT_EQ(recorder.lines(), std::vector<std::string>{info("0")});
}

TEST(LogDispatcher, ASinkThatThrowsLosesOnlyItsLine) {
    std::vector<std::string> lines;
    LogDispatcher dispatcher([&](LogLevel, const std::string &message) {
        if (message == "bad") throw std::runtime_error("sink failure");
        lines.push_back(message);
    });
    for (const char *line : {"a", "bad", "b"}) dispatcher.post(LogLevel::info, line);
    dispatcher.stop();
    EXPECT_EQ(lines, (std::vector<std::string>{"a", "b"}));
}

TEST(LogDispatcher, ASinkMayStopItsOwnDispatcher) {
    qyt::LogRecorder recorder;
    const auto token = std::make_shared<int>(0);
    std::unique_ptr<LogDispatcher> dispatcher;
    dispatcher = std::make_unique<LogDispatcher>(
        [&, sink = sink_to(recorder, token)](LogLevel level, const std::string &message) {
            if (message == "stop") dispatcher->stop();
            sink(level, message);
        });
    dispatcher->post(LogLevel::info, "stop");
    ASSERT_TRUE(recorder.wait_for_lines(1, 2s)) << "stop() from the sink deadlocked";
    dispatcher->post(LogLevel::info, "late");
    for (int i = 0; i < 100 && held(token); ++i) std::this_thread::sleep_for(10ms);
    EXPECT_FALSE(held(token)) << "the thread did not end";
    dispatcher.reset();
    EXPECT_EQ(recorder.lines(), std::vector<std::string>{info("stop")});
}

}  // namespace

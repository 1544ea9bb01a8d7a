// JobMetrics: outcomes counted per (queue, job type), handler durations in the bucket
// whose upper bound is the first at or above them (le is inclusive), series that exist
// at zero once added, and exact totals when several threads record at once.
#include "worker/job_metrics.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using queuey::JobMetricOutcome;
using queuey::JobMetrics;
using queuey::JobSeries;

std::uint64_t outcome(const JobSeries &series, JobMetricOutcome which) {
    return series.outcomes[static_cast<std::size_t>(which)];
}

TEST(JobMetrics, CountsEachOutcomePerQueueAndJobType) {
    JobMetrics metrics;
    metrics.count("q", "b", JobMetricOutcome::succeeded);
    metrics.count("q", "a", JobMetricOutcome::retried);
    metrics.count("q", "a", JobMetricOutcome::retried);
    metrics.count("p", "a", JobMetricOutcome::dead_lettered);
    metrics.count("q", "a", JobMetricOutcome::timed_out);

    const std::vector<JobSeries> series = metrics.snapshot();
    ASSERT_EQ(series.size(), 3u);  // by queue, then job type
    EXPECT_EQ(series[0].queue, "p");
    EXPECT_EQ(series[0].job_type, "a");
    EXPECT_EQ(outcome(series[0], JobMetricOutcome::dead_lettered), 1u);
    EXPECT_EQ(series[1].queue, "q");
    EXPECT_EQ(series[1].job_type, "a");
    EXPECT_EQ(outcome(series[1], JobMetricOutcome::retried), 2u);
    EXPECT_EQ(outcome(series[1], JobMetricOutcome::timed_out), 1u);
    EXPECT_EQ(outcome(series[1], JobMetricOutcome::succeeded), 0u);
    EXPECT_EQ(series[2].job_type, "b");
    EXPECT_EQ(outcome(series[2], JobMetricOutcome::succeeded), 1u);
}

TEST(JobMetrics, AnAddedSeriesShowsAtZero) {
    JobMetrics metrics;
    metrics.add_series("q", "a");
    metrics.add_series("q", "a");
    const std::vector<JobSeries> series = metrics.snapshot();
    ASSERT_EQ(series.size(), 1u);
    EXPECT_EQ(series[0].outcomes, (std::array<std::uint64_t, 5>{}));
    EXPECT_EQ(series[0].buckets, (std::array<std::uint64_t, 15>{}));
    EXPECT_EQ(series[0].duration_sum_seconds, 0.0);
}

TEST(JobMetrics, ADurationGoesToTheFirstBucketAtOrAboveIt) {
    JobMetrics metrics;
    metrics.observe("q", "a", 0ns);       // [0] le 0.005
    metrics.observe("q", "a", 5ms);       // [0]: le is inclusive
    metrics.observe("q", "a", 5001us);    // [1] le 0.01
    metrics.observe("q", "a", 1s);        // [7] le 1
    metrics.observe("q", "a", 300s);      // [13] le 300
    metrics.observe("q", "a", 300001ms);  // [14] +Inf
    const std::vector<JobSeries> series = metrics.snapshot();
    ASSERT_EQ(series.size(), 1u);
    const std::array<std::uint64_t, 15> expected{2, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1};
    EXPECT_EQ(series[0].buckets, expected);
    EXPECT_NEAR(series[0].duration_sum_seconds, 0.005 + 0.005001 + 1 + 300 + 300.001, 1e-9);
    EXPECT_EQ(series[0].outcomes, (std::array<std::uint64_t, 5>{}));
}

TEST(JobMetrics, ThreadsRecordingAtOnceLoseNothing) {
    JobMetrics metrics;
    constexpr int threads = 8;
    constexpr int each = 20000;
    std::vector<std::thread> running;
    for (int t = 0; t < threads; ++t)
        running.emplace_back([&metrics, t] {
            const char *type = t % 2 == 0 ? "even" : "odd";
            for (int i = 0; i < each; ++i) {
                metrics.count("q", type, JobMetricOutcome::succeeded);
                metrics.observe("q", type, 1ms);
            }
        });
    for (int i = 0; i < 100; ++i) metrics.snapshot();  // a reader meanwhile
    for (auto &thread : running) thread.join();
    const std::vector<JobSeries> series = metrics.snapshot();
    ASSERT_EQ(series.size(), 2u);
    for (const JobSeries &one : series) {
        EXPECT_EQ(outcome(one, JobMetricOutcome::succeeded), threads / 2 * each) << one.job_type;
        EXPECT_EQ(one.buckets[0], threads / 2 * each) << one.job_type;
    }
}

TEST(JobMetrics, OutcomeNames) {
    EXPECT_STREQ(queuey::job_metric_outcome_name(JobMetricOutcome::succeeded), "succeeded");
    EXPECT_STREQ(queuey::job_metric_outcome_name(JobMetricOutcome::retried), "retried");
    EXPECT_STREQ(queuey::job_metric_outcome_name(JobMetricOutcome::deferred), "deferred");
    EXPECT_STREQ(queuey::job_metric_outcome_name(JobMetricOutcome::dead_lettered), "dead_lettered");
    EXPECT_STREQ(queuey::job_metric_outcome_name(JobMetricOutcome::timed_out), "timed_out");
}

}  // namespace

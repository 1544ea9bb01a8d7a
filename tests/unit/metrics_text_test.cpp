// render_metrics_text: the exact Prometheus text (0.0.4) for a small case: label values
// escaped, buckets cumulative up to +Inf, _sum and _count, the worker's counters, and
// the queue depths only when there are some.
#include "metrics_text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using queuey::JobSeries;
using queuey::WorkerMetrics;

// One series whose queue and job type need escaping, four handler runs: two in the
// first bucket, one in le="0.05", one past 300 s.
WorkerMetrics small_case() {
    WorkerMetrics metrics;
    JobSeries series;
    series.queue = "q\"1";
    series.job_type = "a\\b\nc";
    series.outcomes = {3, 1, 0, 2, 1};
    series.buckets[0] = 2;
    series.buckets[3] = 1;
    series.buckets[14] = 1;
    series.duration_sum_seconds = 301.25;
    metrics.jobs.push_back(series);
    metrics.counters.dead_lettered_fatal = 1;
    metrics.counters.dead_lettered_exhausted = 2;
    metrics.counters.dead_lettered_unknown_type = 3;
    metrics.counters.dead_lettered_undecodable = 4;
    metrics.counters.dead_lettered_lost = 5;
    metrics.counters.dead_lettered_malformed = 6;
    metrics.counters.dropped_malformed = 7;
    metrics.counters.worker_lost = 8;
    metrics.counters.settle_failures = 9;
    metrics.counters.in_flight = 10;
    metrics.counters.parked = 11;
    metrics.counters.duplicate_fires = 13;
    return metrics;
}

const std::string jobs_text =
    R"(# HELP queuey_jobs_total Runs of jobs that ended, by queue, job type and outcome; each run counts once, a run past the job timeout as timed_out.
# TYPE queuey_jobs_total counter
queuey_jobs_total{queue="q\"1",job_type="a\\b\nc",outcome="succeeded"} 3
queuey_jobs_total{queue="q\"1",job_type="a\\b\nc",outcome="retried"} 1
queuey_jobs_total{queue="q\"1",job_type="a\\b\nc",outcome="deferred"} 0
queuey_jobs_total{queue="q\"1",job_type="a\\b\nc",outcome="dead_lettered"} 2
queuey_jobs_total{queue="q\"1",job_type="a\\b\nc",outcome="timed_out"} 1
# HELP queuey_job_duration_seconds How long handlers ran, from their start to their return, in seconds.
# TYPE queuey_job_duration_seconds histogram
queuey_job_duration_seconds_bucket{queue="q\"1",job_type="a\\b\nc",le="0.005"} 2
queuey_job_duration_seconds_bucket{queue="q\"1",job_type="a\\b\nc",le="0.01"} 2
queuey_job_duration_seconds_bucket{queue="q\"1",job_type="a\\b\nc",le="0.025"} 2
queuey_job_duration_seconds_bucket{queue="q\"1",job_type="a\\b\nc",le="0.05"} 3
queuey_job_duration_seconds_bucket{queue="q\"1",job_type="a\\b\nc",le="0.1"} 3
queuey_job_duration_seconds_bucket{queue="q\"1",job_type="a\\b\nc",le="0.25"} 3
queuey_job_duration_seconds_bucket{queue="q\"1",job_type="a\\b\nc",le="0.5"} 3
queuey_job_duration_seconds_bucket{queue="q\"1",job_type="a\\b\nc",le="1"} 3
queuey_job_duration_seconds_bucket{queue="q\"1",job_type="a\\b\nc",le="2.5"} 3
queuey_job_duration_seconds_bucket{queue="q\"1",job_type="a\\b\nc",le="5"} 3
queuey_job_duration_seconds_bucket{queue="q\"1",job_type="a\\b\nc",le="10"} 3
queuey_job_duration_seconds_bucket{queue="q\"1",job_type="a\\b\nc",le="30"} 3
queuey_job_duration_seconds_bucket{queue="q\"1",job_type="a\\b\nc",le="60"} 3
queuey_job_duration_seconds_bucket{queue="q\"1",job_type="a\\b\nc",le="300"} 3
queuey_job_duration_seconds_bucket{queue="q\"1",job_type="a\\b\nc",le="+Inf"} 4
queuey_job_duration_seconds_sum{queue="q\"1",job_type="a\\b\nc"} 301.25
queuey_job_duration_seconds_count{queue="q\"1",job_type="a\\b\nc"} 4
)";

const std::string counters_text =
    R"(# HELP queuey_worker_dead_lettered_total Jobs the worker dead-lettered, by reason (malformed bodies are counted in queuey_worker_malformed_total).
# TYPE queuey_worker_dead_lettered_total counter
queuey_worker_dead_lettered_total{reason="fatal"} 1
queuey_worker_dead_lettered_total{reason="exhausted"} 2
queuey_worker_dead_lettered_total{reason="unknown_type"} 3
queuey_worker_dead_lettered_total{reason="undecodable"} 4
queuey_worker_dead_lettered_total{reason="lost"} 5
# HELP queuey_worker_malformed_total Bodies that were not a valid envelope: copied to the dead-letter queue (dead_lettered), or rejected and gone because the copy failed (dropped).
# TYPE queuey_worker_malformed_total counter
queuey_worker_malformed_total{action="dead_lettered"} 6
queuey_worker_malformed_total{action="dropped"} 7
# HELP queuey_worker_duplicate_fires_total Second copies of a schedule's fire that the worker dropped without running them (it had run the fire already).
# TYPE queuey_worker_duplicate_fires_total counter
queuey_worker_duplicate_fires_total 13
# HELP queuey_worker_lost_runs_total Redelivered jobs taken as lost runs (their worker may have been lost while running them).
# TYPE queuey_worker_lost_runs_total counter
queuey_worker_lost_runs_total 8
# HELP queuey_worker_settle_failures_total Settle tries (ack, retry, deferral, dead letter, requeue) that failed.
# TYPE queuey_worker_settle_failures_total counter
queuey_worker_settle_failures_total 9
# HELP queuey_worker_jobs_in_flight Jobs the worker is running now.
# TYPE queuey_worker_jobs_in_flight gauge
queuey_worker_jobs_in_flight 10
# HELP queuey_worker_jobs_parked Jobs kept unsettled after a failed settle, to settle again.
# TYPE queuey_worker_jobs_parked gauge
queuey_worker_jobs_parked 11
)";

TEST(MetricsText, ASmallCaseExactly) {
    EXPECT_EQ(queuey::render_metrics_text(small_case()), jobs_text + counters_text);
}

TEST(MetricsText, QueueDepthsWhenGiven) {
    WorkerMetrics metrics = small_case();
    metrics.depths = {{"q\"1", 12, 2}, {"other", 0, 1}};
    EXPECT_EQ(
        queuey::render_metrics_text(metrics),
        jobs_text + counters_text +
            R"(# HELP queuey_queue_messages_ready Messages ready for delivery in a queue the worker consumes, as the broker reports them.
# TYPE queuey_queue_messages_ready gauge
queuey_queue_messages_ready{queue="q\"1"} 12
queuey_queue_messages_ready{queue="other"} 0
# HELP queuey_queue_consumers Consumers of a queue the worker consumes, as the broker reports them.
# TYPE queuey_queue_consumers gauge
queuey_queue_consumers{queue="q\"1"} 2
queuey_queue_consumers{queue="other"} 1
)");
}

TEST(MetricsText, NoSeriesYetLeavesTheFamiliesWithoutSamples) {
    const std::string text = queuey::render_metrics_text({});
    EXPECT_EQ(text.substr(0, text.find("# HELP queuey_worker_dead_lettered_total")),
              "# HELP queuey_jobs_total Runs of jobs that ended, by queue, job type and outcome; "
              "each run counts once, a run past the job timeout as timed_out.\n"
              "# TYPE queuey_jobs_total counter\n"
              "# HELP queuey_job_duration_seconds How long handlers ran, from their start to "
              "their return, in seconds.\n"
              "# TYPE queuey_job_duration_seconds histogram\n");
    EXPECT_NE(text.find("queuey_worker_jobs_parked 0\n"), std::string::npos);
    EXPECT_EQ(text.find("queuey_queue_"), std::string::npos);
}

TEST(MetricsText, LabelValuesEscapeBackslashQuoteAndLineFeedOnly) {
    EXPECT_EQ(queuey::escape_label_value("plain \t é"), "plain \t é");
    EXPECT_EQ(queuey::escape_label_value("\\"), "\\\\");
    EXPECT_EQ(queuey::escape_label_value("\""), "\\\"");
    EXPECT_EQ(queuey::escape_label_value("\n"), "\\n");
    EXPECT_EQ(queuey::escape_label_value("a\\\"\nb"), "a\\\\\\\"\\nb");
}

}  // namespace

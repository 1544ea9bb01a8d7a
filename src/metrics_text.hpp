// A worker's metrics in the Prometheus text exposition format, version 0.0.4
// (docs/metrics.md): the names, labels, HELP texts and the escaping of label values.
#pragma once

#include "worker/job_metrics.hpp"
#include "worker/worker_counters.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace queuey {

// A queue's counts as the broker reports them.
struct QueueDepth {
    std::string queue;
    std::uint64_t ready = 0;      // messages ready for delivery
    std::uint64_t consumers = 0;  // consumers subscribed to it
};

// What render_metrics_text() writes.
struct WorkerMetrics {
    std::vector<JobSeries> jobs;     // queuey_jobs_total, queuey_job_duration_seconds
    WorkerCounters counters;         // queuey_worker_*
    std::vector<QueueDepth> depths;  // queuey_queue_*, left out when empty
};

// The text, each metric family with its # HELP and # TYPE lines; ends with a newline.
std::string render_metrics_text(const WorkerMetrics &metrics);

// value as a label value between double quotes: backslash, double quote and line feed
// escaped as \\, \" and \n.
std::string escape_label_value(std::string_view value);

// The media type of the text, for an HTTP Content-Type header.
inline constexpr std::string_view metrics_text_content_type =
    "text/plain; version=0.0.4; charset=utf-8";

}  // namespace queuey

#include "metrics_text.hpp"

#include <charconv>
#include <initializer_list>
#include <utility>

namespace queuey {

namespace {

using Label = std::pair<std::string_view, std::string_view>;

// The shortest text that reads back as value: "0.005", "2.5", "300".
std::string format_double(double value) {
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

// text with backslash and line feed escaped, and double quotes too when quotes is set
// (label values; HELP texts leave them).
std::string escaped(std::string_view text, bool quotes) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else if (c == '"' && quotes)
            out += "\\\"";
        else
            out += c;
    }
    return out;
}

// Appends metric families to a text, one line at a time.
class Exposition {
public:
    void family(std::string_view name, std::string_view type, std::string_view help) {
        text_.append("# HELP ").append(name).append(" ").append(escaped(help, false)).append("\n");
        text_.append("# TYPE ").append(name).append(" ").append(type).append("\n");
    }

    void sample(std::string_view name, std::initializer_list<Label> labels,
                std::string_view value) {
        text_.append(name);
        if (labels.size() > 0) {
            char separator = '{';
            for (const Label &label : labels) {
                text_ += separator;
                text_.append(label.first).append("=\"");
                text_.append(escape_label_value(label.second)).append("\"");
                separator = ',';
            }
            text_ += '}';
        }
        text_.append(" ").append(value).append("\n");
    }
    void sample(std::string_view name, std::initializer_list<Label> labels, std::uint64_t value) {
        sample(name, labels, std::to_string(value));
    }

    std::string take() { return std::move(text_); }

private:
    std::string text_;
};

void write_jobs(Exposition &out, const std::vector<JobSeries> &jobs) {
    out.family("queuey_jobs_total", "counter",
               "Runs of jobs that ended, by queue, job type and outcome; each run counts once, "
               "a run past the job timeout as timed_out.");
    for (const JobSeries &series : jobs)
        for (std::size_t i = 0; i < job_metric_outcome_count; ++i)
            out.sample("queuey_jobs_total",
                       {{"queue", series.queue},
                        {"job_type", series.job_type},
                        {"outcome", job_metric_outcome_name(static_cast<JobMetricOutcome>(i))}},
                       series.outcomes[i]);

    out.family("queuey_job_duration_seconds", "histogram",
               "How long handlers ran, from their start to their return, in seconds.");
    for (const JobSeries &series : jobs) {
        std::uint64_t cumulative = 0;
        for (std::size_t i = 0; i < series.buckets.size(); ++i) {
            cumulative += series.buckets[i];
            const std::string bound = i < job_duration_bounds.size()
                                          ? format_double(job_duration_bounds[i])
                                          : std::string("+Inf");
            out.sample("queuey_job_duration_seconds_bucket",
                       {{"queue", series.queue}, {"job_type", series.job_type}, {"le", bound}},
                       cumulative);
        }
        out.sample("queuey_job_duration_seconds_sum",
                   {{"queue", series.queue}, {"job_type", series.job_type}},
                   format_double(series.duration_sum_seconds));
        out.sample("queuey_job_duration_seconds_count",
                   {{"queue", series.queue}, {"job_type", series.job_type}}, cumulative);
    }
}

void write_counters(Exposition &out, const WorkerCounters &counters) {
    out.family("queuey_worker_dead_lettered_total", "counter",
               "Jobs the worker dead-lettered, by reason (malformed bodies are counted in "
               "queuey_worker_malformed_total).");
    const std::pair<const char *, std::uint64_t> reasons[] = {
        {"fatal", counters.dead_lettered_fatal},
        {"exhausted", counters.dead_lettered_exhausted},
        {"unknown_type", counters.dead_lettered_unknown_type},
        {"undecodable", counters.dead_lettered_undecodable},
        {"lost", counters.dead_lettered_lost},
    };
    for (const auto &reason : reasons)
        out.sample("queuey_worker_dead_lettered_total", {{"reason", reason.first}}, reason.second);

    out.family("queuey_worker_malformed_total", "counter",
               "Bodies that were not a valid envelope: copied to the dead-letter queue "
               "(dead_lettered), or rejected and gone because the copy failed (dropped).");
    out.sample("queuey_worker_malformed_total", {{"action", "dead_lettered"}},
               counters.dead_lettered_malformed);
    out.sample("queuey_worker_malformed_total", {{"action", "dropped"}},
               counters.dropped_malformed);

    out.family("queuey_worker_duplicate_fires_total", "counter",
               "Second copies of a schedule's fire that the worker dropped without running "
               "them (it had run the fire already).");
    out.sample("queuey_worker_duplicate_fires_total", {}, counters.duplicate_fires);

    out.family("queuey_worker_lost_runs_total", "counter",
               "Redelivered jobs taken as lost runs (their worker may have been lost while "
               "running them).");
    out.sample("queuey_worker_lost_runs_total", {}, counters.worker_lost);

    out.family("queuey_worker_settle_failures_total", "counter",
               "Settle tries (ack, retry, deferral, dead letter, requeue) that failed.");
    out.sample("queuey_worker_settle_failures_total", {}, counters.settle_failures);

    out.family("queuey_worker_jobs_in_flight", "gauge", "Jobs the worker is running now.");
    out.sample("queuey_worker_jobs_in_flight", {}, counters.in_flight);

    out.family("queuey_worker_jobs_parked", "gauge",
               "Jobs kept unsettled after a failed settle, to settle again.");
    out.sample("queuey_worker_jobs_parked", {}, counters.parked);
}

void write_depths(Exposition &out, const std::vector<QueueDepth> &depths) {
    if (depths.empty()) return;
    out.family("queuey_queue_messages_ready", "gauge",
               "Messages ready for delivery in a queue the worker consumes, as the broker "
               "reports them.");
    for (const QueueDepth &depth : depths)
        out.sample("queuey_queue_messages_ready", {{"queue", depth.queue}}, depth.ready);
    out.family("queuey_queue_consumers", "gauge",
               "Consumers of a queue the worker consumes, as the broker reports them.");
    for (const QueueDepth &depth : depths)
        out.sample("queuey_queue_consumers", {{"queue", depth.queue}}, depth.consumers);
}

}  // namespace

std::string escape_label_value(std::string_view value) { return escaped(value, true); }

std::string render_metrics_text(const WorkerMetrics &metrics) {
    Exposition out;
    write_jobs(out, metrics.jobs);
    write_counters(out, metrics.counters);
    write_depths(out, metrics.depths);
    return out.take();
}

}  // namespace queuey

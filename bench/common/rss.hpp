// The process's resident memory (RSS), sampled by progress rather than by time: every
// `every`-th completed job reads it, so the first and the last tenth of a run hold as
// many samples however its speed varies.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <vector>

// RSS of this process now, in bytes (/proc/self/statm); 0 when it cannot be read.
std::size_t resident_bytes();

class RssByProgress {
public:
    // A run of `jobs` jobs, about `samples` samples in all. Throws when this system
    // shows no RSS.
    RssByProgress(std::size_t jobs, std::size_t samples);

    // Counts one completed job; samples the RSS on every `every`-th. Any thread; never
    // throws.
    void job_done();

    // The median RSS (bytes) of the samples taken after job `first` up to job `last`
    // (1-based, inclusive); 0 when none was.
    double median_between(std::size_t first, std::size_t last) const;

private:
    struct Sample {
        std::size_t jobs_done, rss;
    };

    std::size_t every_;
    std::atomic<std::size_t> done_{0};
    mutable std::mutex mutex_;
    std::vector<Sample> samples_;
};

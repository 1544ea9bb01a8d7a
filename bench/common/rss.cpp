#include "rss.hpp"

#include "report.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <utility>

std::size_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::size_t size_pages = 0, resident_pages = 0;
    if (!(statm >> size_pages >> resident_pages)) return 0;
    return resident_pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

RssByProgress::RssByProgress(std::size_t jobs, std::size_t samples)
    : every_(std::max<std::size_t>(1, jobs / samples)) {
    // Checked here: job_done() runs inside a queuey handler, where nothing may throw.
    if (resident_bytes() == 0) throw std::runtime_error("cannot read /proc/self/statm");
    samples_.reserve(jobs / every_ + 1);  // no allocation while sampling
}

void RssByProgress::job_done() {
    const std::size_t done = ++done_;
    if (done % every_ != 0) return;
    const std::size_t rss = resident_bytes();
    const std::lock_guard lock(mutex_);
    samples_.push_back({done, rss});
}

double RssByProgress::median_between(std::size_t first, std::size_t last) const {
    std::vector<double> values;
    {
        const std::lock_guard lock(mutex_);
        for (const Sample &s : samples_)
            if (s.jobs_done >= first && s.jobs_done <= last)
                values.push_back(static_cast<double>(s.rss));
    }
    return values.empty() ? 0 : median(std::move(values));
}

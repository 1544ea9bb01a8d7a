#include "report.hpp"

#include <algorithm>
#include <cstdio>

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

Sample sample_of(const Timing &timing, std::size_t jobs) {
    const auto count = static_cast<double>(jobs);
    return {count / timing.seconds, timing.cpu_seconds * 1e6 / count,
            static_cast<double>(timing.switches) / count, timing.user_seconds * 1e6 / count};
}

Sample median(const std::vector<Sample> &samples) {
    auto of = [&](double Sample::*field) {
        std::vector<double> values;
        for (const Sample &s : samples) values.push_back(s.*field);
        return median(values);
    };
    return {of(&Sample::jobs_per_second), of(&Sample::cpu_us), of(&Sample::switches),
            of(&Sample::user_us)};
}

std::vector<Sample> measure_interleaved(const std::vector<Side> &sides, std::size_t rounds,
                                        const std::string &label) {
    std::vector<std::vector<Sample>> samples(sides.size());
    for (std::size_t r = 1; r <= rounds; ++r) {
        for (std::size_t s = 0; s < sides.size(); ++s) {
            const Sample sample = sides[s].run();
            samples[s].push_back(sample);
            std::fprintf(stderr,
                         "run %s #%zu %s: %.0f jobs/s, %.1f us/job cpu (user %.1f), %.2f "
                         "switches/job\n",
                         label.c_str(), r, sides[s].name, sample.jobs_per_second, sample.cpu_us,
                         sample.user_us, sample.switches);
        }
    }
    std::vector<Sample> medians;
    for (const auto &side_samples : samples) medians.push_back(median(side_samples));
    return medians;
}

void print_pair(const std::string &label, const Sample &queuey, const Sample &raw, bool headline) {
    if (headline) {
        std::printf("bench %s: %.0f jobs/s (%.2f x raw)\n", label.c_str(), queuey.jobs_per_second,
                    queuey.jobs_per_second / raw.jobs_per_second);
        std::printf("raw %s: %.0f jobs/s\n", label.c_str(), raw.jobs_per_second);
    } else {
        std::printf("also %s: %.0f jobs/s (%.2f x raw; raw %.0f jobs/s)\n", label.c_str(),
                    queuey.jobs_per_second, queuey.jobs_per_second / raw.jobs_per_second,
                    raw.jobs_per_second);
    }
    std::printf(
        "cpu %s: queuey %.1f us/job, raw %.1f us/job (%.2f x raw); user queuey %.1f, raw %.1f; "
        "switches queuey %.2f/job, raw %.2f/job\n",
        label.c_str(), queuey.cpu_us, raw.cpu_us, queuey.cpu_us / raw.cpu_us, queuey.user_us,
        raw.user_us, queuey.switches, raw.switches);
    std::fflush(stdout);
}

void print_one(const std::string &label, const char *side, const Sample &sample) {
    std::printf("%s %s: %.0f jobs/s, %.1f us/job cpu, %.2f switches/job\n", side, label.c_str(),
                sample.jobs_per_second, sample.cpu_us, sample.switches);
    std::fflush(stdout);
}

void print_sides(const std::string &label, const std::vector<Side> &sides,
                 const std::vector<Sample> &medians, bool headline) {
    if (sides.size() == 1) return print_one(label, sides[0].name, medians[0]);
    const Sample &ceiling = medians[0], &raw = medians[1], &queuey = medians[2];
    print_pair(label, queuey, raw, headline);
    std::printf(
        "ceiling %s: %.0f jobs/s, %.1f us/job cpu (raw %.2f x ceiling, cpu raw %.2f x "
        "ceiling)\n",
        label.c_str(), ceiling.jobs_per_second, ceiling.cpu_us,
        raw.jobs_per_second / ceiling.jobs_per_second, raw.cpu_us / ceiling.cpu_us);
    std::fflush(stdout);
}

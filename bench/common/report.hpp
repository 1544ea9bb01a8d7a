// Running the sides of a benchmark interleaved and printing their medians, in the line
// format every bench program and scripts/bench share:
//   bench NAME: VALUE jobs/s (RATIO x raw)      VALUE: queuey's median; RATIO: queuey / raw
//   raw NAME: VALUE jobs/s
//   cpu NAME: queuey C us/job, raw C us/job (RATIO x raw); switches queuey S/job, raw S/job
//   ceiling NAME: VALUE jobs/s, C us/job cpu (raw R x ceiling, cpu raw Q x ceiling)
// (cpu: the process's CPU time, switches: its voluntary context switches, per job; both
// medians, which a busy machine disturbs far less than jobs/s. ceiling: raw rabbitmq-c on
// a durable classic queue without arguments; R and Q: raw on the benchmark's queue over
// it, what the queue's shape costs). stderr gets every run.
#pragma once

#include "stopwatch.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

// One run's figures, per job.
struct Sample {
    double jobs_per_second, cpu_us, switches;
    double user_us;  // the user-space share of cpu_us
};

Sample sample_of(const Timing &timing, std::size_t jobs);

// The median of values (not empty).
double median(std::vector<double> values);

// Each figure's median on its own.
Sample median(const std::vector<Sample> &samples);

// A contender: one timed run on a fresh queue per call.
struct Side {
    const char *name;
    std::function<Sample()> run;
};

// Runs round after round of every side in order (ceiling, raw, queuey, ceiling, ...:
// load drifts hit all) and returns each side's median, in the order of `sides`.
std::vector<Sample> measure_interleaved(const std::vector<Side> &sides, std::size_t rounds,
                                        const std::string &label);

// The bench, raw and cpu lines; with headline false one `also LABEL: ...` line instead
// of the bench and raw lines.
void print_pair(const std::string &label, const Sample &queuey, const Sample &raw, bool headline);

// One side alone (--side): `SIDE LABEL: VALUE jobs/s, C us/job cpu, S switches/job`.
void print_one(const std::string &label, const char *side, const Sample &sample);

// The lines of the sides chosen_sides() (cli.hpp) ran, medians in their order: with all
// three (ceiling, raw, queuey) print_pair and the ceiling line, else print_one.
void print_sides(const std::string &label, const std::vector<Side> &sides,
                 const std::vector<Sample> &medians, bool headline);

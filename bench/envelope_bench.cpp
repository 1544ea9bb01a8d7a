// Envelope codec throughput against a baseline measured in the same run: plain RapidJSON
// (the library the core is built on) parsing the same bytes into a DOM and writing the
// DOM back with Writer<StringBuffer>. One benchmark iteration handles one envelope.
//
// After the run it prints one line per case, from the median CPU time of 5 repetitions:
//   bench NAME: VALUE ns/envelope (RATIO x rapidjson-dom)
// NAME is encode, decode or encode+decode (decode, then encode the result) of /seed (the
// golden seed body), /payload4k (the same envelope with a 4096-byte payload of application
// data) or /string1m (with a 1 MiB payload that is one JSON string, the payload of the
// broker and worker benchmarks' --payload-bytes 1048576). The
// baseline for encode is Writer<StringBuffer> of the DOM, for decode Document::Parse.
// Google Benchmark flags (--benchmark_filter, ...) work as usual.
#include "envelope_codec.hpp"

#include <benchmark/benchmark.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

std::string read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

// A payload of exactly `size` bytes of compact JSON that looks like application data:
// records with strings, integers, decimals, booleans, nested arrays and non-ASCII text.
// A fixed LCG makes it the same on every run.
std::string make_payload(std::size_t size) {
    std::uint32_t state = 12345;
    auto next = [&state] { return (state = state * 1664525u + 1013904223u) >> 8; };
    static const char *const notes[] = {"ok",
                                        "café crème",
                                        "naïve résumé",
                                        "Grüße aus Köln",
                                        "日本語のテキスト",
                                        "emoji 🚀 ok",
                                        R"(tab\tand \"quotes\")"};
    std::string json = R"({"tenant":"acme-eu-1","records":[)";
    for (int i = 0;; ++i) {
        std::string record = std::string(i ? "," : "") + R"({"id":)" + std::to_string(next()) +
                             R"(,"name":"user-)" + std::to_string(i) + R"(","score":)" +
                             std::to_string(next() % 1000) + "." + std::to_string(next() % 100) +
                             R"(,"active":)" + (next() % 2 ? "true" : "false") +
                             R"(,"tags":["a","bb",[)" + std::to_string(next() % 50) + "," +
                             std::to_string(next() % 50) + R"(]],"note":")" +
                             notes[next() % std::size(notes)] + R"(","parent":null})";
        // Stop while there is room to close the array and add the padding member.
        if (json.size() + record.size() + 16 > size) break;
        json += record;
    }
    json += R"(],"pad":")";
    json.append(size - json.size() - 2, 'x');
    json += "\"}";
    return json;
}

struct Input {
    const char *name;
    std::string body;           // the wire bytes
    queuey::Envelope envelope;  // body, decoded
    rapidjson::Document dom;    // body, parsed by plain RapidJSON
};

// Strictness comparable to the core's reader (it also validates UTF-8); numbers are
// parsed as numbers, since kParseNumbersAsStringsFlag would make the DOM write strings.
constexpr unsigned baseline_flags = rapidjson::kParseValidateEncodingFlag;

Input inputs[] = {{"seed", {}, {}, {}}, {"payload4k", {}, {}, {}}, {"string1m", {}, {}, {}}};

void set_rate(benchmark::State &state) {
    state.SetItemsProcessed(state.iterations());
    // CPU seconds per iteration, shown with an SI prefix ("812ns").
    state.counters["per_envelope"] =
        benchmark::Counter(static_cast<double>(state.iterations()),
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void queuey_encode(benchmark::State &state, const Input *in) {
    for (auto _ : state) {
        std::string out = queuey::encode_envelope(in->envelope);
        benchmark::DoNotOptimize(out.data());
    }
    set_rate(state);
}

void queuey_decode(benchmark::State &state, const Input *in) {
    for (auto _ : state) {
        queuey::Envelope env = queuey::decode_envelope(in->body);
        benchmark::DoNotOptimize(env.payload.c_str());
    }
    set_rate(state);
}

void queuey_roundtrip(benchmark::State &state, const Input *in) {
    for (auto _ : state) {
        std::string out = queuey::encode_envelope(queuey::decode_envelope(in->body));
        benchmark::DoNotOptimize(out.data());
    }
    set_rate(state);
}

void rapidjson_write(benchmark::State &state, const Input *in) {
    for (auto _ : state) {
        rapidjson::StringBuffer out;
        rapidjson::Writer<rapidjson::StringBuffer> writer(out);
        in->dom.Accept(writer);
        benchmark::DoNotOptimize(out.GetString());
    }
    set_rate(state);
}

void rapidjson_parse(benchmark::State &state, const Input *in) {
    for (auto _ : state) {
        rapidjson::Document dom;
        dom.Parse<baseline_flags>(in->body.data(), in->body.size());
        benchmark::DoNotOptimize(dom.IsObject());
    }
    set_rate(state);
}

void rapidjson_roundtrip(benchmark::State &state, const Input *in) {
    for (auto _ : state) {
        rapidjson::Document dom;
        dom.Parse<baseline_flags>(in->body.data(), in->body.size());
        rapidjson::StringBuffer out;
        rapidjson::Writer<rapidjson::StringBuffer> writer(out);
        dom.Accept(writer);
        benchmark::DoNotOptimize(out.GetString());
    }
    set_rate(state);
}

// Console output as usual, plus the median CPU time of every benchmark by name. CPU time,
// not wall time: on a shared machine it is the one that does not count other processes.
class MedianCollector : public benchmark::ConsoleReporter {
public:
    // Colours only on a terminal (the --benchmark_color flag reaches only the default reporter).
    MedianCollector() : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_Defaults : OO_Tabular) {}

    std::map<std::string, double> median_ns;

    void ReportRuns(const std::vector<Run> &runs) override {
        for (const Run &run : runs)
            if (run.run_type == Run::RT_Aggregate && run.aggregate_name == "median")
                median_ns[run.run_name.function_name] = run.GetAdjustedCPUTime();  // ns: see Unit()
        ConsoleReporter::ReportRuns(runs);
    }
};

struct Case {
    const char *operation;  // encode, decode, encode+decode
    void (*core)(benchmark::State &, const Input *);
    void (*baseline)(benchmark::State &, const Input *);
};

const Case cases[] = {
    {"encode", queuey_encode, rapidjson_write},
    {"decode", queuey_decode, rapidjson_parse},
    {"encode+decode", queuey_roundtrip, rapidjson_roundtrip},
};

}  // namespace

int main(int argc, char **argv) {
    Input &seed = inputs[0], &big = inputs[1], &string1m = inputs[2];
    seed.body = read_file(QUEUEY_VECTORS_DIR "/bodies/seed.json");
    queuey::Envelope with_big_payload = queuey::decode_envelope(seed.body);
    with_big_payload.payload = queuey::compact_json_value(make_payload(4096), "payload");
    big.body = queuey::encode_envelope(with_big_payload);
    queuey::Envelope with_string = with_big_payload;
    with_string.payload = '"' + std::string((1u << 20) - 2, 'x') + '"';
    string1m.body = queuey::encode_envelope(with_string);
    for (Input &in : inputs) {
        in.envelope = queuey::decode_envelope(in.body);
        if (in.dom.Parse<baseline_flags>(in.body.data(), in.body.size()).HasParseError())
            throw std::runtime_error(std::string("rapidjson cannot parse the body of ") + in.name);
    }

    for (const Input &in : inputs)
        for (const Case &c : cases) {
            const std::string suffix = std::string(c.operation) + "/" + in.name;
            for (const bool core : {true, false})
                benchmark::RegisterBenchmark(
                    ((core ? "queuey/" : "rapidjson-dom/") + suffix).c_str(),
                    core ? c.core : c.baseline, &in)
                    ->Unit(benchmark::kNanosecond)
                    ->Repetitions(5)
                    ->ReportAggregatesOnly(true);
        }

    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    MedianCollector reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();

    std::printf(
        "\n# bodies: seed %zu bytes, payload4k %zu bytes (a %zu-byte payload), string1m %zu "
        "bytes\n",
        seed.body.size(), big.body.size(), with_big_payload.payload.size(), string1m.body.size());
    for (const Input &in : inputs)
        for (const Case &c : cases) {
            const std::string suffix = std::string(c.operation) + "/" + in.name;
            const auto core = reporter.median_ns.find("queuey/" + suffix);
            const auto base = reporter.median_ns.find("rapidjson-dom/" + suffix);
            if (core == reporter.median_ns.end() || base == reporter.median_ns.end())
                continue;  // filtered out by --benchmark_filter
            std::printf("bench %s: %.1f ns/envelope (%.2f x rapidjson-dom)\n", suffix.c_str(),
                        core->second, core->second / base->second);
        }
    return 0;
}

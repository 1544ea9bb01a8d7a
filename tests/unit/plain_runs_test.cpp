// Plain runs: noted while a body is copied in pieces, stepped over by the decoder. A run
// holds plain ASCII bytes only, and decoding with the runs gives what decoding without
// them gives, the same envelope or the same error.
#include "plain_runs.hpp"
#include "envelope_codec.hpp"
#include "error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

namespace queuey {
namespace {

// rabbitmq-c's body frames at its default frame size: pieces of 131,064 bytes.
constexpr std::size_t frame_bytes = 131064;

struct Copied {
    std::shared_ptr<char> body;
    PlainRuns runs;
};

Copied copy_in_frames(const std::string &bytes) {
    Copied copied{std::shared_ptr<char>(new char[bytes.size() + 1], std::default_delete<char[]>()),
                  {}};
    for (std::size_t at = 0; at < bytes.size(); at += frame_bytes)
        copied.runs.copy(copied.body.get(), at, bytes.data() + at,
                         std::min(frame_bytes, bytes.size() - at));
    return copied;
}

bool plain(char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte >= 0x20 && byte < 0x80 && byte != '"' && byte != '\\';
}

bool in_a_run(const PlainRuns &runs, std::size_t offset) {
    return std::any_of(runs.runs().begin(), runs.runs().end(), [&](const PlainRun &run) {
        return run.begin <= offset && offset < run.end;
    });
}

bool has_avx2() { return __builtin_cpu_supports("avx2"); }

TEST(PlainRuns, CopiesEveryByteAndNotesOnlyPlainOnes) {
    std::string bytes(300'000, 'x');
    const std::size_t specials[] = {5'000, 100'000, 200'000, 250'000, 260'000};
    bytes[specials[0]] = '"';
    bytes[specials[1]] = '\\';
    bytes[specials[2]] = '\x1f';
    bytes[specials[3]] = '\xc3';  // from 0x80 up: not plain either
    bytes[specials[4]] = '\x7f';  // plain
    const Copied copied = copy_in_frames(bytes);
    EXPECT_EQ(std::string(copied.body.get(), bytes.size()), bytes);

    std::size_t last_end = 0;
    for (const PlainRun &run : copied.runs.runs()) {
        EXPECT_GE(run.begin, last_end);  // sorted, none overlapping
        EXPECT_GE(run.end - run.begin, PlainRuns::shortest);
        EXPECT_TRUE(std::all_of(bytes.begin() + run.begin, bytes.begin() + run.end, plain))
            << "run " << run.begin << ".." << run.end;
        last_end = run.end;
    }
    for (const std::size_t at : {specials[0], specials[1], specials[2], specials[3]})
        EXPECT_FALSE(in_a_run(copied.runs, at)) << at;
    if (!has_avx2()) GTEST_SKIP() << "no AVX2: bodies are copied without noting runs";
    // Far from the special bytes and the pieces' ends, every byte is in a run.
    for (const std::size_t at : {std::size_t{50'000}, std::size_t{150'000}, std::size_t{230'000},
                                 specials[4], std::size_t{290'000}})
        EXPECT_TRUE(in_a_run(copied.runs, at)) << at;
    // A run ends with its piece: none crosses a frame's end.
    for (const PlainRun &run : copied.runs.runs())
        EXPECT_EQ(run.begin / frame_bytes, (run.end - 1) / frame_bytes);
}

TEST(PlainRuns, LeavesShortRunsUnnoted) {
    std::string bytes(64 * 1024, 'x');
    for (std::size_t at = 1000; at < bytes.size(); at += PlainRuns::shortest - 64) bytes[at] = '"';
    EXPECT_TRUE(copy_in_frames(bytes).runs.runs().empty());
}

TEST(PlainRuns, SkipperStepsOverTheRunAtAndStopsReadingAtTheNext) {
    char body[20'000] = {};
    const char *const end = body + sizeof body;
    std::string bytes(12'000, 'x');
    bytes[5'000] = '"';  // two runs: 0..4992 and 5024..12000
    PlainRuns runs;
    runs.copy(body, 0, bytes.data(), bytes.size());
    if (!has_avx2()) GTEST_SKIP() << "no AVX2: no runs";
    ASSERT_EQ(runs.runs().size(), 2u);
    PlainRunSkipper skipper(body, runs);
    const char *at = body + 10;  // inside the first: past it, reading up to the second
    EXPECT_EQ(skipper.step(at, end), body + 5'024);
    EXPECT_EQ(at, body + 4'992);
    at = body + 5'000;  // between them
    EXPECT_EQ(skipper.step(at, end), body + 5'024);
    EXPECT_EQ(at, body + 5'000);
    at = body + 5'024;  // inside the last: past it, reading to the end
    EXPECT_EQ(skipper.step(at, end), end);
    EXPECT_EQ(at, body + 12'000);
}

// Decodes body copied in frames with its runs, and without them.
void expect_same_decode(const std::string &body) {
    const Copied copied = copy_in_frames(body);
    if (has_avx2() && body.size() >= 2 * PlainRuns::shortest) {
        EXPECT_FALSE(copied.runs.runs().empty());
    }
    std::string expected, got;
    try {
        expected = encode_envelope(decode_envelope(body));
    } catch (const Error &e) {
        expected = std::string("error: ") + e.what();
    }
    try {
        got = encode_envelope(decode_envelope_sharing(copied.body, body.size(), copied.runs));
    } catch (const Error &e) {
        got = std::string("error: ") + e.what();
    }
    EXPECT_EQ(got, expected);
}

std::string body_with_payload(const std::string &payload_json) {
    return encode_envelope(Envelope::create("resize", "images", payload_json));
}

TEST(PlainRuns, DecodeStepsOverRunsToTheSameEnvelope) {
    const std::string megabyte = '"' + std::string(1 << 20, 'x') + '"';
    const std::string body = body_with_payload(megabyte);
    const Copied copied = copy_in_frames(body);
    const Envelope decoded = decode_envelope_sharing(copied.body, body.size(), copied.runs);
    EXPECT_EQ(decoded.payload, megabyte);
    EXPECT_EQ(decoded.job_type, "resize");
    expect_same_decode(body);

    // Escapes, nested strings and text other than ASCII between runs.
    std::string mixed = R"({"a":")" + std::string(70'000, 'y') + R"(\n\"q\"\u00e9)" +
                        std::string(70'000, 'z') + R"(","b":[")" + std::string(140'000, 'w') +
                        "\xc3\xa9" + std::string(9'000, 'v') + R"("]})";
    expect_same_decode(body_with_payload(mixed));
}

TEST(PlainRuns, DecodeRefusesWhatItRefusesWithoutRuns) {
    const std::string body = body_with_payload('"' + std::string(300'000, 'x') + '"');
    // The payload's string never ends: its closing quote becomes a plain byte.
    std::string unterminated = body;
    unterminated[unterminated.rfind('"')] = 'x';
    expect_same_decode(unterminated);
    // A control byte, and a byte that is no UTF-8, inside the long string.
    std::string control = body;
    control[200'000] = '\x01';
    expect_same_decode(control);
    std::string not_utf8 = body;
    not_utf8[150'000] = '\xff';
    expect_same_decode(not_utf8);
    // Cut inside the payload.
    expect_same_decode(body.substr(0, 250'000));
}

}  // namespace
}  // namespace queuey

// The leader's definitions message (schedule/schedule_definitions.hpp): its exact JSON, the
// way back, every malformed message refused with the member named, and the differences a
// scheduler that does not lead logs.
#include "schedule/schedule_definitions.hpp"
#include "error.hpp"

#include <gtest/gtest.h>

namespace queuey {
namespace {

using namespace std::chrono;

const LeaderIdentity leader{"billing-1", "web-3", 4242, sys_days{2026y / 12 / 8} + hours{2}};

Schedule nightly() {
    ScheduleDefinition definition;
    definition.name = "nightly";
    definition.queue = "reports";
    definition.job_type = "report.build";
    definition.payload_json = R"({ "full": true })";
    definition.cron = "0 2 * * *";
    definition.time_zone = "Europe/Paris";
    return Schedule(definition);
}

Schedule tick(std::int64_t interval_ms = 1000, std::string queue = "q") {
    ScheduleDefinition definition;
    definition.name = "tick";
    definition.queue = std::move(queue);
    definition.job_type = "t";
    definition.interval = milliseconds(interval_ms);
    definition.missed = {MissedFires::Policy::catch_up, 3};
    return Schedule(definition);
}

const std::string expected_json =
    R"({"leader":{"connection":"billing-1","host":"web-3","pid":4242,"since":"2026-12-08T02:00:00Z"},)"
    R"("schedules":[{"name":"nightly","queue":"reports","job_type":"report.build",)"
    R"("payload":"{\"full\":true}","cron":"0 2 * * *","time_zone":"Europe/Paris","missed":"skip"},)"
    R"({"name":"tick","queue":"q","job_type":"t","payload":"null","interval_ms":1000,)"
    R"("missed":"catch_up","catch_up_at_most":3}]})";

TEST(ScheduleDefinitions, AreWrittenAsDocumented) {
    EXPECT_EQ(encode_definitions(leader, {nightly(), tick()}), expected_json);
}

TEST(ScheduleDefinitions, ReadBackAsWritten) {
    const PublishedDefinitions read = decode_definitions(expected_json);
    EXPECT_EQ(read.leader, leader);
    ASSERT_EQ(read.schedules.size(), 2u);
    const ScheduleDefinition &cron = read.schedules[0];
    EXPECT_EQ(cron.name, "nightly");
    EXPECT_EQ(cron.queue, "reports");
    EXPECT_EQ(cron.job_type, "report.build");
    EXPECT_EQ(cron.payload_json, R"({"full":true})");
    EXPECT_EQ(cron.cron, "0 2 * * *");
    EXPECT_EQ(cron.time_zone, "Europe/Paris");
    EXPECT_FALSE(cron.interval);
    EXPECT_EQ(cron.missed.policy, MissedFires::Policy::skip);
    const ScheduleDefinition &interval = read.schedules[1];
    EXPECT_EQ(interval.interval, milliseconds(1000));
    EXPECT_FALSE(interval.cron);
    EXPECT_EQ(interval.missed.policy, MissedFires::Policy::catch_up);
    EXPECT_EQ(interval.missed.at_most, 3u);
    // Members a reader does not know are passed over.
    const std::string newer = R"({"leader":{"connection":"c","host":"h","pid":1,)"
                              R"("since":"2026-12-08T02:00:00Z","zone":"x"},"schedules":[],"v":2})";
    EXPECT_TRUE(decode_definitions(newer).schedules.empty());
}

// The field and message of the Error decode_definitions throws for body.
std::pair<std::string, std::string> refusal(const std::string &body) {
    try {
        decode_definitions(body);
    } catch (const Error &error) {
        EXPECT_EQ(error.status(), QY_ERR_BAD_JSON) << body;
        return {error.field(), error.what()};
    }
    ADD_FAILURE() << "taken: " << body;
    return {};
}

std::string with_schedule(const std::string &schedule) {
    return R"({"leader":{"connection":"c","host":"h","pid":1,"since":"2026-12-08T02:00:00Z"},)"
           R"("schedules":[)" +
           schedule + "]}";
}

TEST(ScheduleDefinitions, AMalformedMessageIsRefusedNamingWhatIsWrong) {
    const std::string fine = R"({"name":"n","queue":"q","job_type":"t","payload":"null",)"
                             R"("interval_ms":1000,"missed":"skip")";
    const std::vector<std::pair<std::string, std::string>> cases{
        {"", "body"},
        {"[]", "body"},
        {"{} x", "body"},
        {"{\"leader\":\"\xff\"}", "body"},
        {R"({"schedules":[]})", "leader"},
        {R"({"leader":{"host":"h","pid":1,"since":"2026-12-08T02:00:00Z"},"schedules":[]})",
         "leader.connection"},
        {R"({"leader":{"connection":"c","host":"h","pid":-1,"since":"2026-12-08T02:00:00Z"},"schedules":[]})",
         "leader.pid"},
        {R"({"leader":{"connection":"c","host":"h","pid":1,"since":"2026-12-08 02:00"},"schedules":[]})",
         "leader.since"},
        {R"({"leader":{"connection":"c","host":"h","pid":1,"since":"2026-12-08T02:00:00Z"}})",
         "schedules"},
        {R"({"leader":{"connection":"c","host":"h","pid":1,"since":"2026-12-08T02:00:00Z"},"schedules":{}})",
         "schedules"},
        {with_schedule("7"), "schedules[0]"},
        {with_schedule(R"({"queue":"q"})"), "schedules[0].name"},
        {with_schedule(R"({"name":"n","queue":7})"), "schedules[0].queue"},
        {with_schedule(
             R"({"name":"n","queue":"q","job_type":"t","payload":"null","interval_ms":1000})"),
         "schedules[0].missed"},
        {with_schedule(
             R"({"name":"n","queue":"q","job_type":"t","payload":"null","interval_ms":1000,"missed":"never"})"),
         "schedules[0].missed"},
        {with_schedule(
             R"({"name":"n","queue":"q","job_type":"t","payload":"null","interval_ms":1000,"missed":"catch_up"})"),
         "schedules[0].catch_up_at_most"},
        {with_schedule(
             R"({"name":"n","queue":"q","job_type":"t","payload":"null","interval_ms":0,"missed":"skip"})"),
         "schedules[0].interval_ms"},
        {with_schedule(
             R"({"name":"n","queue":"q","job_type":"t","payload":"null","cron":"61 * * * *","time_zone":"UTC","missed":"skip"})"),
         "schedules[0].cron"},
        {with_schedule(
             R"({"name":"n","queue":"q","job_type":"t","payload":"{","interval_ms":1000,"missed":"skip"})"),
         "schedules[0].payload"},
        {with_schedule(fine + "}," + fine + "}"), "schedules[1].name"},
    };
    for (const auto &[body, field] : cases) EXPECT_EQ(refusal(body).first, field) << body;
    EXPECT_EQ(refusal(with_schedule(fine + "}," + fine + "}")).second,
              "schedules[1].name: a second schedule named `n`");
    EXPECT_EQ(
        refusal(
            with_schedule(
                R"({"name":"n","queue":"q","job_type":"t","payload":"null","interval_ms":0,"missed":"skip"})"))
            .second,
        "schedules[0].interval_ms: must be an integer from 1 to 9223372036854775807");
}

TEST(ScheduleDefinitions, DefinitionsThatAgreeLogNothing) {
    EXPECT_TRUE(
        definition_differences({nightly(), tick()}, decode_definitions(expected_json)).empty());
}

TEST(ScheduleDefinitions, EachDifferenceIsOneLineNamingTheFields) {
    const PublishedDefinitions leaders = decode_definitions(encode_definitions(leader, {tick()}));
    const std::vector<std::string> lines =
        definition_differences({tick(2000, "other"), nightly()}, leaders);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0],
              "schedule `tick` differs from the leader's (connection 'billing-1'): queue `other` "
              "here, `q` in the leader's; fires `every 2000 ms` here, `every 1000 ms` in the "
              "leader's; the leader's fires");
    EXPECT_EQ(lines[1],
              "schedule `nightly` is defined here and not among the leader's (connection "
              "'billing-1') schedules: it does not fire while that process leads");
    const std::vector<std::string> missing_here = definition_differences({}, leaders);
    ASSERT_EQ(missing_here.size(), 1u);
    EXPECT_EQ(missing_here[0],
              "schedule `tick` is among the leader's (connection 'billing-1') schedules and not "
              "defined here: it fires while that process leads");
}

}  // namespace
}  // namespace queuey

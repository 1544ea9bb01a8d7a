// The broker side of the scheduler without a broker: queue names and arguments, the
// headers that make a fire its own record, and the strict reading of a record's time.
#include "schedule/schedule_queues.hpp"
#include "error.hpp"
#include "schedule/fire_id.hpp"

#include <gtest/gtest.h>

#include <variant>

namespace queuey {
namespace {

using namespace std::chrono;

const FireTime nightly = sys_days{2026y / 12 / 8} + hours{2};  // 2026-12-08T02:00:00Z

TEST(ScheduleQueues, TheElectionQueueHasOneActiveConsumerAndKeepsOneTokenWaiting) {
    EXPECT_EQ(leader_queue_name(""), "queuey.schedule.leader");
    EXPECT_EQ(leader_queue_name("billing"), "queuey.schedule.leader.billing");
    const QueueSpec spec = leader_queue_spec("billing");
    EXPECT_EQ(spec.name, "queuey.schedule.leader.billing");
    EXPECT_TRUE(spec.durable);
    const std::vector<QueueArgument> expected{{"x-max-length", std::int64_t{1}},
                                              {"x-overflow", std::string("drop-head")},
                                              {"x-single-active-consumer", true}};
    EXPECT_EQ(spec.arguments, expected);
}

TEST(ScheduleQueues, TheDefinitionsQueueKeepsTheNewestLeadersOnly) {
    EXPECT_EQ(definitions_queue_name(""), "queuey.schedule.definitions");
    const QueueSpec spec = definitions_queue_spec("billing");
    EXPECT_EQ(spec.name, "queuey.schedule.definitions.billing");
    EXPECT_TRUE(spec.durable);
    const std::vector<QueueArgument> expected{{"x-max-length", std::int64_t{1}},
                                              {"x-overflow", std::string("drop-head")}};
    EXPECT_EQ(spec.arguments, expected);
}

TEST(ScheduleQueues, AGroupIsAsLongAsItsLongestQueueNameAllows) {
    // "queuey.schedule.definitions." is 28 bytes: 227 are left of 255.
    EXPECT_NO_THROW(check_scheduler_group(std::string(227, 'g')));
    try {
        check_scheduler_group(std::string(228, 'g'));
        ADD_FAILURE() << "a group of 228 bytes was taken";
    } catch (const Error &error) {
        EXPECT_EQ(error.field(), "group");
        EXPECT_NE(std::string(error.what()).find("228 bytes: at most 227"), std::string::npos)
            << error.what();
    }
}

TEST(ScheduleQueues, ARecordQueueKeepsTheNewestMessageOnly) {
    const QueueSpec spec = record_queue_spec("nightly-report");
    EXPECT_EQ(spec.name, "queuey.schedule.record.nightly-report");
    const std::vector<QueueArgument> expected{{"x-max-length", std::int64_t{1}},
                                              {"x-overflow", std::string("drop-head")}};
    EXPECT_EQ(spec.arguments, expected);
}

TEST(ScheduleQueues, AFireCarriesTheEnvelopesPropertiesAndItsScheduleAndTime) {
    Envelope fire = Envelope::create("report.build", "reports", "null");
    fire.job_id = fire_job_id("nightly-report", nightly);
    const AmqpProperties props = fire_properties(fire, "nightly-report", nightly);
    EXPECT_EQ(props.message_id, "2689616c-c6c2-579f-8928-c90b5a7affaa");
    EXPECT_EQ(props.type, "report.build");
    std::vector<AmqpHeader> expected = publish_properties(fire).headers;
    expected.push_back({"x-queuey-schedule", std::string("nightly-report")});
    expected.push_back({"x-queuey-fire-time", std::string("2026-12-08T02:00:00Z")});
    EXPECT_EQ(props.headers, expected);
}

BrowsedMessage with_fire_time(const std::string &text) {
    BrowsedMessage message;
    message.headers.push_back({"x-queuey-fire-time", "\"" + text + "\"", text, std::nullopt});
    return message;
}

TEST(ScheduleQueues, ARecordSaysTheTimeFiresWereAccountedForUpTo) {
    const AmqpProperties record = record_properties("nightly-report", nightly);
    EXPECT_EQ(record.message_id, "record@2026-12-08T02:00:00Z");
    ASSERT_EQ(record.headers.size(), 2u);
    EXPECT_EQ(std::get<std::string>(record.headers[1].value), "2026-12-08T02:00:00Z");
    EXPECT_EQ(recorded_time(with_fire_time("2026-12-08T02:00:00Z")), nightly);
    EXPECT_EQ(recorded_time(BrowsedMessage{}), std::nullopt);  // not a record
    BrowsedMessage number;
    number.headers.push_back({"x-queuey-fire-time", "1796695200", std::nullopt, 1796695200});
    EXPECT_EQ(recorded_time(number), std::nullopt);
}

TEST(FireTimeText, OnlyTheExactSpellingOfATimeInRangeIsRead) {
    EXPECT_EQ(parse_rfc3339_utc("1970-01-01T00:00:00Z"), FireTime{});
    EXPECT_EQ(parse_rfc3339_utc("2096-02-29T23:59:59Z"),
              sys_days{2096y / 2 / 29} + hours{23} + minutes{59} + seconds{59});
    for (const char *text :
         {"", "2026-12-08T02:00:00", "2026-12-08T02:00:00z", "2026-12-08 02:00:00Z",
          "2026-12-08T02:00:00+00:00", "2026-12-8T02:00:00Z ", "2026-04-31T00:00:00Z",
          "2100-02-29T00:00:00Z", "2026-12-08T24:00:00Z", "2026-12-08T02:60:00Z",
          "2026-12-08T02:00:60Z", "1969-12-31T23:59:59Z", "9999-01-01T00:00:00Z",
          "+026-12-08T02:00:00Z", "2026-12-08T02:00:0xZ", "2026-12-08T02:00:00.5Z"})
        EXPECT_EQ(parse_rfc3339_utc(text), std::nullopt) << text;
}

}  // namespace
}  // namespace queuey

// Schedules: the shared vectors (tests/vectors/schedules: next fires, refused definitions,
// fire ids) and the missed-fire policies.
#include "schedule/schedule.hpp"
#include "error.hpp"
#include "schedule/fire_id.hpp"
#include "vectors.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace queuey {
namespace {

using namespace std::chrono;
using test::Row;

FireTime utc(const std::string &text) {
    const auto time = parse_rfc3339_utc(text);
    if (!time) throw std::invalid_argument("not RFC 3339 UTC: " + text);
    return *time;
}

std::vector<std::string> words(const std::string &text) {
    std::istringstream in(text);
    std::vector<std::string> out;
    for (std::string word; in >> word;) out.push_back(word);
    return out;
}

// A schedule of the row's timing (columns cron, interval_ms, time_zone), else defaults.
ScheduleDefinition definition_of(const Row &row) {
    ScheduleDefinition definition;
    definition.name = "schedule-" + row.at(0);
    definition.queue = "reports";
    definition.job_type = "report.build";
    if (row.at(1) != "-") definition.cron = row.at(1);
    // An interval_ms of 0 is "no interval", as in the C API (the vectors' README).
    if (row.at(2) != "-" && row.at(2) != "0")
        definition.interval = milliseconds{std::stoll(row.at(2))};
    definition.time_zone = row.at(3);
    return definition;
}

TEST(ScheduleVectors, EachRowFiresAtItsTimes) {
    for (const Row &row : test::read_tsv("schedules/fires.tsv")) {
        SCOPED_TRACE(row.at(0));
        const Schedule schedule(definition_of(row));
        std::vector<std::string> fired;
        std::optional<FireTime> fire = utc(row.at(4));
        for (std::size_t i = 0; i < words(row.at(5)).size(); ++i) {
            fire = schedule.fire_times().next_after(*fire);
            ASSERT_TRUE(fire.has_value());
            fired.push_back(rfc3339_utc(*fire));
        }
        EXPECT_EQ(fired, words(row.at(5)));
    }
}

TEST(ScheduleVectors, EachRefusedDefinitionNamesItsFieldAndValue) {
    for (const Row &row : test::read_tsv("schedules/refused.tsv")) {
        SCOPED_TRACE(row.at(0));
        try {
            Schedule schedule(definition_of(row));
            ADD_FAILURE() << "accepted";
        } catch (const Error &e) {
            EXPECT_EQ(e.status(), QY_ERR_INVALID_ARGUMENT);
            EXPECT_EQ(e.field(), row.at(4));
            EXPECT_NE(std::string(e.what()).find(row.at(5)), std::string::npos) << e.what();
        }
    }
}

TEST(ScheduleVectors, AFireIdIsTheNameBasedUuidOfTheScheduleAndFireTime) {
    for (const Row &row : test::read_tsv("schedules/fire_ids.tsv")) {
        SCOPED_TRACE(row.at(0) + " " + row.at(1));
        EXPECT_EQ(fire_job_id(row.at(0), utc(row.at(1))), row.at(2));
    }
}

ScheduleDefinition hourly_report() {
    ScheduleDefinition definition;
    definition.name = "hourly-report";
    definition.queue = "reports";
    definition.job_type = "report.build";
    definition.payload_json = R"({ "kind" : "hourly" })";
    definition.cron = "0 * * * *";
    return definition;
}

TEST(Schedule, AFireIsAJobOfTheScheduleWithItsFireIdEnqueuedNow) {
    const Schedule schedule(hourly_report());
    const FireTime fire = utc("2026-12-07T17:00:00Z");
    const auto before = unix_now_ms();
    const Envelope envelope = schedule.envelope_for(fire);
    EXPECT_EQ(envelope.job_id, fire_job_id("hourly-report", fire));
    EXPECT_EQ(envelope.job_type, "report.build");
    EXPECT_EQ(envelope.queue, "reports");
    EXPECT_EQ(envelope.payload.view(), R"({"kind":"hourly"})");
    EXPECT_EQ(envelope.attempt, 1u);
    EXPECT_GE(envelope.enqueued_at_ms, before);
    EXPECT_NE(schedule.envelope_for(fire + hours{1}).job_id, envelope.job_id);
}

TEST(Schedule, EveryOtherFieldIsCheckedWithItsName) {
    const auto field_refused = [](auto change) {
        ScheduleDefinition definition = hourly_report();
        change(definition);
        try {
            Schedule schedule(definition);
        } catch (const Error &e) {
            return e.field() + ": " + e.what();
        }
        return std::string("accepted");
    };
    EXPECT_EQ(field_refused([](auto &d) { d.name = ""; }).substr(0, 6), "name: ");
    EXPECT_EQ(field_refused([](auto &d) { d.name = std::string(201, 'n'); }),
              "name: name: 201 bytes: at most 200");
    EXPECT_EQ(field_refused([](auto &d) { d.queue = ""; }).substr(0, 7), "queue: ");
    EXPECT_EQ(field_refused([](auto &d) { d.job_type = ""; }).substr(0, 10), "job_type: ");
    EXPECT_EQ(field_refused([](auto &d) { d.payload_json = "{"; }).substr(0, 9), "payload: ");
    EXPECT_EQ(field_refused([](auto &d) {
                  d.missed = {MissedFires::Policy::catch_up, 0};
              }),
              "missed_fires: missed_fires: catch up at most 0: must be 1 to 1000 (use skip for "
              "none)");
    EXPECT_EQ(field_refused([](auto &d) {
                  d.missed = {MissedFires::Policy::catch_up, 1001};
              }).substr(0, 40),
              "missed_fires: missed_fires: catch up at ");
    EXPECT_EQ(field_refused([](auto &d) {
                  d.missed = {MissedFires::Policy::skip, 3};
              }),
              "missed_fires: missed_fires: skip takes no count (given 3)");
    EXPECT_EQ(field_refused([](auto &) {}), "accepted");
}

// ---- missed fires ----------------------------------------------------------------------

FireTimes every_second() { return FireTimes::every(seconds{1}); }
FireTimes every_minute() { return FireTimes::cron(CronExpression::parse("* * * * *"), "UTC"); }

TEST(MissedFires, OnTimeFiresAreEnqueuedUnderEitherPolicy) {
    const FireTime now = utc("2026-12-07T16:00:10Z");
    for (const MissedFires missed :
         {MissedFires{}, MissedFires{MissedFires::Policy::catch_up, 5}}) {
        const DueFires due = due_fires(every_second(), missed, now - seconds{1}, now);
        EXPECT_EQ(due.enqueue, std::vector<FireTime>{now});
        EXPECT_EQ(due.skipped, 0u);
    }
}

TEST(MissedFires, SkipEnqueuesOnlyFiresWithinTheGraceAndCountsTheRest) {
    const FireTime now = utc("2026-12-07T16:10:00Z");
    // A one-second schedule's grace is a second: 10 minutes down skip 599 fires.
    const DueFires seconds_due = due_fires(every_second(), {}, now - minutes{10}, now);
    EXPECT_EQ(seconds_due.enqueue, (std::vector<FireTime>{now - seconds{1}, now}));
    EXPECT_EQ(seconds_due.skipped, 598u);
    // A cron schedule's grace is a minute: the fire 30 s ago is on time, not the others.
    const DueFires minutes_due =
        due_fires(every_minute(), {}, now - minutes{10}, now + seconds{30});
    EXPECT_EQ(minutes_due.enqueue, std::vector<FireTime>{now});
    EXPECT_EQ(minutes_due.skipped, 9u);
}

TEST(MissedFires, CatchUpEnqueuesTheLatestFiresUpToItsLimit) {
    const FireTime now = utc("2026-12-07T16:10:00Z");
    const MissedFires three{MissedFires::Policy::catch_up, 3};
    const DueFires due = due_fires(every_minute(), three, now - minutes{10}, now);
    EXPECT_EQ(due.enqueue, (std::vector<FireTime>{now - minutes{2}, now - minutes{1}, now}));
    EXPECT_EQ(due.skipped, 7u);
    const DueFires few = due_fires(every_minute(), three, now - minutes{2}, now);
    EXPECT_EQ(few.enqueue, (std::vector<FireTime>{now - minutes{1}, now}));
    EXPECT_EQ(few.skipped, 0u);
}

TEST(MissedFires, AYearOfOneSecondFiresIsCounted) {
    const FireTime now = utc("2026-12-07T16:00:00Z");
    const DueFires due =
        due_fires(every_second(), {MissedFires::Policy::catch_up, 1000}, now - days{365}, now);
    EXPECT_EQ(due.enqueue.size(), 1000u);
    EXPECT_EQ(due.enqueue.back(), now);
    EXPECT_EQ(due.skipped, 365u * 86400u - 1000u);
}

TEST(MissedFires, FiresOlderThanTheLookbackAreNeitherEnqueuedNorCounted) {
    const FireTime now = utc("2026-12-07T16:00:00Z");
    const DueFires due = due_fires(every_minute(), {MissedFires::Policy::catch_up, 1},
                                   now - days{1000}, now, minutes{10});
    EXPECT_EQ(due.enqueue, std::vector<FireTime>{now});
    EXPECT_EQ(due.skipped, 9u);
}

TEST(MissedFires, NothingIsDueBeforeTheFirstFireOrWhenTheRecordIsNow) {
    const FireTime now = utc("2026-12-07T16:00:30Z");
    EXPECT_TRUE(due_fires(every_minute(), {}, now - seconds{20}, now).enqueue.empty());
    EXPECT_TRUE(due_fires(every_minute(), {}, now, now).enqueue.empty());
    EXPECT_EQ(due_fires(every_minute(), {}, now + minutes{5}, now).skipped, 0u);
}

}  // namespace
}  // namespace queuey

// qy_schedule_*: schedules made, refused and changed through the C functions only. The
// shared vectors (tests/vectors/schedules) run through the core here and through the
// Python and Go bindings; these cases are what only the C surface has: NULLs, enums out
// of range, a refused change leaving the schedule as it was.
#include "capi_test.hpp"
#include "enum_out_of_range.h"

#include <queuey/queuey.h>

namespace {

using qyt::Error;
using qyt::failed_with;
using Schedule = std::unique_ptr<qy_schedule, qyt::Deleter<qy_schedule_free>>;

// 2026-12-07T16:00:30Z
constexpr int64_t monday_afternoon_ms = 1796659230000;

Schedule nightly(const char *time_zone = "Europe/Berlin") {
    qy_schedule *out = nullptr;
    EXPECT_EQ(qy_schedule_new("nightly-report", "reports", "report.build", "0 2 * * *", time_zone,
                              0, &out, nullptr),
              QY_OK);
    return Schedule(out);
}

int64_t next_fire(const qy_schedule *schedule, int64_t after_ms) {
    int64_t out = -1;
    EXPECT_EQ(qy_schedule_next_fire_ms(schedule, after_ms, &out, nullptr), QY_OK);
    return out;
}

TEST(CApiSchedule, ACronScheduleFiresAtItsLocalTimes) {
    const Schedule berlin = nightly();
    // 02:00 in Berlin is 01:00 UTC in winter: 2026-12-08T01:00:00Z.
    EXPECT_EQ(next_fire(berlin.get(), monday_afternoon_ms), 1796691600000);
    EXPECT_EQ(next_fire(berlin.get(), 1796691600000), 1796691600000 + 86400000);
    // NULL is UTC.
    EXPECT_EQ(next_fire(nightly(nullptr).get(), monday_afternoon_ms), 1796695200000);
}

TEST(CApiSchedule, AnIntervalScheduleFiresAtMultiplesOfItSinceTheEpoch) {
    qy_schedule *out = nullptr;
    ASSERT_EQ(qy_schedule_new("ticks", "ticks", "tick", nullptr, nullptr, 90000, &out, nullptr),
              QY_OK);
    const Schedule ticks(out);
    EXPECT_EQ(next_fire(ticks.get(), monday_afternoon_ms), 1796659290000);  // 16:01:30
}

TEST(CApiSchedule, AFireJobIdIsTheSharedVectorsId) {
    const Schedule berlin = nightly();
    char id[37] = {};
    ASSERT_EQ(qy_schedule_fire_job_id(berlin.get(), 1796695200999, id, nullptr), QY_OK);
    EXPECT_STREQ(id, "2689616c-c6c2-579f-8928-c90b5a7affaa");  // fire_ids.tsv, 02:00:00Z
}

TEST(CApiSchedule, RefusedDefinitionsNameTheirField) {
    qy_schedule *out = nullptr;
    qy_error *raw = nullptr;
    qy_status status = qy_schedule_new("n", "q", "t", "0 24 * * *", "UTC", 0, &out, &raw);
    Error err(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT,
                            "hour field \"24\": 24 is out of range 0-23", "cron"));
    EXPECT_EQ(out, nullptr);

    status = qy_schedule_new("n", "q", "t", "@daily", "Nowhere/Atlantis", 0, &out, &raw);
    err.reset(raw);
    EXPECT_TRUE(
        failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "Nowhere/Atlantis", "time_zone"));
    status = qy_schedule_new("n", "q", "t", "", "UTC", 0, &out, &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "got 0", "cron"));
    // NULL and 0 are "none": neither, both, a zone with an interval are the core's refusals.
    status = qy_schedule_new("n", "q", "t", nullptr, nullptr, 0, &out, &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT,
                            "needs a cron expression or an interval", "cron"));
    status = qy_schedule_new("n", "q", "t", "@daily", nullptr, 1000, &out, &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "not both", "interval"));
    status = qy_schedule_new("n", "q", "t", nullptr, "Europe/Berlin", 1000, &out, &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT,
                            "applies to a cron expression only", "time_zone"));
    status = qy_schedule_new("n", "q", "t", nullptr, nullptr, 500, &out, &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "500 ms", "interval"));
    status = qy_schedule_new("n", "q", "t", nullptr, nullptr, UINT64_MAX, &out, &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "18446744073709551615 ms",
                            "interval"));
    status = qy_schedule_new(nullptr, "q", "t", nullptr, nullptr, 1000, &out, &raw);
    err.reset(raw);
    EXPECT_TRUE(
        failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "name must not be NULL", nullptr));
    status = qy_schedule_new("n", "", "t", nullptr, nullptr, 1000, &out, &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "", "queue"));
    status = qy_schedule_new("n", "q", "t", nullptr, nullptr, 1000, nullptr, &raw);
    err.reset(raw);
    EXPECT_TRUE(
        failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "out must not be NULL", nullptr));
}

TEST(CApiSchedule, ARefusedChangeLeavesTheScheduleAsItWas) {
    const Schedule berlin = nightly();
    qy_error *raw = nullptr;
    qy_status status = qy_schedule_set_payload(berlin.get(), "{\"day\":", &raw);
    Error err(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_BAD_JSON, "", "payload"));
    status = qy_schedule_set_missed_fires(berlin.get(), QY_MISSED_FIRES_CATCH_UP, 0, &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "catch up at most 0",
                            "missed_fires"));
    status = qy_schedule_set_missed_fires(berlin.get(), QY_MISSED_FIRES_SKIP, 5, &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "skip takes no count",
                            "missed_fires"));
    status = qyt_schedule_set_missed_fires_as_int(berlin.get(), 7, 1, &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "is 7", "policy"));
    EXPECT_EQ(next_fire(berlin.get(), monday_afternoon_ms), 1796691600000);

    EXPECT_EQ(qy_schedule_set_payload(berlin.get(), R"({"day": 1})", nullptr), QY_OK);
    EXPECT_EQ(qy_schedule_set_missed_fires(berlin.get(), QY_MISSED_FIRES_CATCH_UP, 1000, nullptr),
              QY_OK);
}

TEST(CApiSchedule, TimesOutsideNineteenSeventyToNineNineNineNineAreRefused) {
    const Schedule berlin = nightly();
    int64_t when = 0;
    qy_error *raw = nullptr;
    qy_status status = qy_schedule_next_fire_ms(berlin.get(), -1, &when, &raw);
    Error err(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT,
                            "-1 is not between 1970-01-01 and 9999-01-01", "after_ms"));
    status = qy_schedule_next_fire_ms(berlin.get(), INT64_MAX, &when, &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "9999", "after_ms"));
    char id[37] = {};
    status = qy_schedule_fire_job_id(berlin.get(), INT64_MIN, id, &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "1970", "fire_ms"));
    // 9998-12-31T12:00:00Z: the next 02:00 in Berlin is past the end.
    status = qy_schedule_next_fire_ms(berlin.get(), 253370721600000, &when, &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_NOT_FOUND, "before 9999-01-01", "after_ms"));
    EXPECT_EQ(next_fire(berlin.get(), 0), 3600000) << "1970-01-01T02:00 CET";
}

TEST(CApiSchedule, NullHandlesAndOutputsAreRefused) {
    qy_error *raw = nullptr;
    int64_t when = 0;
    qy_status status = qy_schedule_next_fire_ms(nullptr, 0, &when, &raw);
    Error err(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "schedule must not be NULL",
                            nullptr));
    const Schedule berlin = nightly();
    status = qy_schedule_next_fire_ms(berlin.get(), 0, nullptr, &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "out_ms must not be NULL",
                            nullptr));
    status = qy_schedule_fire_job_id(berlin.get(), 0, nullptr, &raw);
    err.reset(raw);
    EXPECT_TRUE(
        failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "out must not be NULL", nullptr));
    status = qy_schedule_set_payload(nullptr, "1", &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "schedule must not be NULL",
                            nullptr));
    qy_schedule_free(nullptr);
}

}  // namespace

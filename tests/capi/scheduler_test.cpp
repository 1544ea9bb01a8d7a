// qy_scheduler_*: what the C surface refuses, without a broker (a scheduler whose broker
// cannot be reached keeps trying in its thread and is freed at once); the listing of a
// group where no scheduler ran. The election on a real broker:
// tests/integration/capi_scheduler_test.cpp.
#include "capi_test.hpp"
#include "enum_out_of_range.h"
#include "memory_worker.hpp"

#include <queuey/queuey.h>

#include <string>

namespace {

using qyt::Error;
using qyt::failed_with;
using Options = std::unique_ptr<qy_scheduler_options, qyt::Deleter<qy_scheduler_options_free>>;
using Scheduler = std::unique_ptr<qy_scheduler, qyt::Deleter<qy_scheduler_free>>;

// Nothing listens there: connects are refused, the scheduler retries until freed.
constexpr const char *unreachable = "amqp://127.0.0.1:1";

Options ticking(const char *name = "ticks") {
    qy_scheduler_options *out = nullptr;
    EXPECT_EQ(qy_scheduler_options_new(&out, nullptr), QY_OK);
    Options options(out);
    qy_schedule *schedule = nullptr;
    EXPECT_EQ(qy_schedule_new(name, "ticks", "tick", nullptr, nullptr, 1000, &schedule, nullptr),
              QY_OK);
    EXPECT_EQ(qy_scheduler_options_add_schedule(options.get(), schedule, nullptr), QY_OK);
    qy_schedule_free(schedule);  // the options hold a copy
    return options;
}

qy_status start(const qy_scheduler_options *options, const char *url, Scheduler &out,
                qy_error **err) {
    qy_scheduler *raw = nullptr;
    const qy_status status = qy_scheduler_new(url, nullptr, options, &raw, err);
    out.reset(raw);
    return status;
}

TEST(CApiScheduler, ASchedulerStartsAndIsFreedWithoutABroker) {
    const Options options = ticking();
    Scheduler scheduler;
    ASSERT_EQ(start(options.get(), unreachable, scheduler, nullptr), QY_OK);
    EXPECT_EQ(qy_scheduler_leading(scheduler.get()), 0);
    uint64_t fires = 99;
    ASSERT_EQ(qy_scheduler_count(scheduler.get(), QY_SCHEDULER_FIRES, &fires, nullptr), QY_OK);
    EXPECT_EQ(fires, 0u);
    EXPECT_EQ(qy_scheduler_leading(nullptr), 0);
    qy_scheduler_free(nullptr);
    qy_scheduler_options_free(nullptr);
}

TEST(CApiScheduler, WhatCannotRunIsRefusedWithItsField) {
    qy_error *raw = nullptr;
    Scheduler scheduler;
    qy_scheduler_options *empty = nullptr;
    ASSERT_EQ(qy_scheduler_options_new(&empty, nullptr), QY_OK);
    const Options none(empty);
    qy_status status = start(none.get(), unreachable, scheduler, &raw);
    Error err(raw);
    EXPECT_TRUE(
        failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "needs a schedule", "schedules"));
    EXPECT_EQ(scheduler, nullptr);

    const Options twice = ticking();
    qy_schedule *again = nullptr;
    ASSERT_EQ(qy_schedule_new("ticks", "other", "tick", "@hourly", nullptr, 0, &again, nullptr),
              QY_OK);
    ASSERT_EQ(qy_scheduler_options_add_schedule(twice.get(), again, nullptr), QY_OK);
    qy_schedule_free(again);
    status = start(twice.get(), unreachable, scheduler, &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT,
                            "two schedules are named \"ticks\"", "name"));

    const Options options = ticking();
    status = start(options.get(), "memory://", scheduler, &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_UNSUPPORTED, "memory://", "url"));
    status = start(options.get(), "http://example", scheduler, &raw);
    err.reset(raw);
    EXPECT_EQ(status, QY_ERR_INVALID_ARGUMENT);
    status = start(nullptr, unreachable, scheduler, &raw);
    err.reset(raw);
    EXPECT_TRUE(
        failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "opts must not be NULL", nullptr));

    status = qy_scheduler_options_set_group(options.get(), std::string(250, 'g').c_str(), &raw);
    err.reset(raw);
    EXPECT_TRUE(
        failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "250 bytes: at most 227", "group"));
    status = qy_scheduler_options_set_group(options.get(), "\xff", &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "", "group"));
    EXPECT_EQ(qy_scheduler_options_set_group(options.get(), "billing", nullptr), QY_OK);
    status = qy_scheduler_options_add_schedule(options.get(), nullptr, &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "schedule must not be NULL",
                            nullptr));
    status = qy_scheduler_options_add_queue(options.get(), nullptr, &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "config must not be NULL",
                            nullptr));
}

TEST(CApiScheduler, ACounterOutsideTheEnumIsRefused) {
    const Options options = ticking();
    Scheduler scheduler;
    ASSERT_EQ(start(options.get(), unreachable, scheduler, nullptr), QY_OK);
    uint64_t count = 7;
    qy_error *raw = nullptr;
    qy_status status = qyt_scheduler_count_as_int(scheduler.get(), 5, &count, &raw);
    Error err(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "is 5", "counter"));
    EXPECT_EQ(count, 7u);
    status = qy_scheduler_count(scheduler.get(), QY_SCHEDULER_LEADS, nullptr, &raw);
    err.reset(raw);
    EXPECT_TRUE(
        failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "out must not be NULL", nullptr));
}

}  // namespace

namespace {

TEST(CApiScheduler, AListingWhereNoSchedulerRanIsEmptyAndBadArgumentsAreRefused) {
    const qyt::Client client = qyt::memory_client("q");
    ASSERT_TRUE(client);
    char *json = nullptr;
    size_t length = 0;
    ASSERT_EQ(qy_client_list_schedules(client.get(), nullptr, &json, &length, nullptr), QY_OK);
    const std::string listing(json, length);
    qy_string_free(json);
    EXPECT_EQ(listing, R"({"group":"","leader":null,"schedulers":0,"schedules":[]})");
    ASSERT_EQ(qy_client_list_schedules(client.get(), "billing", &json, &length, nullptr), QY_OK);
    EXPECT_EQ(std::string(json, length),
              R"({"group":"billing","leader":null,"schedulers":0,"schedules":[]})");
    qy_string_free(json);

    qy_error *raw = nullptr;
    qy_status status = qy_client_list_schedules(client.get(), "\xff", &json, &length, &raw);
    Error err(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "", "group"));
    EXPECT_EQ(json, nullptr);
    status = qy_client_list_schedules(client.get(), nullptr, nullptr, &length, &raw);
    err.reset(raw);
    EXPECT_TRUE(
        failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "out must not be NULL", nullptr));
    status = qy_client_list_schedules(nullptr, nullptr, &json, &length, &raw);
    err.reset(raw);
    EXPECT_TRUE(failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, "client must not be NULL",
                            nullptr));
}

}  // namespace

// The destructor of a callback's user_data runs exactly once (queuey.h, "Callbacks"):
// when nothing uses user_data any more after a call that succeeded, and before the call
// returns when it failed (out of memory: user_data_out_of_memory_test.cpp).
#include "user_data_registrations.hpp"

namespace {

using qyt::Options;
using qyt::options;
using qyt::register_handler;
using qyt::set_dead_letter_hook;
using qyt::set_log;

TEST(UserData, LogCallbackIsDestroyedOnceTheOptionsAndTheirClientsAreFreed) {
    int destroyed = 0;
    Options opts = options();
    ASSERT_EQ(set_log(opts.get(), &destroyed, nullptr), QY_OK);
    qy_client *raw = nullptr;
    ASSERT_EQ(qy_client_new("memory://", opts.get(), &raw, nullptr), QY_OK);
    qyt::Client client(raw);
    opts.reset();
    EXPECT_EQ(destroyed, 0) << "the client still logs through it";
    client.reset();
    EXPECT_EQ(destroyed, 1);
}

TEST(UserData, HookAndHandlerAreDestroyedWhenTheWorkerIsFreed) {
    for (const auto &registration : {set_dead_letter_hook, register_handler}) {
        int destroyed = 0;
        const qyt::Client client = qyt::memory_client("q");
        qyt::Worker worker = qyt::worker_on(client.get(), "q");
        ASSERT_EQ(registration(worker.get(), &destroyed, nullptr), QY_OK);
        EXPECT_EQ(destroyed, 0);
        worker.reset();
        EXPECT_EQ(destroyed, 1);
    }
}

TEST(UserData, IsDestroyedBeforeAFailedCallReturns) {
    int destroyed = 0;
    EXPECT_EQ(set_log(nullptr, &destroyed, nullptr), QY_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(destroyed, 1);
    for (const auto &registration : {set_dead_letter_hook, register_handler}) {
        destroyed = 0;
        EXPECT_EQ(registration(nullptr, &destroyed, nullptr), QY_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(destroyed, 1);
    }
}

TEST(UserData, ASecondHandlerForAJobTypeIsRefusedAndDestroyed) {
    int first = 0, second = 0;
    const qyt::Client client = qyt::memory_client("q");
    qyt::Worker worker = qyt::worker_on(client.get(), "q");
    ASSERT_EQ(register_handler(worker.get(), &first, nullptr), QY_OK);
    EXPECT_EQ(register_handler(worker.get(), &second, nullptr), QY_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(second, 1);
    EXPECT_EQ(first, 0) << "the registered handler is kept";
    worker.reset();
    EXPECT_EQ(first, 1);
}

}  // namespace

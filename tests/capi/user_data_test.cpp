// The destructor of a callback's user_data runs exactly once (queuey.h, "Callbacks"):
// when nothing uses user_data any more after a call that succeeded, and before the call
// returns when it failed, out of memory included.
#include "failing_allocation.hpp"
#include "memory_worker.hpp"

#include <functional>

namespace {

using Options = std::unique_ptr<qy_client_options, qyt::Deleter<qy_client_options_free>>;

void count_destroy(void *user_data) { ++*static_cast<int *>(user_data); }
void ignore_log(qy_log_level, const char *, void *) {}
void ignore_dead_letter(const qy_envelope *, const char *, void *) {}
qy_job_result succeed(qy_job *, void *) { return QY_JOB_SUCCESS; }

// One registration function: it hands user_data and count_destroy to the call on handle.
template <typename Handle>
using Registration = std::function<qy_status(Handle *handle, void *user_data, qy_error **err)>;

const Registration<qy_client_options> set_log = [](qy_client_options *opts, void *data,
                                                   qy_error **err) {
    return qy_client_options_set_log(opts, ignore_log, data, count_destroy, err);
};
const Registration<qy_worker> set_dead_letter_hook = [](qy_worker *worker, void *data,
                                                        qy_error **err) {
    return qy_worker_set_dead_letter_hook(worker, ignore_dead_letter, data, count_destroy, err);
};
const Registration<qy_worker> register_handler = [](qy_worker *worker, void *data, qy_error **err) {
    return qy_worker_register(worker, "t", succeed, data, count_destroy, nullptr, err);
};

Options options() {
    qy_client_options *raw = nullptr;
    EXPECT_EQ(qy_client_options_new(&raw, nullptr), QY_OK);
    return Options(raw);
}

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

// Whichever allocation fails, the call returns QY_ERR_NO_MEMORY (never throws) and
// user_data is destroyed exactly once, then or at the free.
template <typename Handle>
void expect_destroyed_once_when_out_of_memory(
    const Registration<Handle> &registration,
    const std::function<std::shared_ptr<Handle>()> &make) {
    for (int failing = 1; failing <= 4; ++failing) {
        int destroyed = 0;
        std::shared_ptr<Handle> handle = make();
        qyt::fail_allocation(failing);
        qy_status status = QY_OK;
        EXPECT_NO_THROW(status = registration(handle.get(), &destroyed, nullptr))
            << "allocation " << failing;
        qyt::fail_allocation(0);
        if (status == QY_OK) {
            EXPECT_EQ(destroyed, 0) << "allocation " << failing;
            handle.reset();
        } else {
            EXPECT_EQ(status, QY_ERR_NO_MEMORY) << "allocation " << failing;
        }
        EXPECT_EQ(destroyed, 1) << "allocation " << failing;
    }
}

TEST(UserData, IsDestroyedOnceWhenMemoryRunsOut) {
    expect_destroyed_once_when_out_of_memory<qy_client_options>(set_log, [] {
        return std::shared_ptr<qy_client_options>(options().release(), qy_client_options_free);
    });
    const qyt::Client client = qyt::memory_client("q");
    const auto worker = [&client] {
        return std::shared_ptr<qy_worker>(qyt::worker_on(client.get(), "q").release(),
                                          qy_worker_free);
    };
    expect_destroyed_once_when_out_of_memory<qy_worker>(set_dead_letter_hook, worker);
    expect_destroyed_once_when_out_of_memory<qy_worker>(register_handler, worker);
}

}  // namespace

// The destructor of a callback's user_data runs exactly once when a call fails for want of
// memory (queuey.h, "Callbacks"). Its own program: it replaces operator new, which
// ThreadSanitizer's runtime defines too (tests/capi/meson.build).
#include "failing_allocation.hpp"
#include "user_data_registrations.hpp"

namespace {

using qyt::Registration;

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
    expect_destroyed_once_when_out_of_memory<qy_client_options>(qyt::set_log, [] {
        return std::shared_ptr<qy_client_options>(qyt::options().release(), qy_client_options_free);
    });
    const qyt::Client client = qyt::memory_client("q");
    const auto worker = [&client] {
        return std::shared_ptr<qy_worker>(qyt::worker_on(client.get(), "q").release(),
                                          qy_worker_free);
    };
    expect_destroyed_once_when_out_of_memory<qy_worker>(qyt::set_dead_letter_hook, worker);
    expect_destroyed_once_when_out_of_memory<qy_worker>(qyt::register_handler, worker);
}

}  // namespace

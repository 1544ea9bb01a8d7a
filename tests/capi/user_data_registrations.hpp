// The registrations of the user_data tests (user_data_test.cpp, and
// user_data_out_of_memory_test.cpp): each hands user_data and a destructor that counts
// its calls to a call on a handle.
#pragma once

#include "memory_worker.hpp"

#include <functional>
#include <memory>

namespace qyt {

inline void count_destroy(void *user_data) { ++*static_cast<int *>(user_data); }
inline void ignore_log(qy_log_level, const char *, void *) {}
inline void ignore_dead_letter(const qy_envelope *, const char *, void *) {}
inline qy_job_result succeed(qy_job *, void *) { return QY_JOB_SUCCESS; }

template <typename Handle>
using Registration = std::function<qy_status(Handle *handle, void *user_data, qy_error **err)>;

inline const Registration<qy_client_options> set_log = [](qy_client_options *opts, void *data,
                                                          qy_error **err) {
    return qy_client_options_set_log(opts, ignore_log, data, count_destroy, err);
};
inline const Registration<qy_worker> set_dead_letter_hook = [](qy_worker *worker, void *data,
                                                               qy_error **err) {
    return qy_worker_set_dead_letter_hook(worker, ignore_dead_letter, data, count_destroy, err);
};
inline const Registration<qy_worker> register_handler = [](qy_worker *worker, void *data,
                                                           qy_error **err) {
    return qy_worker_register(worker, "t", succeed, data, count_destroy, nullptr, err);
};

using Options = std::unique_ptr<qy_client_options, Deleter<qy_client_options_free>>;

inline Options options() {
    qy_client_options *raw = nullptr;
    EXPECT_EQ(qy_client_options_new(&raw, nullptr), QY_OK);
    return Options(raw);
}

}  // namespace qyt

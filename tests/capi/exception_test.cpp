// qy_job_set_exception(): bad input is refused like the other setters', naming the
// parameter, and sets nothing; a good call puts x-exception on the job's dead letter.
#include "memory_worker.hpp"

#include <string>

namespace {

using qyt::failed_with;

// What the handler saw of its calls.
struct Calls {
    qy_worker *worker = nullptr;
    qy_status null_job = QY_OK, null_type = QY_OK, empty_type = QY_OK, two_lines = QY_OK;
    std::string null_job_message, null_type_message, empty_type_field, two_lines_field;
    bool null_job_ok = false, null_type_ok = false, empty_type_ok = false, two_lines_ok = false;
    qy_status good = QY_ERR_INTERNAL;
};

// Runs call(err) and records whether it failed with QY_ERR_INVALID_ARGUMENT naming named.
template <typename Call>
bool refused(Call call, const char *named, const char *field) {
    qy_error *raw = nullptr;
    const qy_status status = call(&raw);
    const qyt::Error err(raw);
    const testing::AssertionResult result =
        failed_with(status, err.get(), QY_ERR_INVALID_ARGUMENT, named, field);
    if (!result) ADD_FAILURE() << result.message();
    return static_cast<bool>(result);
}

qy_job_result note_badly_then_well(qy_job *job, void *user_data) {
    auto &calls = *static_cast<Calls *>(user_data);
    calls.null_job_ok =
        refused([](qy_error **err) { return qy_job_set_exception(nullptr, "T", "d", err); }, "job",
                nullptr);
    calls.null_type_ok =
        refused([&](qy_error **err) { return qy_job_set_exception(job, nullptr, "d", err); },
                "type", nullptr);
    calls.empty_type_ok = refused(
        [&](qy_error **err) { return qy_job_set_exception(job, "", "d", err); }, "type", "type");
    calls.two_lines_ok =
        refused([&](qy_error **err) { return qy_job_set_exception(job, "A\nB", "d", err); }, "type",
                "type");
    // Without an error object the status alone tells.
    EXPECT_EQ(qy_job_set_exception(nullptr, nullptr, nullptr, nullptr), QY_ERR_INVALID_ARGUMENT);
    calls.good = qy_job_set_exception(job, "app::Oops", nullptr, nullptr);  // NULL detail: ""
    qy_worker_shutdown(calls.worker);
    return QY_JOB_FATAL;
}

int headers_of(const qy_message *message, void *user_data) {
    static_cast<std::string *>(user_data)->assign(qy_message_headers_json(message));
    return 0;
}

TEST(JobSetException, RefusesBadInputAndNotesAGoodOne) {
    const qyt::Client client = qyt::memory_client("q");
    qyt::enqueue(client.get(), "q", "t");
    const qyt::Worker worker = qyt::worker_on(client.get(), "q");
    Calls calls;
    calls.worker = worker.get();
    ASSERT_EQ(qy_worker_register(worker.get(), "t", note_badly_then_well, &calls, nullptr, nullptr,
                                 nullptr),
              QY_OK);
    ASSERT_EQ(qy_worker_run(worker.get(), nullptr), QY_OK);
    EXPECT_TRUE(calls.null_job_ok);
    EXPECT_TRUE(calls.null_type_ok);
    EXPECT_TRUE(calls.empty_type_ok);
    EXPECT_TRUE(calls.two_lines_ok);
    EXPECT_EQ(calls.good, QY_OK);

    std::string headers;
    ASSERT_EQ(qy_client_browse(client.get(), "q.dead", nullptr, 0, headers_of, &headers, nullptr),
              QY_OK);
    // The refused calls set nothing: the one good call is what the dead letter carries.
    EXPECT_NE(headers.find("\"x-death-reason\":\"fatal error: the handler reported a fatal "
                           "error\""),
              std::string::npos)
        << headers;
    EXPECT_NE(headers.find("\"x-exception\":\"app::Oops\\n\""), std::string::npos) << headers;
}

}  // namespace

#include "pending_declares.hpp"

namespace queuey {

void PendingDeclares::sent(QueueSpec spec, Done done) {
    waiting_.push_back({std::move(spec), std::move(done)});
}

void PendingDeclares::answered() {
    if (waiting_.empty()) return;  // an answer to no declare of ours: nothing to complete
    Declare oldest = std::move(waiting_.front());
    waiting_.pop_front();
    oldest.done(Result::declared, nullptr);
}

std::vector<QueueSpec> PendingDeclares::refused(qy_status status, const std::string &reason) {
    if (waiting_.empty()) return {};
    Declare oldest = std::move(waiting_.front());
    waiting_.pop_front();
    const Error error(status, "", "declaring queue '" + oldest.spec.name + "': " + reason);
    oldest.done(Result::refused, &error);
    std::vector<QueueSpec> again;
    for (const Declare &declare : waiting_) again.push_back(declare.spec);
    return again;
}

void PendingDeclares::fail_all(const Error &error) {
    std::deque<Declare> failed;
    failed.swap(waiting_);  // a callback may start a new declare: it waits for the next one
    for (Declare &declare : failed) declare.done(Result::lost, &error);
}

}  // namespace queuey

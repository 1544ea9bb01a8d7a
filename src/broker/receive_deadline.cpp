#include "receive_deadline.hpp"

#include <algorithm>
#include <cerrno>

#include <poll.h>

namespace queuey {

using std::chrono::duration_cast;
using std::chrono::milliseconds;

ReceiveDeadline::ReceiveDeadline(int fd, std::chrono::seconds heartbeat, Clock::time_point since)
    : fd_(fd), heartbeat_(heartbeat), received_(since) {}

void ReceiveDeadline::received_after(Clock::time_point started) {
    received_ = std::max(received_, started);
}

void ReceiveDeadline::before_read() {
    // Kept exact rather than cheap: a stale time makes before_write() wait for the
    // broker's next heartbeat on a healthy connection.
    if (heartbeat_.count() > 0 && input_within(milliseconds(0))) received_after(Clock::now());
}

bool ReceiveDeadline::recent() const {
    // rabbitmq-c's deadline is received_ + 2 heartbeats or later.
    return heartbeat_.count() == 0 || Clock::now() < received_ + heartbeat_;
}

bool ReceiveDeadline::before_write() const {
    if (recent()) return true;
    // A live broker sends something at least once a heartbeat (RabbitMQ checks every
    // half heartbeat and sends one when it sent nothing since the last check), so a whole
    // heartbeat without input is silence also when a receive went unseen here.
    return input_within(duration_cast<milliseconds>(heartbeat_));
}

bool ReceiveDeadline::input_within(milliseconds wait) const {
    const auto until = Clock::now() + wait;
    for (;;) {
        const auto left = duration_cast<milliseconds>(until - Clock::now()).count();
        pollfd input{fd_, POLLIN, 0};
        const int ready = ::poll(&input, 1, static_cast<int>(std::max<long long>(left, 0)));
        if (ready > 0) return true;  // input, or an error rabbitmq-c's recv returns at once
        if (ready == 0) return false;
        if (errno != EINTR) return true;  // not ours to judge: rabbitmq-c reports it
    }
}

}  // namespace queuey

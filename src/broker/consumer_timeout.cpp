#include "consumer_timeout.hpp"

#include <charconv>
#include <cstdint>

namespace queuey {

std::optional<std::chrono::milliseconds> consumer_timeout_of(std::string_view reason) {
    const auto at = reason.find("delivery acknowledgement on channel");
    if (at == std::string_view::npos || reason.find("timed out", at) == std::string_view::npos)
        return std::nullopt;
    constexpr std::string_view used = "Timeout value used: ";
    const auto value = reason.find(used, at);
    std::uint64_t ms = 0;
    if (value != std::string_view::npos) {
        const char *first = reason.data() + value + used.size();
        std::from_chars(first, reason.data() + reason.size(), ms);
    }
    return std::chrono::milliseconds(ms);
}

bool ran_into(std::chrono::milliseconds timeout, std::chrono::steady_clock::duration age) {
    return age >= timeout - timeout / 10;
}

std::string consumer_timeout_warning(std::string_view queue, std::string_view reason) {
    std::string warning = "jobs of queue '";
    warning += queue;
    warning += "' run longer than the broker's consumer timeout: it closed their channel (";
    warning += reason;
    warning +=
        "). Each job that was running there is charged a lost run and ends in the dead "
        "letters once its budget is spent. To let jobs run longer, give the queue a longer "
        "timeout: a policy consumer-timeout (RabbitMQ 3.12 and later), or consumer_timeout "
        "in rabbitmq.conf (any version); see docs/worker.md, long jobs";
    return warning;
}

}  // namespace queuey

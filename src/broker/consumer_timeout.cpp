#include "consumer_timeout.hpp"

namespace queuey {

bool closed_by_consumer_timeout(std::string_view reason) {
    const auto at = reason.find("delivery acknowledgement on channel");
    return at != std::string_view::npos && reason.find("timed out", at) != std::string_view::npos;
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

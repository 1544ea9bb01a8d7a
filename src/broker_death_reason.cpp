#include "broker_death_reason.hpp"

namespace queuey {

std::string broker_death_reason(std::string_view first_death_reason) {
    std::string reason = "the broker dead-lettered it: ";
    if (first_death_reason == "delivery_limit")
        reason +=
            "it was taken back unsettled more often than the queue's delivery limit allows "
            "(x-delivery-limit)";
    else if (first_death_reason == "expired")
        reason += "it outlived the queue's message TTL (x-message-ttl)";
    else if (first_death_reason == "rejected")
        reason += "a consumer rejected it without requeue";
    else if (first_death_reason == "maxlen")
        reason += "the queue was over its length limit";
    else
        reason += first_death_reason;
    return reason;
}

}  // namespace queuey

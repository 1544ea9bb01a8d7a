// The queue config the hold tests build their specs from: "jobs", of a given type.
#pragma once

#include "topology.hpp"

namespace queuey {

inline QueueConfig config_of(QueueType type) {
    QueueConfig config;
    config.name = "jobs";
    config.type = type;
    return config;
}

}  // namespace queuey

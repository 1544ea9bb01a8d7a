// The opaque structs behind the C handles: each wraps one core value.
#pragma once

#include <queuey/queuey.h>

#include "../src/amqp_properties.hpp"
#include "../src/envelope.hpp"

#include <optional>
#include <string>

struct qy_error {
    qy_status status;
    std::string message;
    std::optional<std::string> field;
};

struct qy_envelope {
    queuey::Envelope value;
};

struct qy_properties {
    queuey::AmqpProperties value;
};

#include "queue_shape.hpp"

std::string queue_type_name(const QueueShape &shape) { return shape.quorum ? "quorum" : "classic"; }

std::string label_tag(const QueueShape &shape, std::size_t nodes) {
    if (!shape.quorum && nodes == 1) return "";
    return " [" + queue_type_name(shape) + ", " + std::to_string(nodes) +
           (nodes == 1 ? " node]" : " nodes]");
}

#include "queue_shape.hpp"

std::string queue_type_name(const QueueShape &shape) { return shape.quorum ? "quorum" : "classic"; }

std::string label_tag(const QueueShape &shape, std::size_t nodes) {
    std::string tag;
    if (shape.quorum || nodes != 1)
        tag = " [" + queue_type_name(shape) + ", " + std::to_string(nodes) +
              (nodes == 1 ? " node]" : " nodes]");
    if (!shape.quorum && shape.max_priority != QueueShape::default_max_priority)
        tag +=
            " [max-priority " +
            (shape.max_priority == 0 ? std::string("none") : std::to_string(shape.max_priority)) +
            "]";
    return tag;
}

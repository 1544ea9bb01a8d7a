#include "memory_snapshot.hpp"

namespace queuey {

const std::vector<Envelope> &MemorySnapshot::pending(std::string_view queue) const {
    static const std::vector<Envelope> none;
    const auto found = queues.find(queue);
    return found == queues.end() ? none : found->second.pending;
}

std::size_t MemorySnapshot::in_flight(std::string_view queue) const {
    const auto found = queues.find(queue);
    return found == queues.end() ? 0 : found->second.in_flight;
}

}  // namespace queuey

// libFuzzer target: any bytes as answers of RabbitMQ's management API (the queue list,
// a queue with its consumers, the connection list). Reading them may refuse an answer
// that is no JSON with std::runtime_error, and nothing else; a queue or consumer read
// from JSON always has a name, a tag and a peer that are strings (possibly empty).
#include "management_json.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char *>(data), size);
    // The first half as the queue's answer, the rest as the connection list.
    const std::string_view queue = bytes.substr(0, size / 2), connections = bytes.substr(size / 2);
    try {
        for (const queuey_cli::ManagedQueue &listed : queuey_cli::read_queue_list(bytes))
            if (listed.name.size() > size) __builtin_trap();
    } catch (const std::runtime_error &) {}
    try {
        for (const queuey_cli::ManagedConsumer &consumer :
             queuey_cli::read_consumers(queue, connections))
            if (consumer.peer.find(':') == std::string::npos) __builtin_trap();
    } catch (const std::runtime_error &) {}
    return 0;
}

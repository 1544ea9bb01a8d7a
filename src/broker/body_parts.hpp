// A publish's body as the parts it lies in, sent one after the other: an envelope's head,
// its payload where the caller's envelope keeps it, and the closing brace (publish_batch.hpp),
// so that a long payload goes to the socket without being copied into a body first.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace queuey {

struct BodyParts {
    BodyParts(std::string_view whole) : parts{whole, {}, {}} {}  // a body in one part
    BodyParts(std::string_view first, std::string_view second, std::string_view third)
        : parts{first, second, third} {}

    std::array<std::string_view, 3> parts;

    std::size_t size() const { return parts[0].size() + parts[1].size() + parts[2].size(); }
    // The body in one piece, for a writer that takes only that (amqp_basic_publish).
    std::string joined() const {
        std::string body;
        body.reserve(size());
        for (std::string_view part : parts) body += part;
        return body;
    }
};

}  // namespace queuey

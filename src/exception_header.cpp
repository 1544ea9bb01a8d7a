#include "exception_header.hpp"

#include "utf8.hpp"

namespace queuey {

std::string exception_header_value(std::string_view type, std::string_view detail) {
    std::string value = valid_utf8(type);
    value += '\n';
    value += valid_utf8(detail);
    if (value.size() <= exception_header_max) return value;
    value.resize(
        truncate_utf8(value, exception_header_max - exception_truncated_marker.size()).size());
    value += exception_truncated_marker;
    return value;
}

}  // namespace queuey

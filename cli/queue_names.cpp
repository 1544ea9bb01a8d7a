#include "queue_names.hpp"

#include <charconv>

namespace queuey_cli {

namespace {

constexpr std::string_view dead_suffix = ".dead";
constexpr std::string_view hold_infix = ".deferred.";

std::optional<std::uint64_t> whole_number(std::string_view digits) {
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || error != std::errc() || end != digits.data() + digits.size())
        return std::nullopt;
    return value;
}

}  // namespace

std::string dead_name(const std::string &queue) { return queue + std::string(dead_suffix); }

std::string hold_name(const std::string &queue, std::uint64_t ttl_ms) {
    return queue + std::string(hold_infix) + std::to_string(ttl_ms);
}

std::string hold_index_name(const std::string &queue) {
    return queue + std::string(hold_infix) + "index";
}

std::optional<std::uint64_t> hold_ttl_of(const std::string &queue, const std::string &name) {
    const std::string prefix = queue + std::string(hold_infix);
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0)
        return std::nullopt;
    return whole_number(std::string_view(name).substr(prefix.size()));
}

bool is_companion(const std::string &name) {
    const std::string_view view = name;
    if (view.ends_with(dead_suffix)) return true;
    const std::size_t infix = view.rfind(hold_infix);
    return infix != std::string_view::npos &&
           whole_number(view.substr(infix + hold_infix.size())).has_value();
}

}  // namespace queuey_cli

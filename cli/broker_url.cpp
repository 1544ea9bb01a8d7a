#include "broker_url.hpp"

#include "usage_error.hpp"

#include <cstdlib>

namespace queuey_cli {

namespace {

// One URL: scheme://user:password@host... -> scheme://user:***@host...
std::string redacted_one(const std::string &url) {
    const std::size_t scheme_end = url.find("://");
    if (scheme_end == std::string::npos) return url;
    const std::size_t authority = scheme_end + 3;
    const std::size_t at = url.find('@', authority);
    const std::size_t path = url.find('/', authority);
    if (at == std::string::npos || (path != std::string::npos && path < at)) return url;
    const std::size_t colon = url.find(':', authority);
    if (colon == std::string::npos || colon > at) return url;
    return url.substr(0, colon + 1) + "***" + url.substr(at);
}

}  // namespace

std::string broker_url(const std::string &flag) {
    if (!flag.empty()) return flag;
    if (const char *env = std::getenv("QUEUEY_URL"); env != nullptr && *env != '\0') return env;
    throw UsageError("no broker: pass --url URL or set QUEUEY_URL (amqp://user:pass@host:5672/)");
}

std::vector<std::string> split_urls(const std::string &urls) {
    std::vector<std::string> list;
    for (std::size_t from = 0;;) {
        const std::size_t comma = urls.find(',', from);
        list.push_back(urls.substr(from, comma - from));
        if (comma == std::string::npos) return list;
        from = comma + 1;
    }
}

std::string redacted(const std::string &url) {
    const std::vector<std::string> list = split_urls(url);
    std::string out = redacted_one(list.front());  // split_urls gives at least one
    for (std::size_t i = 1; i < list.size(); ++i) out.append(",").append(redacted_one(list[i]));
    return out;
}

}  // namespace queuey_cli

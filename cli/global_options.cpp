#include "global_options.hpp"

#include "broker_url.hpp"

#include <cstdio>
#include <vector>

namespace queuey_cli {

queuey::Client GlobalOptions::connect() const {
    const std::vector<std::string> list = split_urls(broker_url(url));
    queuey::ClientOptions options;
    options.connection_name("queuey command");
    options.reconnect(0, queuey::Millis(500), 2.0, queuey::Millis(500));  // never
    for (std::size_t i = 1; i < list.size(); ++i) options.add_url(list[i]);
    return queuey::Client(list.front(), options);
}

std::optional<ManagementApi> GlobalOptions::management() const {
    return management_api(management_url, broker_url(url));
}

void GlobalOptions::print(const JsonLine &line, const std::string &human) const {
    std::puts((json ? line.str() : human).c_str());
}

}  // namespace queuey_cli

// Which broker a command talks to, and how its URL is shown.
#pragma once

#include <string>
#include <vector>

namespace queuey_cli {

// The --url value if given, else $QUEUEY_URL; a list URL,URL,... names a cluster's nodes.
// Throws UsageError when there is neither.
std::string broker_url(const std::string &flag);

// The URLs of a list URL,URL,..., in order.
std::vector<std::string> split_urls(const std::string &urls);

// url with the password of each URL of the list replaced by "***": what any message shows.
std::string redacted(const std::string &url);

}  // namespace queuey_cli

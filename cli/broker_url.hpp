// Which broker a command talks to, and how its URL is shown.
#pragma once

#include <string>

namespace queuey_cli {

// The --url value if given, else $QUEUEY_URL; a list URL,URL,... names a cluster's nodes.
// Throws UsageError when there is neither.
std::string broker_url(const std::string &flag);

// url with the password of each URL of the list replaced by "***": what any message shows.
std::string redacted(const std::string &url);

}  // namespace queuey_cli

// What every command takes: the broker and the output form.
#pragma once

#include "json_line.hpp"
#include "management_api.hpp"

#include <queuey/queuey.hpp>

#include <optional>
#include <string>

namespace queuey_cli {

struct GlobalOptions {
    std::string url;    // --url; else $QUEUEY_URL
    bool json = false;  // --json: one JSON object a line on stdout
    std::string management_url;  // --management-url; else $QUEUEY_MANAGEMENT_URL

    // A client on the broker (every URL of a list), failing at once when it cannot
    // connect: a command must not wait for a broker that is down. Throws.
    queuey::Client connect() const;
    // The management API that --management-url or $QUEUEY_MANAGEMENT_URL names, for the
    // broker URL's vhost; nullopt when neither is set.
    std::optional<ManagementApi> management() const;
    // Prints one result: line as JSON with --json, else human.
    void print(const JsonLine &line, const std::string &human) const;
};

}  // namespace queuey_cli

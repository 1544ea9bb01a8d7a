// A Toxiproxy server of the test's own on 127.0.0.1, driven through its HTTP API (plain
// HTTP/1.1 and JSON over a socket; no client library). tests/chaos/chaos_harness.py drives
// the same server from Python; scripts/lib/deps.sh (queuey_toxiproxy_server) installs it.
#pragma once

#include <string>

#include <sys/types.h>

namespace queuey_stress {

// A port on 127.0.0.1 that was free a moment ago (bound to port 0, then closed).
int free_loopback_port();

class Toxiproxy {
public:
    // Starts server_path on a free loopback port, its output appended to log_path, and
    // waits until its API answers. Throws std::runtime_error naming what failed.
    Toxiproxy(const std::string &server_path, const std::string &log_path);
    // Stops the server (SIGTERM, SIGKILL after 5 s): every proxied connection ends.
    ~Toxiproxy();
    Toxiproxy(const Toxiproxy &) = delete;
    Toxiproxy &operator=(const Toxiproxy &) = delete;

    // A proxy called name from a free 127.0.0.1 port to 127.0.0.1:upstream_port; returns
    // the port it listens on.
    int add_proxy(const std::string &name, int upstream_port);
    // Disabling a proxy closes every connection through it and its listener; enabling it
    // listens again on the same port.
    void set_enabled(const std::string &proxy, bool enabled);
    // Adds a toxic of type on stream ("upstream" or "downstream") with toxicity 1;
    // attributes_json is a JSON object ("{\"timeout\":0}").
    void add_toxic(const std::string &proxy, const std::string &toxic, const std::string &type,
                   const std::string &stream, const std::string &attributes_json);
    void remove_toxic(const std::string &proxy, const std::string &toxic);

private:
    void stop();
    // One request; returns the response body. Throws std::runtime_error on a failed
    // connect or a status other than 2xx (with the body).
    std::string call(const std::string &method, const std::string &path,
                     const std::string &body = "");

    int api_port_ = 0;
    pid_t pid_ = -1;
};

}  // namespace queuey_stress

#include "management_api.hpp"

#include "broker_url.hpp"

#include <curl/curl.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>

namespace queuey_cli {

namespace {

constexpr long connect_timeout_ms = 2000;
constexpr long request_timeout_ms = 10000;

std::size_t append_body(char *data, std::size_t size, std::size_t count, void *body) {
    static_cast<std::string *>(body)->append(data, size * count);
    return size * count;
}

std::string escaped(const std::string &text) {
    std::unique_ptr<char, decltype(&curl_free)> out(
        curl_easy_escape(nullptr, text.data(), static_cast<int>(text.size())), &curl_free);
    if (!out) throw std::runtime_error("out of memory");
    return out.get();
}

// The vhost segment of amqp://user:pass@host:port/VHOST?query, as written (it is
// percent-encoded already); "/" when the URL has none.
std::string vhost_of(const std::string &amqp_url) {
    const std::size_t scheme_end = amqp_url.find("://");
    const std::size_t path =
        amqp_url.find('/', scheme_end == std::string::npos ? 0 : scheme_end + 3);
    if (path == std::string::npos) return "%2F";
    const std::string segment = amqp_url.substr(path + 1, amqp_url.find('?', path) - path - 1);
    return segment.empty() ? "%2F" : segment;
}

}  // namespace

ManagementApi::ManagementApi(std::string base, std::string vhost)
    : base_(std::move(base)), vhost_(vhost.empty() ? "%2F" : std::move(vhost)) {
    while (!base_.empty() && base_.back() == '/') base_.pop_back();
}

std::string ManagementApi::get(const std::string &path) const {
    const std::string url = base_ + path;
    const std::string what = "the management API at " + redacted(url);
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
    if (!curl) throw std::runtime_error(what + ": could not start a request");
    std::string body;
    curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl.get(), CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT_MS, connect_timeout_ms);
    curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, request_timeout_ms);
    curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, &append_body);
    curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &body);
    if (const CURLcode code = curl_easy_perform(curl.get()); code != CURLE_OK)
        throw std::runtime_error(what + ": " + curl_easy_strerror(code));
    long status = 0;
    curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
    if (status == 401) throw std::runtime_error(what + ": 401, the user or password is refused");
    if (status != 200)
        throw std::runtime_error(what + ": HTTP status " + std::to_string(status) + ": " +
                                 body.substr(0, 200));
    return body;
}

std::vector<ManagedQueue> ManagementApi::queues() const {
    return read_queue_list(get("/api/queues/" + vhost_ +
                               "?columns=name,messages_ready,messages_unacknowledged,consumers"));
}

std::vector<ManagedConsumer> ManagementApi::consumers_of(const std::string &queue) const {
    return read_consumers(
        get("/api/queues/" + vhost_ + "/" + escaped(queue)),
        get("/api/vhosts/" + vhost_ + "/connections?columns=name,user_provided_name"));
}

std::optional<ManagementApi> management_api(const std::string &flag, const std::string &amqp_url) {
    std::string base = flag;
    if (base.empty())
        if (const char *env = std::getenv("QUEUEY_MANAGEMENT_URL")) base = env;
    if (base.empty()) return std::nullopt;
    return ManagementApi(base, vhost_of(split_urls(amqp_url).front()));
}

}  // namespace queuey_cli

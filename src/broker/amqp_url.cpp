#include "amqp_url.hpp"

#include "error.hpp"

#include <algorithm>
#include <cstddef>
#include <string>

namespace queuey {

namespace {

// Every message is fixed text: no part of the input is echoed, because any part of a
// malformed URL (a "port", a "host") may really be a password with an unescaped
// delimiter in it.
[[noreturn]] void throw_bad_url(const std::string &message) {
    throw Error(QY_ERR_INVALID_ARGUMENT, "url", message);
}

constexpr const char *encode_hint =
    " (percent-encode : / ? # [ ] @ and % inside a user name, password or vhost)";

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return ascii_lower(x) == ascii_lower(y);
           });
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Percent-decodes one component; what names it in errors ("password", "vhost").
std::string percent_decode(std::string_view text, const char *what) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out += text[i];
            continue;
        }
        const bool two_more = i + 2 < text.size();
        const int high = two_more ? hex_value(text[i + 1]) : -1;
        const int low = two_more ? hex_value(text[i + 2]) : -1;
        if (high < 0 || low < 0)
            throw_bad_url(std::string("the ") + what +
                          " has a '%' that is not followed by two hex digits" + encode_hint);
        out += static_cast<char>(high * 16 + low);
        i += 2;
    }
    if (out.find('\0') != std::string::npos)
        throw_bad_url(std::string("the ") + what + " contains a NUL character (%00)");
    return out;
}

std::string percent_encode(std::string_view text) {
    static constexpr char digits[] = "0123456789ABCDEF";
    std::string out;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        const bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
                                c == '~';
        if (unreserved) {
            out += c;
        } else {
            out += '%';
            out += digits[byte >> 4];
            out += digits[byte & 0xF];
        }
    }
    return out;
}

std::uint16_t parse_port(std::string_view text) {
    constexpr const char *message = "the port must be a number from 1 to 65535";
    if (text.empty()) throw_bad_url(message);
    unsigned long value = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') throw_bad_url(std::string(message) + encode_hint);
        value = std::min<unsigned long>(value * 10 + static_cast<unsigned long>(c - '0'), 65536);
    }
    if (value < 1 || value > 65535) throw_bad_url(message);
    return static_cast<std::uint16_t>(value);
}

bool is_ipv6_literal_char(char c) { return hex_value(c) >= 0 || c == ':' || c == '.'; }

}  // namespace

AmqpUrl parse_amqp_url(std::string_view url) {
    if (std::any_of(url.begin(), url.end(),
                    [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == '\x7f'; }))
        throw_bad_url("contains a space or control character (percent-encode it)");

    const std::size_t scheme_end = url.find("://");
    if (scheme_end == std::string_view::npos) throw_bad_url("must start with amqp:// or amqps://");
    const std::string_view scheme = url.substr(0, scheme_end);
    AmqpUrl result;
    if (iequals(scheme, "amqps")) {
        result.tls = true;
        result.port = 5671;
    } else if (!iequals(scheme, "amqp")) {
        throw_bad_url("the scheme must be amqp or amqps");
    }

    // RFC 3986: the authority ends at the first '/', '?' or '#'.
    std::string_view rest = url.substr(scheme_end + 3);
    const std::size_t authority_end = std::min(rest.find_first_of("/?#"), rest.size());
    std::string_view authority = rest.substr(0, authority_end);
    rest.remove_prefix(authority_end);

    if (const std::size_t fragment = rest.find('#'); fragment != std::string_view::npos)
        throw_bad_url(std::string("a fragment (#...) is not allowed") + encode_hint);
    // The query (?heartbeat=10&connection_timeout=...) is accepted and ignored for now:
    // queuey takes those settings from its options, not from the URL.
    const std::string_view path = rest.substr(0, rest.find('?'));

    // userinfo@hostport. A host never contains '@', so the last one ends the user info;
    // that also forgives an unescaped '@' in a password.
    if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
        const std::string_view userinfo = authority.substr(0, at);
        authority.remove_prefix(at + 1);
        const std::size_t colon = userinfo.find(':');
        result.user = percent_decode(userinfo.substr(0, colon), "user name");
        // "user@host" keeps the default password; "user:@host" is an empty password.
        if (colon != std::string_view::npos)
            result.password = percent_decode(userinfo.substr(colon + 1), "password");
    }

    std::string_view port_text;
    bool has_port = false;
    if (!authority.empty() && authority.front() == '[') {
        const std::size_t close = authority.find(']');
        if (close == std::string_view::npos) throw_bad_url("an IPv6 host lacks its closing ']'");
        const std::string_view literal = authority.substr(1, close - 1);
        if (literal.empty() || literal.find(':') == std::string_view::npos ||
            !std::all_of(literal.begin(), literal.end(), is_ipv6_literal_char))
            throw_bad_url("the host in [...] must be an IPv6 address");
        result.host = literal;
        const std::string_view after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':') throw_bad_url("an IPv6 host ']' must be followed by ':port'");
            port_text = after.substr(1);
            has_port = true;
        }
    } else {
        const std::size_t colon = authority.find(':');
        const std::string_view host = authority.substr(0, colon);
        if (host.find_first_of("[]") != std::string_view::npos)
            throw_bad_url(std::string("the host contains '[' or ']'") + encode_hint);
        // An empty host (amqp://, amqp://user@/vhost) keeps the default, localhost.
        if (!host.empty()) result.host = percent_decode(host, "host");
        if (colon != std::string_view::npos) {
            port_text = authority.substr(colon + 1);
            has_port = true;
        }
    }
    // RFC 3986 allows an empty port ("host:"), which means the default.
    if (has_port && !port_text.empty()) result.port = parse_port(port_text);

    // The vhost. RabbitMQ's URI spec reads "amqp://host/" as the vhost "" (empty); queuey
    // reads it, like an absent path, as the default vhost "/", which is what users mean.
    if (path.size() > 1) {
        const std::string_view segment = path.substr(1);
        if (segment.find('/') != std::string_view::npos)
            throw_bad_url("the vhost must be a single path segment; write a '/' inside it as %2F");
        result.vhost = percent_decode(segment, "vhost");
        if (result.vhost.size() > 255) throw_bad_url("the vhost is longer than 255 bytes");
    }
    return result;
}

std::string AmqpUrl::redacted() const {
    std::string out = tls ? "amqps://" : "amqp://";
    out += percent_encode(user);
    if (!password.empty()) out += ":***";
    out += '@';
    if (host.find(':') != std::string::npos) {
        out += '[';
        out += host;
        out += ']';
    } else {
        out += percent_encode(host);
    }
    out += ':';
    out += std::to_string(port);
    out += '/';
    out += percent_encode(vhost);
    return out;
}

}  // namespace queuey

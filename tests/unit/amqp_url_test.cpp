// Broker URLs (RabbitMQ's URI spec) and their redacted form: behaviour.md section 8.
#include "broker/amqp_url.hpp"

#include "error.hpp"

#include <gtest/gtest.h>

#include <string>

namespace queuey {
namespace {

void expect_url(const AmqpUrl &url, bool tls, const std::string &user, const std::string &password,
                const std::string &host, std::uint16_t port, const std::string &vhost) {
    EXPECT_EQ(url.tls, tls);
    EXPECT_EQ(url.user, user);
    EXPECT_EQ(url.password, password);
    EXPECT_EQ(url.host, host);
    EXPECT_EQ(url.port, port);
    EXPECT_EQ(url.vhost, vhost);
}

// The error for a bad URL; never a message with the password in it.
std::string expect_bad(std::string_view text, const std::string &secret = "s3cret") {
    try {
        parse_amqp_url(text);
        ADD_FAILURE() << "no error for " << text;
        return {};
    } catch (const Error &e) {
        EXPECT_EQ(e.status(), QY_ERR_INVALID_ARGUMENT) << e.what();
        EXPECT_EQ(e.field(), "url") << e.what();
        EXPECT_EQ(std::string(e.what()).find(secret), std::string::npos)
            << "the message for " << text << " leaks the password: " << e.what();
        return e.what();
    }
}

TEST(AmqpUrl, ReadsEveryPart) {
    expect_url(parse_amqp_url("amqp://user:pass@host:10000/vhost"), false, "user", "pass", "host",
               10000, "vhost");
    expect_url(parse_amqp_url("amqps://alice:pw@rabbit.example.com/prod"), true, "alice", "pw",
               "rabbit.example.com", 5671, "prod");
}

TEST(AmqpUrl, BareSchemeGivesTheDefaults) {
    expect_url(parse_amqp_url("amqp://"), false, "guest", "guest", "localhost", 5672, "/");
    expect_url(parse_amqp_url("amqps://"), true, "guest", "guest", "localhost", 5671, "/");
    expect_url(parse_amqp_url("amqp://host"), false, "guest", "guest", "host", 5672, "/");
    expect_url(parse_amqp_url("amqp://:10000"), false, "guest", "guest", "localhost", 10000, "/");
    expect_url(parse_amqp_url("amqp://host:"), false, "guest", "guest", "host", 5672, "/");
}

TEST(AmqpUrl, SchemeIsCaseInsensitive) {
    EXPECT_FALSE(parse_amqp_url("AMQP://h").tls);
    EXPECT_TRUE(parse_amqp_url("AmQpS://h").tls);
    EXPECT_EQ(parse_amqp_url("AmQpS://h").port, 5671);
}

TEST(AmqpUrl, DecodesUserPasswordHostAndVhost) {
    expect_url(parse_amqp_url("amqp://user%61:%61pass@ho%61st:10000/v%2fhost"), false, "usera",
               "apass", "hoast", 10000, "v/host");
    expect_url(parse_amqp_url("amqp://u:%23p%40ss%3A%2F@h/%2F"), false, "u", "#p@ss:/", "h", 5672,
               "/");
}

TEST(AmqpUrl, UserWithoutPasswordKeepsTheDefaultPasswordAndEmptyIsEmpty) {
    expect_url(parse_amqp_url("amqp://user@h"), false, "user", "guest", "h", 5672, "/");
    expect_url(parse_amqp_url("amqp://user:@h"), false, "user", "", "h", 5672, "/");
    expect_url(parse_amqp_url("amqp://:@/"), false, "", "", "localhost", 5672, "/");
}

TEST(AmqpUrl, ForgivesAnUnescapedAtSignInThePassword) {
    // A host never contains '@', so the last one ends the user info.
    expect_url(parse_amqp_url("amqp://u:p@ss@h/v"), false, "u", "p@ss", "h", 5672, "v");
}

TEST(AmqpUrl, ReadsTheVhostFromOneSegment) {
    EXPECT_EQ(parse_amqp_url("amqp://h").vhost, "/");
    EXPECT_EQ(parse_amqp_url("amqp://h/").vhost, "/");
    EXPECT_EQ(parse_amqp_url("amqp://h/%2f").vhost, "/");
    EXPECT_EQ(parse_amqp_url("amqp://h/prod").vhost, "prod");
    EXPECT_EQ(parse_amqp_url("amqp:///prod").vhost, "prod");
    EXPECT_EQ(parse_amqp_url("amqp://h/%2fprod%2f").vhost, "/prod/");
}

TEST(AmqpUrl, ReadsIpv6HostsInBrackets) {
    expect_url(parse_amqp_url("amqp://[::1]"), false, "guest", "guest", "::1", 5672, "/");
    expect_url(parse_amqp_url("amqp://u:p@[fe80::1:2]:5673/v"), false, "u", "p", "fe80::1:2", 5673,
               "v");
    expect_url(parse_amqp_url("amqp://[::ffff:192.0.2.1]:"), false, "guest", "guest",
               "::ffff:192.0.2.1", 5672, "/");
}

TEST(AmqpUrl, IgnoresTheQueryForNow) {
    expect_url(parse_amqp_url("amqp://u:p@h:1/v?heartbeat=10&connection_timeout=5"), false, "u",
               "p", "h", 1, "v");
    expect_url(parse_amqp_url("amqp://h?heartbeat=10"), false, "guest", "guest", "h", 5672, "/");
}

TEST(AmqpUrl, RefusesBadPortsWithoutTheirText) {
    for (const char *url : {"amqp://u:s3cret@h:0", "amqp://u:s3cret@h:65536",
                            "amqp://u:s3cret@h:99999999999999999999999", "amqp://u:s3cret@h:12ab",
                            "amqp://u:s3cret@h:-1", "amqp://u:s3cret@[::1]:x"}) {
        const std::string message = expect_bad(url);
        EXPECT_NE(message.find("65535"), std::string::npos) << message;
    }
    EXPECT_EQ(parse_amqp_url("amqp://h:65535").port, 65535);
    EXPECT_EQ(parse_amqp_url("amqp://h:1").port, 1);
}

TEST(AmqpUrl, NeverEchoesAPasswordThatLooksLikeAnotherPart) {
    // Unescaped delimiters in a password make it look like a port, a path or a fragment.
    expect_bad("amqp://u:s3cret");        // host u, port "s3cret"
    expect_bad("amqp://u:s3cret/x@h/v");  // authority ends at '/'
    expect_bad("amqp://u:s3c#ret@h/v", "s3c");
    expect_bad("amqp://u:s3cret@h/a/b");
    expect_bad("amqp://u:s3cret%zz@h");
    expect_bad("amqp://u:s3cret%4@h");
    expect_bad("amqp://u:s3cret%@h");
    expect_bad("amqp://u:s3cret%00@h");
    expect_bad("amqp://u:s3cret@[::1");
    expect_bad("amqp://u:s3cret@[::1]x");
    expect_bad("amqp://u:s3cret@[nothex]");
    expect_bad("http://u:s3cret@h");
    expect_bad("u:s3cret@h");
    expect_bad("amqp://u:s3cret @h");
    expect_bad("amqp://u:s3cret@h/v\n");
}

TEST(AmqpUrl, RefusesOtherMalformedUrls) {
    expect_bad("");
    expect_bad("amqp:/h");
    expect_bad("amqpx://h");
    expect_bad("://h");
    EXPECT_NE(expect_bad("amqp://h/a/b").find("%2F"), std::string::npos);
    expect_bad("amqp://h//");
    expect_bad("amqp://h/v#frag");
    expect_bad("amqp://h]:1");
    expect_bad("amqp://[]");
    expect_bad("amqp://[1.2.3.4]");
}

TEST(AmqpUrl, RefusesOverlongVhost) {
    EXPECT_EQ(parse_amqp_url("amqp://h/" + std::string(255, 'v')).vhost.size(), 255u);
    expect_bad("amqp://h/" + std::string(256, 'v'));
}

TEST(AmqpUrl, RedactsThePassword) {
    EXPECT_EQ(parse_amqp_url("amqp://alice:s3cret@rabbit:5672/prod").redacted(),
              "amqp://alice:***@rabbit:5672/prod");
    EXPECT_EQ(parse_amqp_url("amqp://").redacted(), "amqp://guest:***@localhost:5672/%2F");
    EXPECT_EQ(parse_amqp_url("amqps://bob:@h/v").redacted(), "amqps://bob@h:5671/v");
    EXPECT_EQ(parse_amqp_url("amqp://a%40b:p@[::1]:1/x%2Fy").redacted(),
              "amqp://a%40b:***@[::1]:1/x%2Fy");
    const std::string secret_url = "amqp://u:s3cret@h/v";
    EXPECT_EQ(parse_amqp_url(secret_url).redacted().find("s3cret"), std::string::npos);
}

}  // namespace
}  // namespace queuey

#include "windowed_publisher.hpp"

#include "cli.hpp"

#include <amqp_tcp_socket.h>

#include <sys/time.h>
#include <stdexcept>

namespace {

constexpr amqp_channel_t channel = 1;
const timeval wait_limit{30, 0};  // a broker silent this long is stuck

[[noreturn]] void fail(const char *doing, const std::string &why) {
    throw std::runtime_error(std::string("raw rabbitmq-c: ") + doing + ": " + why);
}

amqp_bytes_t bytes_of(const std::string &text) {
    return {text.size(), const_cast<char *>(text.data())};
}

}  // namespace

void WindowedPublisher::check(int status, const char *doing) {
    if (status != AMQP_STATUS_OK) fail(doing, amqp_error_string2(status));
}

void WindowedPublisher::check(amqp_rpc_reply_t reply, const char *doing) {
    if (reply.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION)
        fail(doing, amqp_error_string2(reply.library_error));
    if (reply.reply_type != AMQP_RESPONSE_NORMAL) fail(doing, "refused by the broker");
}

WindowedPublisher::WindowedPublisher(const std::string &url) : state_(amqp_new_connection()) {
    const std::vector<std::string> urls = FlagReader::split(url);
    std::string parsed = urls.empty() ? "" : urls.front();  // amqp_parse_url cuts it up
    amqp_connection_info info;
    if (amqp_parse_url(parsed.data(), &info) != AMQP_STATUS_OK) fail("parsing the URL", url);
    amqp_socket_t *socket = amqp_tcp_socket_new(state_);
    if (socket == nullptr) fail("connecting", "no socket");
    check(amqp_socket_open(socket, info.host, info.port), "connecting");
    check(amqp_login(state_, info.vhost, 0, 131072, 0, AMQP_SASL_METHOD_PLAIN, info.user,
                     info.password),
          "logging in");
    amqp_channel_open(state_, channel);
    check(amqp_get_rpc_reply(state_), "opening a channel");
    amqp_confirm_select(state_, channel);
    check(amqp_get_rpc_reply(state_), "enabling publisher confirms");
}

WindowedPublisher::~WindowedPublisher() {
    amqp_connection_close(state_, AMQP_REPLY_SUCCESS);
    amqp_destroy_connection(state_);
}

void WindowedPublisher::publish(const std::string &queue, const RawMessage &message,
                                std::size_t window) {
    while (unconfirmed_ >= window) await_one();
    published_at_.push_back(Clock::now());
    confirmed_.push_back(false);
    ++unconfirmed_;
    check(amqp_basic_publish(state_, channel, amqp_empty_bytes, bytes_of(queue), /*mandatory=*/1,
                             /*immediate=*/0, &message.properties, bytes_of(message.body)),
          "publishing");
}

void WindowedPublisher::await_all() {
    while (unconfirmed_ > 0) await_one();
}

void WindowedPublisher::await_one() {
    const std::size_t before = unconfirmed_;
    while (unconfirmed_ == before) {
        amqp_frame_t frame;
        check(amqp_simple_wait_frame_noblock(state_, &frame, &wait_limit), "waiting for confirms");
        const Clock::time_point now = Clock::now();
        if (frame.frame_type != AMQP_FRAME_METHOD) continue;
        if (frame.payload.method.id != AMQP_BASIC_ACK_METHOD)
            fail("waiting for confirms", "a nack, a return or another unexpected method");
        const auto *ack = static_cast<amqp_basic_ack_t *>(frame.payload.method.decoded);
        confirm(ack->delivery_tag, ack->multiple != 0, now);
    }
    amqp_maybe_release_buffers(state_);
}

void WindowedPublisher::confirm(std::uint64_t tag, bool multiple, Clock::time_point now) {
    if (tag == 0 || tag > published_at_.size()) fail("waiting for confirms", "an unknown tag");
    auto settle = [&](std::size_t index) {
        if (confirmed_[index]) return;
        confirmed_[index] = true;
        --unconfirmed_;
        latencies_us_.push_back(
            std::chrono::duration<double, std::micro>(now - published_at_[index]).count());
    };
    for (std::size_t index = multiple ? first_unconfirmed_ : tag - 1; index < tag; ++index)
        settle(index);
    while (first_unconfirmed_ < confirmed_.size() && confirmed_[first_unconfirmed_])
        ++first_unconfirmed_;
}

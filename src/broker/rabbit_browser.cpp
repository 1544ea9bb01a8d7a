#include "rabbit_browser.hpp"

namespace queuey {

RabbitBrowser::RabbitBrowser(RabbitConnection &connection, const std::string &queue,
                             std::chrono::milliseconds timeout)
    : connection_(connection),
      timeout_(timeout),
      channel_(connection.borrow_channel(queue, deadline())) {}

RabbitBrowser::~RabbitBrowser() { close(); }

RabbitConnection::Clock::time_point RabbitBrowser::deadline() const {
    return RabbitConnection::Clock::now() + timeout_;
}

std::optional<BrowsedMessage> RabbitBrowser::next() {
    if (!channel_) throw Error(QY_ERR_CLOSED, "", "the browser was closed");
    return connection_.get(channel_, deadline());
}

void RabbitBrowser::remove(const BrowsedMessage &message) {
    if (!channel_) throw Error(QY_ERR_CLOSED, "", "the browser was closed");
    connection_.ack(channel_, message.tag, deadline());
}

void RabbitBrowser::close() {
    if (!channel_) return;
    connection_.give_back(channel_);
    channel_.reset();
}

}  // namespace queuey

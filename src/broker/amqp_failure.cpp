#include "amqp_failure.hpp"

namespace queuey {

qy_status status_for_reply_code(std::uint16_t reply_code) {
    switch (reply_code) {
        case AMQP_PRECONDITION_FAILED: return QY_ERR_PRECONDITION_FAILED;
        case AMQP_ACCESS_REFUSED: return QY_ERR_AUTH;
        case AMQP_NOT_FOUND: return QY_ERR_NOT_FOUND;
        case AMQP_CONNECTION_FORCED: return QY_ERR_CONNECTION;
        default: return QY_ERR_BROKER;
    }
}

std::string reply_text(std::uint16_t reply_code, amqp_bytes_t text) {
    return std::to_string(reply_code) + " " +
           std::string(static_cast<const char *>(text.bytes), text.len);
}

void throw_library_error(int amqp_status, std::string_view doing) {
    const qy_status status = amqp_status == AMQP_STATUS_TIMEOUT ? QY_ERR_TIMEOUT : QY_ERR_CONNECTION;
    throw ConnectionLost(status, std::string(doing) + ": " + amqp_error_string2(amqp_status));
}

std::exception_ptr copy_of_current_exception() {
    try {
        throw;
    } catch (const ConnectionLost &lost) {
        return std::make_exception_ptr(ConnectionLost(lost.status(), lost.what()));
    } catch (const ChannelClosed &closed) {
        return std::make_exception_ptr(
            ChannelClosed(closed.status(), closed.channel(), closed.what()));
    } catch (const Error &error) {
        return std::make_exception_ptr(error.unshared());
    } catch (...) {
        return std::current_exception();
    }
}

}  // namespace queuey

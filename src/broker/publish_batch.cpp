#include "publish_batch.hpp"

namespace queuey {

void PublishBatch::fail_from(std::size_t first, const Error &error) {
    for (std::size_t i = first; i < messages.size(); ++i)
        waiter.complete(i, {error.status(), error.what()});
}

void PublishBatch::unsent_from(std::size_t first, const Error &error) {
    fail_from(first, Error(error.status(), "", std::string("not sent: ") + error.what()));
}

}  // namespace queuey

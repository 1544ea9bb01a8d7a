// What a consumer tells whoever consumes through it, besides its deliveries: the bodies it
// settled itself because they were no envelope (behaviour.md section 6). The worker counts
// and logs them; the pull API logs them. Neither needs to know the backend.
#pragma once

#include <string>

namespace queuey {

// A body that did not decode as an envelope and never became a delivery.
struct MalformedBody {
    std::string queue;
    std::string problem;     // the decoder's message (it names the field)
    std::string message_id;  // empty when the message carried none
    // True: copied verbatim to the dead-letter queue, then acked. False: the copy failed
    // and the body was rejected without requeue, so it is gone (the spec's choice over a
    // consumer that stalls on it forever).
    bool copied = false;
    std::string copy_failure;  // why the copy failed (empty when copied)
};

// Called on the thread inside Consumer::next(), never under a backend's lock.
class ConsumerObserver {
public:
    virtual ~ConsumerObserver() = default;
    virtual void malformed_body(const MalformedBody &body) = 0;
};

}  // namespace queuey

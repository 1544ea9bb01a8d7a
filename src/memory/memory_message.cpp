#include "memory_message.hpp"

#include "../envelope_codec.hpp"
#include "../error.hpp"

namespace queuey {

MemoryMessage memory_message(const Envelope &envelope) {
    try {
        return {decode_envelope(encode_envelope(envelope)), {}};
    } catch (const Error &error) {
        return {envelope, error.what()};
    }
}

}  // namespace queuey

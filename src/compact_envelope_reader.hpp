// The fast way to read a body: one pass over the compact form that queuey's encoder and
// the Rust implementation write, straight into the EnvelopeReader, with the payload kept
// as the slice of the body it is. Several times faster than RapidJSON's reader, which
// remains the way to read any other body and to word every error.
#pragma once

#include "envelope_reader.hpp"
#include "plain_runs.hpp"

#include <string_view>

namespace queuey {

// Feeds body to fields and returns true if it is an object in the compact form whose
// fields all read without an error. Returns false otherwise (fields is then spent): the
// body may still be a valid envelope in another form, or hold an error that RapidJSON's
// reader will word. known_plain, when given, knows runs of plain bytes in body, which
// the payload's scan steps over (plain_runs.hpp).
bool read_compact_envelope(std::string_view body, EnvelopeReader &fields,
                           PlainRunSkipper *known_plain = nullptr);

}  // namespace queuey

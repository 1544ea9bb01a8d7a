// Rewrites RapidJSON reader events into a JsonWriter: how a payload is copied through a
// decode or an encode without ever becoming a DOM (numbers stay as their digits).
#pragma once

#include "json_writer.hpp"
#include "utf8.hpp"

#include <rapidjson/reader.h>

namespace queuey {

// The typed number events a RapidJSON handler must declare; with
// kParseNumbersAsStringsFlag the reader never calls them (every number is a RawNumber).
struct NumbersAsTextHandler {
    bool Int(int) { return false; }
    bool Uint(unsigned) { return false; }
    bool Int64(int64_t) { return false; }
    bool Uint64(uint64_t) { return false; }
    bool Double(double) { return false; }
};

class JsonForwarder : public NumbersAsTextHandler {
public:
    explicit JsonForwarder(JsonWriter &writer) : writer_(writer) {}

    bool Null() { return writer_.null(), true; }
    bool Bool(bool b) { return writer_.boolean(b), true; }
    // With kParseNumbersAsStringsFlag every number arrives here, as written.
    bool RawNumber(const char *str, rapidjson::SizeType len, bool) {
        return writer_.raw_number({str, len}), true;
    }
    // Invalid UTF-8 stops the parse (kParseErrorTermination): see json_parse_flags.
    bool String(const char *str, rapidjson::SizeType len, bool) {
        return is_valid_utf8({str, len}) && (writer_.string({str, len}), true);
    }
    bool StartObject() { return writer_.start_object(), true; }
    bool Key(const char *str, rapidjson::SizeType len, bool) {
        return is_valid_utf8({str, len}) && (writer_.key({str, len}), true);
    }
    bool EndObject(rapidjson::SizeType) { return writer_.end_object(), true; }
    bool StartArray() { return writer_.start_array(), true; }
    bool EndArray(rapidjson::SizeType) { return writer_.end_array(), true; }

private:
    JsonWriter &writer_;
};

// The reader flags every parse in queuey uses: numbers kept as text, and an iterative
// parser so that deeply nested input cannot exhaust the stack. Not
// kParseValidateEncodingFlag: the handlers check every decoded string and key with
// is_valid_utf8 instead, which also catches what RapidJSON 1.1.0 lets through (a lone
// "\uDC00".."\uDFFF" escape decodes to surrogate bytes) and costs less than its
// per-byte validator. Bytes >= 0x80 outside strings are syntax errors anyway.
inline constexpr unsigned json_parse_flags = rapidjson::kParseNumbersAsStringsFlag |
                                             rapidjson::kParseIterativeFlag;

}  // namespace queuey

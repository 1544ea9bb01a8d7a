// qy_properties_*: the AMQP properties of an envelope, for tooling and tests.
#include "guard.hpp"

using queuey::capi::make_handle;
using queuey::capi::require;
using queuey::capi::require_text;

namespace {

const queuey::AmqpHeader *header_at(const qy_properties *props, size_t index) {
    if (props == nullptr || index >= props->value.headers.size()) return nullptr;
    return &props->value.headers[index];
}

}  // namespace

extern "C" {

qy_status qy_envelope_properties(const qy_envelope *env, qy_properties **out, qy_error **err) {
    return make_handle(out, err, [&] { return queuey::publish_properties(require(env, "env").value()); });
}

qy_status qy_envelope_dead_letter_properties(const qy_envelope *env, const char *reason,
                                             qy_properties **out, qy_error **err) {
    return make_handle(out, err, [&] {
        return queuey::dead_letter_properties(require(env, "env").value(), require_text(reason, "reason"));
    });
}

void qy_properties_free(qy_properties *props) { delete props; }

const char *qy_properties_content_type(const qy_properties *props) {
    return props ? props->value.content_type.data() : nullptr;  // a literal: NUL-terminated
}

uint8_t qy_properties_delivery_mode(const qy_properties *props) {
    return props ? props->value.delivery_mode : 0;
}

const char *qy_properties_message_id(const qy_properties *props) {
    return props ? props->value.message_id.c_str() : nullptr;
}

const char *qy_properties_type(const qy_properties *props) {
    return props ? props->value.type.c_str() : nullptr;
}

uint8_t qy_properties_priority(const qy_properties *props) {
    return props ? props->value.priority : 0;
}

size_t qy_properties_header_count(const qy_properties *props) {
    return props ? props->value.headers.size() : 0;
}

const char *qy_properties_header_name(const qy_properties *props, size_t index) {
    const auto *header = header_at(props, index);
    return header ? header->name.c_str() : nullptr;
}

qy_field_kind qy_properties_header_kind(const qy_properties *props, size_t index) {
    const auto *header = header_at(props, index);
    if (header == nullptr) return QY_FIELD_NONE;
    return std::holds_alternative<uint32_t>(header->value) ? QY_FIELD_U32 : QY_FIELD_STRING;
}

uint32_t qy_properties_header_u32(const qy_properties *props, size_t index) {
    const auto *header = header_at(props, index);
    const auto *value = header ? std::get_if<uint32_t>(&header->value) : nullptr;
    return value ? *value : 0;
}

const char *qy_properties_header_string(const qy_properties *props, size_t index) {
    const auto *header = header_at(props, index);
    const auto *value = header ? std::get_if<std::string>(&header->value) : nullptr;
    return value ? value->c_str() : nullptr;
}

}  // extern "C"

#include "amqp_table.hpp"

#include <algorithm>

namespace queuey {

namespace {

amqp_field_value_t field_value(const QueueArgumentValue &value) {
    amqp_field_value_t field{};
    if (const auto *octet = std::get_if<std::uint8_t>(&value)) {
        field.kind = AMQP_FIELD_KIND_U8;
        field.value.u8 = *octet;
    } else if (const auto *number = std::get_if<std::int64_t>(&value)) {
        field.kind = AMQP_FIELD_KIND_I64;
        field.value.i64 = *number;
    } else if (const auto *flag = std::get_if<bool>(&value)) {
        field.kind = AMQP_FIELD_KIND_BOOLEAN;
        field.value.boolean = *flag ? 1 : 0;
    } else {
        field.kind = AMQP_FIELD_KIND_UTF8;
        field.value.bytes = amqp_bytes_of(std::get<std::string>(value));
    }
    return field;
}

amqp_field_value_t field_value(const std::variant<std::uint32_t, std::string> &value) {
    amqp_field_value_t field{};
    if (const auto *number = std::get_if<std::uint32_t>(&value)) {
        field.kind = AMQP_FIELD_KIND_U32;
        field.value.u32 = *number;
    } else {
        field.kind = AMQP_FIELD_KIND_UTF8;
        field.value.bytes = amqp_bytes_of(std::get<std::string>(value));
    }
    return field;
}

const amqp_field_value_t *field(const amqp_table_t &table, std::string_view name) {
    for (int i = 0; i < table.num_entries; ++i) {
        const amqp_table_entry_t &entry = table.entries[i];
        if (std::string_view(static_cast<const char *>(entry.key.bytes), entry.key.len) == name)
            return &entry.value;
    }
    return nullptr;
}

}  // namespace

amqp_bytes_t amqp_bytes_of(std::string_view text) {
    // rabbitmq-c never writes through the pointer of bytes it sends.
    return {text.size(), const_cast<char *>(text.data())};
}

AmqpTable::AmqpTable(const std::vector<QueueArgument> &arguments) {
    entries_.reserve(arguments.size());
    for (const auto &argument : arguments)
        entries_.push_back({amqp_bytes_of(argument.name), field_value(argument.value)});
    seal();
}

AmqpTable::AmqpTable(const std::vector<AmqpHeader> &headers) {
    entries_.reserve(headers.size());
    for (const auto &header : headers)
        entries_.push_back({amqp_bytes_of(header.name), field_value(header.value)});
    seal();
}

AmqpTable::AmqpTable(const std::vector<AmqpHeader> &headers, std::string_view array_name,
                     const std::vector<std::string> &array)
    : AmqpTable(headers) {
    array_.reserve(array.size());
    for (const std::string &item : array) {
        amqp_field_value_t field{};
        field.kind = AMQP_FIELD_KIND_UTF8;
        field.value.bytes = amqp_bytes_of(item);
        array_.push_back(field);
    }
    amqp_field_value_t value{};
    value.kind = AMQP_FIELD_KIND_ARRAY;
    value.value.array = {static_cast<int>(array_.size()), array_.data()};
    entries_.push_back({amqp_bytes_of(array_name), value});
    seal();
}

BasicProperties::BasicProperties(const AmqpProperties &props) : headers_(props.headers) {
    set(props);
}

BasicProperties::BasicProperties(const AmqpProperties &props, std::string_view array_name,
                                 const std::vector<std::string> &array)
    : headers_(props.headers, array_name, array) {
    set(props);
}

void BasicProperties::set(const AmqpProperties &props) {
    properties_._flags = queuey_property_flags;
    properties_.content_type = amqp_bytes_of(props.content_type);
    properties_.delivery_mode = props.delivery_mode;
    properties_.message_id = amqp_bytes_of(props.message_id);
    properties_.type = amqp_bytes_of(props.type);
    properties_.priority = props.priority;
    properties_.headers = headers_.table();
}

std::optional<std::int64_t> integer_value(const amqp_field_value_t &field) {
    switch (field.kind) {
        case AMQP_FIELD_KIND_I8: return field.value.i8;
        case AMQP_FIELD_KIND_U8: return field.value.u8;
        case AMQP_FIELD_KIND_I16: return field.value.i16;
        case AMQP_FIELD_KIND_U16: return field.value.u16;
        case AMQP_FIELD_KIND_I32: return field.value.i32;
        case AMQP_FIELD_KIND_U32: return field.value.u32;
        case AMQP_FIELD_KIND_I64: return field.value.i64;
        case AMQP_FIELD_KIND_U64:
            return static_cast<std::int64_t>(std::min<std::uint64_t>(field.value.u64, INT64_MAX));
        default: return std::nullopt;
    }
}

std::optional<std::int64_t> integer_field(const amqp_table_t &table, std::string_view name) {
    const amqp_field_value_t *value = field(table, name);
    if (value == nullptr) return std::nullopt;
    return integer_value(*value);
}

std::optional<std::string_view> text_field(const amqp_table_t &table, std::string_view name) {
    const amqp_field_value_t *value = field(table, name);
    if (value == nullptr || value->kind != AMQP_FIELD_KIND_UTF8) return std::nullopt;
    return std::string_view(static_cast<const char *>(value->value.bytes.bytes),
                            value->value.bytes.len);
}

void AmqpTable::seal() {
    table_.num_entries = static_cast<int>(entries_.size());
    table_.entries = entries_.empty() ? nullptr : entries_.data();
}

}  // namespace queuey

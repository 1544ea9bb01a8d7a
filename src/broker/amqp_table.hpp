// AMQP field tables for rabbitmq-c, built over queuey's own argument and header lists.
// The table borrows the strings of the list it was built from: keep that list alive
// and unchanged while the table is in use.
#pragma once

#include "../amqp_properties.hpp"
#include "../topology.hpp"

#include <amqp.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace queuey {

class AmqpTable {
public:
    explicit AmqpTable(const std::vector<QueueArgument> &arguments);
    explicit AmqpTable(const std::vector<AmqpHeader> &headers);
    // headers, and one more whose value is an array of strings ('A' of 'S'): a BCC header
    // (sender-selected distribution), a type queuey's other headers never need.
    AmqpTable(const std::vector<AmqpHeader> &headers, std::string_view array_name,
              const std::vector<std::string> &array);
    AmqpTable(const AmqpTable &) = delete;
    AmqpTable &operator=(const AmqpTable &) = delete;

    const amqp_table_t &table() const { return table_; }

private:
    void seal();

    std::vector<amqp_table_entry_t> entries_;
    std::vector<amqp_field_value_t> array_;  // the array header's items
    amqp_table_t table_{};
};

// The properties every queuey publish carries: BasicProperties sets them, and queuey's own
// publish frames (publish_frames.cpp) write them.
inline constexpr std::uint16_t queuey_property_flags =
    AMQP_BASIC_CONTENT_TYPE_FLAG | AMQP_BASIC_HEADERS_FLAG | AMQP_BASIC_DELIVERY_MODE_FLAG |
    AMQP_BASIC_PRIORITY_FLAG | AMQP_BASIC_MESSAGE_ID_FLAG | AMQP_BASIC_TYPE_FLAG;

// The rabbitmq-c form of a message's properties; borrows props' strings as AmqpTable does.
class BasicProperties {
public:
    explicit BasicProperties(const AmqpProperties &props);
    // props with one more header, an array of strings (AmqpTable's).
    BasicProperties(const AmqpProperties &props, std::string_view array_name,
                    const std::vector<std::string> &array);
    BasicProperties(const BasicProperties &) = delete;
    BasicProperties &operator=(const BasicProperties &) = delete;

    const amqp_basic_properties_t &get() const { return properties_; }

private:
    void set(const AmqpProperties &props);

    AmqpTable headers_;
    amqp_basic_properties_t properties_{};
};

// The value of an integer field, whatever its integer type (a u64 above INT64_MAX is
// INT64_MAX); nullopt for any other type.
std::optional<std::int64_t> integer_value(const amqp_field_value_t &field);

// The integer value of field name in table, whatever its integer type; nullopt when the
// field is absent or not an integer.
std::optional<std::int64_t> integer_field(const amqp_table_t &table, std::string_view name);

// The text of field name in table (a long string, the type every AMQP client writes a
// string as); nullopt when the field is absent or of another type. Borrowed from table.
std::optional<std::string_view> text_field(const amqp_table_t &table, std::string_view name);

// A borrowed view of a string as AMQP bytes.
amqp_bytes_t amqp_bytes_of(std::string_view text);

}  // namespace queuey

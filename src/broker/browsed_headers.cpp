#include "browsed_headers.hpp"

#include "../json_writer.hpp"
#include "../utf8.hpp"
#include "amqp_table.hpp"

#include <cmath>
#include <string_view>

namespace queuey {

namespace {

std::string_view view_of(amqp_bytes_t bytes) {
    return {static_cast<const char *>(bytes.bytes), bytes.len};
}

void append_json(std::string &out, const amqp_field_value_t &field);

void append_table(std::string &out, const amqp_table_t &table) {
    out += '{';
    for (int i = 0; i < table.num_entries; ++i) {
        if (i > 0) out += ',';
        append_json_string(out, view_of(table.entries[i].key));
        out += ':';
        append_json(out, table.entries[i].value);
    }
    out += '}';
}

void append_double(std::string &out, double value) {
    if (!std::isfinite(value)) {
        out += "null";  // JSON has no NaN or infinity
        return;
    }
    out += std::to_string(value);
}

void append_json(std::string &out, const amqp_field_value_t &field) {
    if (const auto integer = integer_value(field)) {
        out += std::to_string(*integer);
        return;
    }
    switch (field.kind) {
        case AMQP_FIELD_KIND_UTF8:
        case AMQP_FIELD_KIND_BYTES: {
            const std::string_view text = view_of(field.value.bytes);
            if (is_valid_utf8(text))
                append_json_string(out, text);
            else  // not text: say what it is rather than write invalid JSON
                append_json_string(out, std::string("<")
                                            .append(std::to_string(text.size()))
                                            .append(" bytes, not UTF-8>"));
            return;
        }
        case AMQP_FIELD_KIND_BOOLEAN: out += field.value.boolean ? "true" : "false"; return;
        case AMQP_FIELD_KIND_F32: append_double(out, field.value.f32); return;
        case AMQP_FIELD_KIND_F64: append_double(out, field.value.f64); return;
        case AMQP_FIELD_KIND_TIMESTAMP:  // seconds since the epoch
            out += std::to_string(field.value.u64);
            return;
        case AMQP_FIELD_KIND_DECIMAL:
            append_double(out,
                          field.value.decimal.value /
                              std::pow(10.0, static_cast<double>(field.value.decimal.decimals)));
            return;
        case AMQP_FIELD_KIND_TABLE: append_table(out, field.value.table); return;
        case AMQP_FIELD_KIND_ARRAY:
            out += '[';
            for (int i = 0; i < field.value.array.num_entries; ++i) {
                if (i > 0) out += ',';
                append_json(out, field.value.array.entries[i]);
            }
            out += ']';
            return;
        default: out += "null"; return;  // void
    }
}

}  // namespace

std::vector<BrowsedHeader> browsed_headers(const amqp_table_t &table) {
    std::vector<BrowsedHeader> headers;
    headers.reserve(static_cast<std::size_t>(table.num_entries));
    for (int i = 0; i < table.num_entries; ++i) {
        const amqp_table_entry_t &entry = table.entries[i];
        BrowsedHeader header;
        header.name = std::string(view_of(entry.key));
        append_json(header.json, entry.value);
        header.integer = integer_value(entry.value);
        if (entry.value.kind == AMQP_FIELD_KIND_UTF8 || entry.value.kind == AMQP_FIELD_KIND_BYTES)
            header.text = std::string(view_of(entry.value.value.bytes));
        headers.push_back(std::move(header));
    }
    return headers;
}

}  // namespace queuey

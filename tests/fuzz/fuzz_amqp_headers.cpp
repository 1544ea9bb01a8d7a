// libFuzzer target: any bytes as an AMQP field table (the headers of a message that
// queuey dead show and qy_message_headers_json() print). rabbitmq-c decodes it; every
// table it accepts must come out of browsed_headers as valid JSON, one value a header,
// whatever the field types, nesting or bytes (not UTF-8 included).
#include "broker/browsed_headers.hpp"

#include <amqp.h>
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>

namespace {

bool valid_json(const std::string &text) {
    rapidjson::Document document;
    document.Parse(text.data(), text.size());
    return !document.HasParseError();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    amqp_pool_t pool;
    init_amqp_pool(&pool, 4096);
    amqp_table_t table{};
    std::size_t offset = 0;
    const amqp_bytes_t encoded{size, const_cast<std::uint8_t *>(data)};
    if (amqp_decode_table(encoded, &pool, &table, &offset) == AMQP_STATUS_OK) {
        for (const queuey::BrowsedHeader &header : queuey::browsed_headers(table)) {
            if (!valid_json(header.json)) __builtin_trap();
            if (header.text && header.integer) __builtin_trap();  // one kind or the other
        }
    }
    empty_amqp_pool(&pool);
    return 0;
}

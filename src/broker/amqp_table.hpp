// AMQP field tables for rabbitmq-c, built over queuey's own argument and header lists.
// The table borrows the strings of the list it was built from: keep that list alive
// and unchanged while the table is in use.
#pragma once

#include "../amqp_properties.hpp"
#include "../topology.hpp"

#include <amqp.h>

#include <vector>

namespace queuey {

class AmqpTable {
public:
    explicit AmqpTable(const std::vector<QueueArgument> &arguments);
    explicit AmqpTable(const std::vector<AmqpHeader> &headers);
    AmqpTable(const AmqpTable &) = delete;
    AmqpTable &operator=(const AmqpTable &) = delete;

    const amqp_table_t &table() const { return table_; }

private:
    void seal();

    std::vector<amqp_table_entry_t> entries_;
    amqp_table_t table_{};
};

// A borrowed view of a string as AMQP bytes.
amqp_bytes_t amqp_bytes_of(const std::string &text);

}  // namespace queuey

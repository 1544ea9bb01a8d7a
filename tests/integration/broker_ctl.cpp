#include "broker_ctl.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace queuey_it {

namespace {

// An Erlang binary literal of a UTF-8 string.
std::string erlang_binary(const std::string &text) {
    std::string literal = "<<\"";
    for (char c : text) {
        if (c == '"' || c == '\\') literal += '\\';
        literal += c;
    }
    return literal + "\"/utf8>>";
}

// Every field, also an empty last one (a string argument "" prints as nothing).
std::vector<std::string> split(const std::string &line, char separator) {
    std::vector<std::string> parts(1);
    for (char c : line) {
        if (c == separator)
            parts.emplace_back();
        else
            parts.back() += c;
    }
    return parts;
}

}  // namespace

std::map<std::string, std::optional<BrokerQueue>> inspect_queues(
    const BrokerEndpoint &broker, const std::vector<std::string> &names, bool with_added_type) {
    std::string list;
    for (const std::string &name : names) list += (list.empty() ? "" : ", ") + erlang_binary(name);
    // Strings print bare (~ts), other values as Erlang terms (~p); one line per fact.
    const std::string expression =
        "lists:foreach(fun(N) ->"
        "  case rabbit_amqqueue:lookup(rabbit_misc:r(" +
        erlang_binary(broker.vhost) +
        ", queue, N)) of"
        "    {ok, Q} ->"
        "      io:format(\"queue\\t~ts\\t~p~n\", [N, amqqueue:is_durable(Q)]),"
        "      lists:foreach(fun({K, T, V}) when is_binary(V) ->"
        "                          io:format(\"arg\\t~ts\\t~ts\\t~s\\t~ts~n\", [N, K, T, V]);"
        "                       ({K, T, V}) ->"
        "                          io:format(\"arg\\t~ts\\t~ts\\t~s\\t~p~n\", [N, K, T, V])"
        "                    end, amqqueue:get_arguments(Q));"
        "    _ -> io:format(\"missing\\t~ts~n\", [N])"
        "  end"
        " end, [" +
        list + "]), ok.";
    const std::string output = rabbitmqctl(broker, {"eval", expression});

    std::map<std::string, std::optional<BrokerQueue>> queues;
    std::istringstream lines(output);
    std::string line;
    while (std::getline(lines, line)) {
        const auto fields = split(line, '\t');
        if (fields.size() == 3 && fields[0] == "queue")
            queues[fields[1]] = BrokerQueue{fields[2] == "true", {}};
        else if (fields.size() == 2 && fields[0] == "missing")
            queues[fields[1]] = std::nullopt;
        else if (fields.size() == 5 && fields[0] == "arg" && queues[fields[1]])
            queues[fields[1]]->arguments[fields[2]] = BrokerArgument{fields[3], fields[4]};
    }
    for (const std::string &name : names)
        if (queues.find(name) == queues.end())
            throw std::runtime_error("rabbitmqctl eval said nothing about queue " + name + ":\n" +
                                     output);
    if (with_added_type) return queues;
    const BrokerArgument added_type{"longstr", "classic"};
    for (auto &[name, queue] : queues) {
        if (!queue) continue;
        const auto type = queue->arguments.find("x-queue-type");
        if (type != queue->arguments.end() && type->second == added_type)
            queue->arguments.erase(type);
    }
    return queues;
}

std::vector<std::string> connection_column(const BrokerEndpoint &broker, const std::string &name,
                                           const std::string &column) {
    // One line per connection: the column, a tab, the client properties as an Erlang
    // list such as [{"product","queuey"}, ..., {"connection_name","NAME"}].
    const std::string output = rabbitmqctl(
        broker, {"-q", "list_connections", "--no-table-headers", column, "client_properties"});
    // A client names its connections "NAME (publish)" and "NAME (consume)".
    const std::string exact = "{\"connection_name\",\"" + name + "\"}";
    const std::string of_client = "{\"connection_name\",\"" + name + " (";
    std::vector<std::string> values;
    std::istringstream lines(output);
    std::string line;
    while (std::getline(lines, line)) {
        const auto tab = line.find('\t');
        if (tab != std::string::npos && (line.find(exact, tab) != std::string::npos ||
                                         line.find(of_client, tab) != std::string::npos))
            values.push_back(line.substr(0, tab));
    }
    return values;
}

std::size_t close_connections(const BrokerEndpoint &broker, const std::string &name) {
    const auto pids = connection_pids(broker, name);
    for (const std::string &pid : pids)
        rabbitmqctl(broker, {"close_connection", pid, "closed by an integration test"});
    return pids.size();
}

long unacknowledged_on_channels(const BrokerEndpoint &broker, const std::string &name) {
    const auto pids = connection_pids(broker, name);
    const std::string output = rabbitmqctl(broker, {"-q", "list_channels", "--no-table-headers",
                                                    "connection", "messages_unacknowledged"});
    long unacknowledged = 0;
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) {
        const auto fields = split(line, '\t');
        if (fields.size() == 2 && std::find(pids.begin(), pids.end(), fields[0]) != pids.end())
            unacknowledged += std::stol(fields[1]);
    }
    return unacknowledged;
}

std::vector<int> consumer_prefetches(const BrokerEndpoint &broker, const std::string &queue) {
    const std::string output =
        rabbitmqctl(broker, {"-q", "list_consumers", "-p", broker.vhost, "--no-table-headers",
                             "queue_name", "prefetch_count"});
    std::vector<int> prefetches;
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) {
        const auto fields = split(line, '\t');
        if (fields.size() == 2 && fields[0] == queue) prefetches.push_back(std::stoi(fields[1]));
    }
    return prefetches;
}

QueueCounts queue_counts(const BrokerEndpoint &broker, const std::string &queue) {
    const std::string output =
        rabbitmqctl(broker, {"-q", "list_queues", "-p", broker.vhost, "--no-table-headers", "name",
                             "messages_ready", "messages_unacknowledged"});
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) {
        const auto fields = split(line, '\t');
        if (fields.size() == 3 && fields[0] == queue)
            return {std::stol(fields[1]), std::stol(fields[2])};
    }
    return {};
}

void set_memory_alarm(const BrokerEndpoint &broker, bool raised) {
    rabbitmqctl(broker,
                {"eval", raised ? "rabbit_alarm:set_alarm({{resource_limit, memory, node()}, []})."
                                : "rabbit_alarm:clear_alarm({resource_limit, memory, node()})."});
}

MemoryAlarm::~MemoryAlarm() {
    try {
        set_memory_alarm(broker_, false);
    } catch (const std::exception &e) {
        ADD_FAILURE() << "the broker's memory alarm stays raised: " << e.what();
    }
}

void set_max_message_size(const BrokerEndpoint &broker, std::uint64_t bytes) {
    // RabbitMQ 3.10's channels read the application's setting; 4.0's read a persistent
    // term that the node sets from it at boot.
    const std::string value = std::to_string(bytes);
    rabbitmqctl(broker, {"eval", "application:set_env(rabbit, max_message_size, " + value +
                                     "), persistent_term:put(max_message_size, " + value + ")."});
}

void stop_app(const BrokerEndpoint &broker) { rabbitmqctl(broker, {"-q", "stop_app"}); }

void start_app(const BrokerEndpoint &broker) {
    rabbitmqctl(broker, {"-q", "start_app"});
    rabbitmqctl(broker, {"-q", "await_startup", "-t", "60"});
}

void set_queue_policy(const BrokerEndpoint &broker, const std::string &name,
                      const std::string &pattern, const std::string &definition_json) {
    rabbitmqctl(broker, {"-q", "set_policy", "-p", broker.vhost, "--apply-to", "queues", name,
                         pattern, definition_json});
}

void clear_policy(const BrokerEndpoint &broker, const std::string &name) {
    rabbitmqctl(broker, {"-q", "clear_policy", "-p", broker.vhost, name});
}

}  // namespace queuey_it

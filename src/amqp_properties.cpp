#include "amqp_properties.hpp"

#include "exception_header.hpp"
#include "utf8.hpp"

namespace queuey {

AmqpProperties publish_properties(const Envelope &env) {
    AmqpProperties props;
    set_publish_properties(env, props);
    return props;
}

void set_publish_properties(const Envelope &env, AmqpProperties &props) {
    props.content_type = json_content_type;
    props.delivery_mode = persistent_delivery;
    props.message_id.assign(truncate_utf8(env.job_id, amqp_short_string_max));
    props.type.assign(truncate_utf8(env.job_type, amqp_short_string_max));
    props.priority = env.priority;
    // Room for the most headers any publish adds (dead_letter_properties): one
    // allocation per message, not one per growth.
    props.headers.clear();
    props.headers.reserve(max_headers);
    props.headers.push_back({"x-attempt", env.attempt});
    props.headers.push_back({"x-deferrals", env.deferrals});
    if (env.correlation_id) props.headers.push_back({"x-correlation-id", *env.correlation_id});
}

AmqpProperties lost_run_properties(const Envelope &env, std::uint32_t lost_runs) {
    AmqpProperties props = publish_properties(env);
    // None at 0 (a job given back at a shutdown): the copy looks as the job was published.
    if (lost_runs > 0) props.headers.push_back({std::string(lost_runs_header), lost_runs});
    return props;
}

AmqpProperties dead_letter_properties(const Envelope &env, std::string_view reason) {
    AmqpProperties props = publish_properties(env);
    props.headers.push_back({"x-death-reason", valid_utf8(reason)});  // as x-exception is
    props.headers.push_back({"x-original-queue", env.queue});
    props.headers.push_back({"x-attempts", env.attempt});
    return props;
}

AmqpProperties dead_letter_properties(const Envelope &env, const DeadLetterCause &cause) {
    AmqpProperties props = dead_letter_properties(env, cause.reason);
    if (!cause.exception.empty())
        props.headers.push_back({std::string(exception_header), cause.exception});
    return props;
}

}  // namespace queuey

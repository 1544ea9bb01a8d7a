// queuey's own publish frames against rabbitmq-c's: amqp_basic_publish writes into one end
// of a socket pair, and its bytes must equal those append_publish_frames keeps and
// OutgoingBytes::send writes for the same publish.
#include "broker/publish_frames.hpp"
#include "amqp_properties.hpp"
#include "broker/amqp_table.hpp"
#include "bytes_written.hpp"
#include "envelope_codec.hpp"
#include "exception_header.hpp"
#include "vectors.hpp"

#include <amqp_tcp_socket.h>
#include <gtest/gtest.h>

#include <string>

namespace queuey {
namespace {

// The frame_max of a new rabbitmq-c connection (only a login changes it).
std::size_t initial_frame_max() {
    amqp_connection_state_t state = amqp_new_connection();
    const int frame_max = amqp_get_frame_max(state);
    amqp_destroy_connection(state);
    return static_cast<std::size_t>(frame_max);
}

// What amqp_basic_publish sends for a mandatory publish to queue on channel.
std::string rabbitmq_c_bytes(amqp_channel_t channel, const std::string &queue,
                             const amqp_basic_properties_t &properties, std::string_view body) {
    return test::bytes_written([&](int fd) {
        amqp_connection_state_t state = amqp_new_connection();
        amqp_socket_t *socket = amqp_tcp_socket_new(state);
        amqp_tcp_socket_set_sockfd(socket, fd);
        EXPECT_EQ(amqp_basic_publish(state, channel, amqp_empty_bytes, amqp_bytes_of(queue), 1, 0,
                                     &properties, {body.size(), const_cast<char *>(body.data())}),
                  AMQP_STATUS_OK);
        amqp_destroy_connection(state);  // closes fd
    });
}

// What queuey sends for the same publish: its frames after bytes kept before them, sent by
// OutgoingBytes::send.
std::string queuey_bytes(amqp_channel_t channel, const std::string &queue,
                         const AmqpProperties &props, const BodyParts &body) {
    OutgoingBytes out;
    out.own() = "kept";  // frames are appended to what is there
    EXPECT_TRUE(append_publish_frames(out, channel, queue, true, props, body, initial_frame_max()));
    const std::string sent = test::sent_from(out);
    EXPECT_EQ(sent.substr(0, 4), "kept");
    return sent.substr(4);
}

TEST(PublishFrames, TheSeedEnvelopesFramesAreTheBytesAmqpBasicPublishSends) {
    const Envelope seed = decode_envelope(test::read_body("seed.json"));
    const AmqpProperties props = publish_properties(seed);
    const BasicProperties properties(props);
    const std::string body = encode_envelope(seed);
    const std::string expected = rabbitmq_c_bytes(1, seed.queue, properties.get(), body);
    ASSERT_GT(expected.size(), body.size());
    EXPECT_EQ(queuey_bytes(1, seed.queue, props, BodyParts(body)), expected);
}

// Every header queuey sends, each kind of value, on the properties of each publish path.
TEST(PublishFrames, EachPublishPathsPropertiesAreTheBytesAmqpBasicPublishSends) {
    Envelope job = decode_envelope(test::read_body("seed.json"));
    job.correlation_id = "a correlation id";
    job.priority = 7;
    job.attempt = 4294967295u;                               // the largest 'i' value
    const std::string trace(2 * exception_header_max, 'x');  // cut to the longest value
    const std::vector<AmqpProperties> cases = {
        publish_properties(job), lost_run_properties(job, 3),
        dead_letter_properties(job, "a reason"),
        dead_letter_properties(
            job, DeadLetterCause{"handler failed", exception_header_value("Error", trace)})};
    for (const AmqpProperties &props : cases) {
        const BasicProperties properties(props);
        const std::string body = encode_envelope(job);
        const std::string expected = rabbitmq_c_bytes(5, "the.queue", properties.get(), body);
        EXPECT_EQ(queuey_bytes(5, "the.queue", props, BodyParts(body)), expected)
            << props.headers.size() << " headers";
    }
}

TEST(PublishFrames, ABodyLongerThanAFrameIsCutAsRabbitmqCCutsIt) {
    Envelope job = decode_envelope(test::read_body("seed.json"));
    job.correlation_id = "a correlation id";
    const AmqpProperties props = dead_letter_properties(job, "handler failed: a reason");
    const BasicProperties properties(props);
    // Bodies that end short of a frame, on its last byte, and one past it.
    const std::size_t body_per_frame = initial_frame_max() - 8;
    ASSERT_GT(body_per_frame, 4000u);
    for (const std::size_t size :
         {std::size_t{1}, body_per_frame - 1, body_per_frame, body_per_frame + 1,
          3 * body_per_frame, 3 * body_per_frame + 17}) {
        const std::string body(size, 'b');
        const std::string expected = rabbitmq_c_bytes(7, "a.queue", properties.get(), body);
        EXPECT_GT(expected.size(), size);
        const std::string ours = queuey_bytes(7, "a.queue", props, BodyParts(body));
        EXPECT_EQ(ours.size(), expected.size()) << size << " bytes";
        EXPECT_TRUE(ours == expected) << size << " bytes";  // not printed: megabytes
    }
}

// A body in three parts (an envelope's head, the payload it refers to, the closing brace)
// goes as the same bytes as the body in one: parts that end inside a frame, on its
// boundary, and empty parts.
TEST(PublishFrames, ABodyInPartsIsFramedAsTheSameBodyInOne) {
    const Envelope seed = decode_envelope(test::read_body("seed.json"));
    const AmqpProperties props = publish_properties(seed);
    const BasicProperties properties(props);
    const std::size_t body_per_frame = initial_frame_max() - 8;
    std::string body(2 * body_per_frame + 5000, ' ');
    for (std::size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>('a' + i % 26);
    const std::string expected = rabbitmq_c_bytes(3, "a.queue", properties.get(), body);
    const std::string_view all = body;
    const std::size_t cuts[][2] = {{200, body.size() - 1},  // head, payload, brace
                                   {0, body.size()},        // the first and last empty
                                   {body_per_frame, 2 * body_per_frame},
                                   {body_per_frame - 1, body_per_frame + 1},
                                   {10, 10},  // an empty middle
                                   {3000, 2 * body_per_frame + 4000}};
    for (const auto &cut : cuts) {
        const BodyParts parts(all.substr(0, cut[0]), all.substr(cut[0], cut[1] - cut[0]),
                              all.substr(cut[1]));
        ASSERT_EQ(parts.size(), body.size());
        EXPECT_EQ(parts.joined(), body);
        const std::string ours = queuey_bytes(3, "a.queue", props, parts);
        EXPECT_TRUE(ours == expected) << "cut at " << cut[0] << " and " << cut[1];
    }
}

TEST(PublishFrames, WhatDoesNotFitIsRefusedAndLeavesTheBufferAsItWas) {
    const Envelope seed = decode_envelope(test::read_body("seed.json"));
    const AmqpProperties props = publish_properties(seed);
    OutgoingBytes out;
    out.own() = "kept";
    const std::string too_long(256, 'q');  // a short string holds 255 bytes
    EXPECT_FALSE(append_publish_frames(out, 1, too_long, true, props, BodyParts("{}"), 131072));
    AmqpProperties long_id = props;
    long_id.message_id = too_long;
    EXPECT_FALSE(append_publish_frames(out, 1, "q", true, long_id, BodyParts("{}"), 131072));
    AmqpProperties long_type = props;
    long_type.type = too_long;
    EXPECT_FALSE(append_publish_frames(out, 1, "q", true, long_type, BodyParts("{}"), 131072));
    AmqpProperties long_header_name = props;
    long_header_name.headers.push_back({too_long, 1u});
    EXPECT_FALSE(
        append_publish_frames(out, 1, "q", true, long_header_name, BodyParts("{}"), 131072));
    // No room for a body byte; method and header frames longer than a frame.
    EXPECT_FALSE(append_publish_frames(out, 1, "q", true, props, BodyParts("{}"), 8));
    EXPECT_FALSE(append_publish_frames(out, 1, "q", true, props, BodyParts("{}"), 64));
    EXPECT_EQ(out.own(), "kept");
    EXPECT_EQ(out.size(), 4u);
    // At 255 bytes each still fits.
    AmqpProperties longest = props;
    longest.message_id = std::string(255, 'm');
    longest.type = std::string(255, 't');
    const BasicProperties properties(longest);
    EXPECT_EQ(queuey_bytes(1, std::string(255, 'q'), longest, BodyParts("{}")),
              rabbitmq_c_bytes(1, std::string(255, 'q'), properties.get(), "{}"));
}

}  // namespace
}  // namespace queuey

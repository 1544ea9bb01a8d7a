// Deliveries assembled from their frames: a basic.deliver, its content header, its body
// frames, with other channels' frames between them.
#include "broker/arriving_contents.hpp"
#include "broker/amqp_failure.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace queuey {
namespace {

amqp_bytes_t bytes_of(const std::string &text) {
    return {text.size(), const_cast<char *>(text.data())};
}

IncomingDelivery deliver(amqp_channel_t channel, std::uint64_t tag) {
    IncomingDelivery delivery;
    delivery.channel = channel;
    delivery.delivery_tag = tag;
    return delivery;
}

// A content header as rabbitmq-c decodes it: the frame points at the properties.
struct Header {
    std::string message_id = "0d8f9c22-5e3b-4f1a-9c77-2b1a6f0e3d44";
    std::vector<amqp_table_entry_t> headers;
    amqp_basic_properties_t properties{};
    amqp_frame_t frame{};

    Header(amqp_channel_t channel, std::uint64_t body_size) {
        properties._flags = AMQP_BASIC_MESSAGE_ID_FLAG;
        properties.message_id = bytes_of(message_id);
        frame.frame_type = AMQP_FRAME_HEADER;
        frame.channel = channel;
        frame.payload.properties.body_size = body_size;
        frame.payload.properties.decoded = &properties;
    }
    void add_count(const char *name, std::int32_t value) {
        amqp_field_value_t field{};
        field.kind = AMQP_FIELD_KIND_I32;
        field.value.i32 = value;
        add(name, field);
    }
    // text must outlive the frame's reading.
    void add_text(const char *name, const std::string &text,
                  std::uint8_t kind = AMQP_FIELD_KIND_UTF8) {
        amqp_field_value_t field{};
        field.kind = kind;
        field.value.bytes = bytes_of(text);
        add(name, field);
    }

private:
    void add(const char *name, const amqp_field_value_t &value) {
        headers.push_back({amqp_cstring_bytes(name), value});
        properties._flags |= AMQP_BASIC_HEADERS_FLAG;
        properties.headers = {static_cast<int>(headers.size()), headers.data()};
    }
};

amqp_frame_t body(amqp_channel_t channel, const std::string &fragment) {
    amqp_frame_t frame{};
    frame.frame_type = AMQP_FRAME_BODY;
    frame.channel = channel;
    frame.payload.body_fragment = bytes_of(fragment);
    return frame;
}

TEST(ArrivingContents, ADeliveryIsHandedOverOnceItsLastBodyFrameIsIn) {
    ArrivingContents arriving;
    arriving.delivered(deliver(1, 7));
    Header header(1, 11);
    header.add_count("x-lost-runs", 2);
    header.add_count("x-delivery-count", 3);
    EXPECT_FALSE(arriving.content(header.frame));
    header.message_id.assign(header.message_id.size(), '#');  // the frame's memory is reused
    const std::string first = "hello ", second = "world";
    EXPECT_FALSE(arriving.content(body(1, first)));
    const auto delivery = arriving.content(body(1, second));
    ASSERT_TRUE(delivery);
    EXPECT_EQ(delivery->delivery_tag, 7u);
    EXPECT_EQ(delivery->channel, 1u);
    EXPECT_EQ(delivery->message_id, "0d8f9c22-5e3b-4f1a-9c77-2b1a6f0e3d44");
    EXPECT_EQ(delivery->lost_runs, 2u);
    EXPECT_EQ(delivery->returns, 3u);
    EXPECT_EQ(delivery->body.view(), "hello world");
}

TEST(ArrivingContents, AnEmptyBodyIsCompleteAtItsHeader) {
    ArrivingContents arriving;
    arriving.delivered(deliver(2, 1));
    Header header(2, 0);
    const auto delivery = arriving.content(header.frame);
    ASSERT_TRUE(delivery);
    EXPECT_EQ(delivery->body.size(), 0u);
    EXPECT_EQ(delivery->lost_runs, 0u);  // no headers: no counts
}

TEST(ArrivingContents, AFiresTwoScheduleHeadersAreCopiedOut) {
    ArrivingContents arriving;
    arriving.delivered(deliver(1, 1));
    Header header(1, 0);
    std::string schedule = "nightly", time = "2026-12-07T02:00:00Z";
    header.add_text("x-queuey-schedule", schedule);
    header.add_text("x-queuey-fire-time", time);
    const auto delivery = arriving.content(header.frame);
    schedule.assign(schedule.size(), '#');  // the frame's memory is reused
    time.assign(time.size(), '#');
    ASSERT_TRUE(delivery);
    ASSERT_TRUE(delivery->fire);
    EXPECT_EQ(*delivery->fire, (queuey::ScheduledFire{"nightly", "2026-12-07T02:00:00Z"}));
}

TEST(ArrivingContents, OneScheduleHeaderOrOneOfAnotherTypeMakesNoFire) {
    const std::string schedule = "nightly", time = "2026-12-07T02:00:00Z";
    const auto fire_of = [](const std::function<void(Header &)> &add) {
        ArrivingContents arriving;
        arriving.delivered(deliver(1, 1));
        Header header(1, 0);
        add(header);
        return arriving.content(header.frame).value().fire;
    };
    EXPECT_FALSE(fire_of([&](Header &h) { h.add_text("x-queuey-schedule", schedule); }));
    EXPECT_FALSE(fire_of([&](Header &h) { h.add_text("x-queuey-fire-time", time); }));
    EXPECT_FALSE(fire_of([&](Header &h) {
        h.add_text("x-queuey-schedule", schedule);
        h.add_text("x-queuey-fire-time", time, AMQP_FIELD_KIND_BYTES);
    }));
    EXPECT_FALSE(fire_of([&](Header &h) {
        h.add_text("x-queuey-schedule", schedule);
        h.add_count("x-queuey-fire-time", 7);
    }));
}

TEST(ArrivingContents, ChannelsInterleaveEachWithItsOwnContent) {
    ArrivingContents arriving;
    arriving.delivered(deliver(1, 10));
    arriving.delivered(deliver(2, 20));
    Header one(1, 3), two(2, 3);
    EXPECT_FALSE(arriving.content(two.frame));
    EXPECT_FALSE(arriving.content(one.frame));
    const std::string a = "aaa", b = "bbb";
    const auto second = arriving.content(body(2, b));
    ASSERT_TRUE(second);
    EXPECT_EQ(second->delivery_tag, 20u);
    EXPECT_EQ(second->body.view(), "bbb");
    const auto first = arriving.content(body(1, a));
    ASSERT_TRUE(first);
    EXPECT_EQ(first->delivery_tag, 10u);
    EXPECT_EQ(first->body.view(), "aaa");
}

TEST(ArrivingContents, FramesOfAChannelWithNothingArrivingAreIgnored) {
    ArrivingContents arriving;
    Header header(3, 4);
    EXPECT_FALSE(arriving.content(header.frame));
    const std::string text = "text";
    EXPECT_FALSE(arriving.content(body(3, text)));
}

TEST(ArrivingContents, AForgottenChannelsContentNeverComes) {
    ArrivingContents arriving;
    arriving.delivered(deliver(1, 5));
    Header header(1, 4);
    EXPECT_FALSE(arriving.content(header.frame));
    arriving.forget(1);
    const std::string text = "text";
    EXPECT_FALSE(arriving.content(body(1, text)));
    arriving.delivered(deliver(1, 6));  // the channel reopened: a new delivery is welcome
    arriving.clear();
    arriving.delivered(deliver(1, 1));  // and after a new connection
}

TEST(ArrivingContents, FramesThatDoNotAddUpBreakTheConnection) {
    const std::string too_long = "12345";
    {
        ArrivingContents arriving;
        arriving.delivered(deliver(1, 1));
        Header header(1, 4);
        arriving.content(header.frame);
        EXPECT_THROW(arriving.content(body(1, too_long)), ConnectionLost);
    }
    {
        ArrivingContents arriving;
        arriving.delivered(deliver(1, 1));
        EXPECT_THROW(arriving.content(body(1, too_long)), ConnectionLost);  // before a header
    }
    {
        ArrivingContents arriving;
        arriving.delivered(deliver(1, 1));
        Header header(1, 4);
        arriving.content(header.frame);
        try {
            arriving.content(header.frame);
            ADD_FAILURE() << "a second header was taken";
        } catch (const ConnectionLost &lost) {
            EXPECT_EQ(lost.status(), QY_ERR_BROKER);
            EXPECT_STREQ(lost.what(), "reading a message on channel 1: a second content header");
        }
    }
    {
        ArrivingContents arriving;
        arriving.delivered(deliver(1, 1));
        EXPECT_THROW(arriving.delivered(deliver(1, 2)), ConnectionLost);
    }
}

TEST(ArrivingContents, AReturnedMessageKeepsItsIdAndSkipsItsBody) {
    // A basic.return on the publishing channel (2), a delivery on channel 3 between its frames.
    ArrivingContents arriving;
    arriving.returned(2);
    Header returned_header(2, 9);
    EXPECT_FALSE(arriving.content(returned_header.frame));
    arriving.delivered(deliver(3, 5));
    Header delivered_header(3, 2);
    delivered_header.message_id = "delivered";
    delivered_header.properties.message_id = bytes_of(delivered_header.message_id);
    EXPECT_FALSE(arriving.content(delivered_header.frame));
    const std::string part = "body ", rest = "left", two = "ok";
    EXPECT_FALSE(arriving.content(body(2, part)));
    const auto delivery = arriving.content(body(3, two));
    ASSERT_TRUE(delivery);
    EXPECT_EQ(delivery->message_id, "delivered");
    EXPECT_EQ(delivery->body.view(), "ok");
    const auto returned = arriving.content(body(2, rest));
    ASSERT_TRUE(returned);
    EXPECT_EQ(returned->channel, 2u);
    EXPECT_EQ(returned->message_id, "0d8f9c22-5e3b-4f1a-9c77-2b1a6f0e3d44");
    EXPECT_EQ(returned->body.size(), 0u);  // counted, never copied
    // Past the size its header announced, a returned body breaks the protocol too.
    arriving.returned(2);
    Header short_header(2, 3);
    arriving.content(short_header.frame);
    EXPECT_THROW(arriving.content(body(2, rest)), ConnectionLost);
}

}  // namespace
}  // namespace queuey

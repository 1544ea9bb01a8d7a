// The jobs both sides publish: real envelopes made with the C API and, for the raw side,
// the very body and AMQP properties queuey sends with each (qy_envelope_to_bytes,
// qy_envelope_properties).
#pragma once

#include "raw_amqp.hpp"

#include <queuey/queuey.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

// The JSON payload of every job: a JSON string of `bytes` bytes (at least 2), or with 0 the
// default, a small object that makes a body of about 215 bytes with the envelope's fields.
std::string payload_of(std::size_t bytes);

struct Job {
    Job(const std::string &queue, const std::string &payload);  // a new envelope

    std::unique_ptr<qy_envelope, void (*)(qy_envelope *)> envelope{nullptr, qy_envelope_free};
    RawMessage message;
};

class JobSet {
public:
    // count jobs, each with the payload of payload_of(payload_bytes).
    JobSet(const std::string &queue, std::size_t count, std::size_t payload_bytes);
    const Job &operator[](std::size_t index) const { return jobs_[index]; }
    std::size_t size() const { return jobs_.size(); }

private:
    std::deque<Job> jobs_;  // a deque never moves its elements (they hold pointers)
};

// Publishes jobs [0, count) to queue the raw way, with up to `batch` unconfirmed at a
// time (connection: in confirm mode).
void publish_pipelined(RawConnection &connection, const std::string &queue, const JobSet &jobs,
                       std::size_t count, std::size_t batch);

// Publishes `count` new jobs (payload_of(payload_bytes)) to queue like publish_pipelined,
// making the envelopes of each batch just before it: a million jobs at once would take
// gigabytes.
void publish_new_jobs(RawConnection &connection, const std::string &queue, std::size_t count,
                      std::size_t batch, std::size_t payload_bytes);

// Throws std::runtime_error with the message of err (which it frees) unless status is
// QY_OK. err by reference: read only here, after the call that fills it (the order in
// which arguments are evaluated is unspecified).
void check_qy(qy_status status, qy_error *const &err, const char *doing);

template <typename T>
using Owned = std::unique_ptr<T, void (*)(T *)>;

// A client on url (a list URL,URL,...: every node, tried in turn) with queue declared
// (prefetch, delay granularity, shape); setup, untimed.
Owned<qy_client> connect_declared(const std::string &url, const std::string &queue,
                                  std::uint16_t prefetch, std::uint32_t granularity_ms,
                                  const QueueShape &shape);

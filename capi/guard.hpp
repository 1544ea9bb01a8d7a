// The one place where C++ exceptions become a qy_status plus a qy_error. Every fallible
// C function runs its body through guarded(), so nothing ever unwinds into C.
#pragma once

#include "handles.hpp"

#include "../src/error.hpp"
#include "../src/topology.hpp"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>

namespace queuey::capi {

// Throws an INVALID_ARGUMENT error naming the parameter when it is NULL.
template <typename T>
T &require(T *pointer, const char *parameter) {
    if (pointer == nullptr)
        throw Error(QY_ERR_INVALID_ARGUMENT, "", std::string(parameter) + " must not be NULL");
    return *pointer;
}

// The text of a NUL-terminated string parameter, which must not be NULL.
inline std::string_view require_text(const char *text, const char *parameter) {
    return &require(text, parameter);
}

// A delay given in milliseconds, refused here, naming the parameter, when no hold can
// express it (the topology's check_delay_ms).
inline std::chrono::nanoseconds delay_of(uint64_t delay_ms, const char *parameter) {
    check_delay_ms(delay_ms, parameter);
    return std::chrono::milliseconds(static_cast<int64_t>(delay_ms));
}

// The user_data of a callback, handed to destroy (when given) once nobody uses it. Call
// it first inside guarded(): whatever fails after it, out of memory here included (the
// shared_ptr then calls destroy itself), destroys user_data once and becomes a status.
inline std::shared_ptr<void> own_user_data(void *user_data, void (*destroy)(void *)) {
    return std::shared_ptr<void>(user_data, [destroy](void *data) {
        if (destroy != nullptr && data != nullptr) destroy(data);
    });
}

// A NUL-terminated copy of text for a `char *` result, freed with qy_string_free().
inline char *string_copy(std::string_view text) {
    char *copy = new char[text.size() + 1];
    std::memcpy(copy, text.data(), text.size());
    copy[text.size()] = '\0';
    return copy;
}

qy_status report(qy_error **err, qy_status status, const char *message, const std::string &field) noexcept;

// Runs body; on an exception returns its status and, when err is not NULL, an error.
template <typename Body>
qy_status guarded(qy_error **err, Body &&body) noexcept {
    if (err != nullptr) *err = nullptr;
    try {
        body();
        return QY_OK;
    } catch (const Error &e) {
        return report(err, e.status(), e.what(), e.field());
    } catch (const std::bad_alloc &) {
        return report(err, QY_ERR_NO_MEMORY, "out of memory", "");
    } catch (const std::exception &e) {
        return report(err, QY_ERR_INTERNAL, (std::string("internal error: ") + e.what()).c_str(), "");
    } catch (...) {
        return report(err, QY_ERR_INTERNAL, "internal error: unknown exception", "");
    }
}

// Stores a new handle in *out (set to NULL first, so a failure leaves NULL there).
template <typename Handle, typename Make>
qy_status make_handle(Handle **out, qy_error **err, Make &&make) noexcept {
    if (out != nullptr) *out = nullptr;
    return guarded(err, [&] {
        Handle *&slot = require(out, "out");  // checked before any work is done
        slot = new Handle{make()};
    });
}

}  // namespace queuey::capi

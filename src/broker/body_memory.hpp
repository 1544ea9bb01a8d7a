// Big message bodies' memory, kept when a body is freed for the next big body to arrive.
// A delivery's body is written by the I/O thread and freed by a worker thread; glibc gives
// such memory back to the kernel by chance of the order of frees (a heap trim), and then
// every page of the next body faults again: measured on 1 MiB drains, from 22 to 137 page
// faults per job, about 2.4 us each, most of what varied between runs.
#pragma once

#include "../mutex.hpp"

#include <cstddef>
#include <vector>

namespace queuey {

class BodyMemory {
public:
    // Bodies smaller than this are left to malloc, which reuses them without faults.
    static constexpr std::size_t smallest_kept = 64 * 1024;
    // At most this many bytes kept at once: bodies are freed one at a time, and each is
    // soon taken again by the next big body, so a few are enough.
    static constexpr std::size_t kept_most = 16 * 1024 * 1024;

    BodyMemory() = default;
    BodyMemory(const BodyMemory &) = delete;
    BodyMemory &operator=(const BodyMemory &) = delete;
    ~BodyMemory();

    // Memory for a body of size bytes (size > 0), or nullptr when malloc finds none.
    // capacity is what give() takes back: size, rounded up to whole pages for a big
    // body.
    char *take(std::size_t size, std::size_t &capacity);
    // Memory from take(): kept for a later take() while big and within kept_most, else
    // freed.
    void give(char *bytes, std::size_t capacity);
    // Frees all the memory kept (qy_release_cached_memory); bodies given back later are
    // kept again.
    void release();
    std::size_t kept_bytes() const;

private:
    struct Kept {
        char *bytes;
        std::size_t capacity;
    };
    mutable Mutex mutex_;
    std::vector<Kept> kept_ QY_GUARDED_BY(mutex_);
    std::size_t kept_bytes_ QY_GUARDED_BY(mutex_) = 0;
};

// The process's one, which message bodies use; never destroyed, as a worker thread may
// free a body while the process exits.
BodyMemory &body_memory();

// body_memory()'s kept memory freed, then, with glibc, malloc's free memory given back to
// the kernel (malloc_trim): qy_release_cached_memory.
void release_cached_memory();

}  // namespace queuey

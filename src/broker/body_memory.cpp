#include "body_memory.hpp"

#include <cstdlib>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace queuey {

namespace {

// A big body's memory in whole pages: a body a little bigger than the one before it may
// then still fit in that one's memory.
std::size_t capacity_for(std::size_t size) {
    if (size < BodyMemory::smallest_kept) return size;
    constexpr std::size_t page = 4096;
    return (size + page - 1) / page * page;
}

}  // namespace

BodyMemory::~BodyMemory() {
    for (const Kept &kept : kept_) std::free(kept.bytes);
}

char *BodyMemory::take(std::size_t size, std::size_t &capacity) {
    capacity = capacity_for(size);
    if (capacity >= smallest_kept) {
        const MutexLock lock(mutex_);
        // The smallest kept memory that fits, but none more than twice what is asked: a
        // small body would hold a big one's memory from the next big body.
        Kept *best = nullptr;
        for (Kept &kept : kept_)
            if (kept.capacity >= capacity && kept.capacity / 2 <= capacity &&
                (best == nullptr || kept.capacity < best->capacity))
                best = &kept;
        if (best != nullptr) {
            char *bytes = best->bytes;
            capacity = best->capacity;
            kept_bytes_ -= capacity;
            *best = kept_.back();
            kept_.pop_back();
            return bytes;
        }
    }
    return static_cast<char *>(std::malloc(capacity));
}

void BodyMemory::give(char *bytes, std::size_t capacity) {
    if (bytes == nullptr) return;
    if (capacity >= smallest_kept) {
        const MutexLock lock(mutex_);
        if (kept_bytes_ + capacity <= kept_most) {
            kept_.push_back({bytes, capacity});
            kept_bytes_ += capacity;
            return;
        }
    }
    std::free(bytes);
}

void BodyMemory::release() {
    std::vector<Kept> kept;
    {
        const MutexLock lock(mutex_);
        kept.swap(kept_);
        kept_bytes_ = 0;
    }
    for (const Kept &one : kept) std::free(one.bytes);  // outside the lock
}

std::size_t BodyMemory::kept_bytes() const {
    const MutexLock lock(mutex_);
    return kept_bytes_;
}

BodyMemory &body_memory() {
    static BodyMemory *const memory = new BodyMemory;
    return *memory;
}

void release_cached_memory() {
    body_memory().release();
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

}  // namespace queuey

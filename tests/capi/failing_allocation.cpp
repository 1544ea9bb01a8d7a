#include "failing_allocation.hpp"

#include <cstdlib>
#include <new>

namespace {

thread_local int allocations_until_failure = 0;  // 0: none fails

}  // namespace

void qyt::fail_allocation(int n) { allocations_until_failure = n; }

void *operator new(std::size_t size) {
    if (allocations_until_failure > 0 && --allocations_until_failure == 0) throw std::bad_alloc();
    if (void *memory = std::malloc(size == 0 ? 1 : size)) return memory;
    throw std::bad_alloc();
}

void operator delete(void *memory) noexcept { std::free(memory); }

void operator delete(void *memory, std::size_t) noexcept { std::free(memory); }

// Must not compile: a C++ handler that returns nothing (issue 41). The test
// (tests/unit/meson.build, cpp_void_handler) wants queuey.hpp's static_assert to say so.
#include <queuey/queuey.hpp>

void register_a_void_handler(queuey::Worker &worker) {
    worker.handle("t", [](queuey::Job &) {});
}

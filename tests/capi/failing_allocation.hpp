// Makes one allocation fail on purpose. This test binary replaces the global operator
// new with one that fail_allocation() can arm; the executable's definition interposes
// the C++ runtime's, so it also serves every `new` inside libqueuey.
#pragma once

namespace qyt {

// The n-th allocation of this thread from now on (1: the next one) throws
// std::bad_alloc; later ones succeed again.
void fail_allocation(int n);

}  // namespace qyt

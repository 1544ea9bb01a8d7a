// A field guarded by a queuey::Mutex, written without it: clang's thread-safety analysis
// must refuse it (-Wthread-safety, an error in our clang builds). With -DLOCKED the same
// write holds the mutex and compiles: the refusal is for the missing lock, nothing else.
#include "mutex.hpp"

namespace {

class Counter {
public:
    void bump() {
#ifdef LOCKED
        queuey::MutexLock lock(mutex_);
#endif
        ++count_;
    }

private:
    queuey::Mutex mutex_;
    int count_ QY_GUARDED_BY(mutex_) = 0;
};

}  // namespace

int main() {
    Counter counter;
    counter.bump();
}

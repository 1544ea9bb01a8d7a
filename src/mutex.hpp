// A mutex that clang's thread-safety analysis knows (-Wthread-safety, an error in the
// clang builds): fields it guards say QY_GUARDED_BY(mutex_), functions called with it held
// say QY_REQUIRES(mutex_), and the compiler checks every access. libstdc++'s std::mutex
// carries no capability attributes, hence this wrapper; it costs nothing over std::mutex.
#pragma once

#include <mutex>

#if defined(__clang__)
#define QY_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define QY_THREAD_ANNOTATION(x)
#endif

#define QY_CAPABILITY(name) QY_THREAD_ANNOTATION(capability(name))
#define QY_SCOPED_CAPABILITY QY_THREAD_ANNOTATION(scoped_lockable)
#define QY_GUARDED_BY(x) QY_THREAD_ANNOTATION(guarded_by(x))
#define QY_PT_GUARDED_BY(x) QY_THREAD_ANNOTATION(pt_guarded_by(x))
#define QY_REQUIRES(...) QY_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define QY_EXCLUDES(...) QY_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define QY_ACQUIRE(...) QY_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define QY_RELEASE(...) QY_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define QY_TRY_ACQUIRE(...) QY_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define QY_ASSERT_CAPABILITY(x) QY_THREAD_ANNOTATION(assert_capability(x))
#define QY_RETURN_CAPABILITY(x) QY_THREAD_ANNOTATION(lock_returned(x))
// Only where another order than the mutex makes the access safe; say which, beside it.
#define QY_NO_THREAD_SAFETY_ANALYSIS QY_THREAD_ANNOTATION(no_thread_safety_analysis)

namespace queuey {

class QY_CAPABILITY("mutex") Mutex {
public:
    Mutex() = default;
    Mutex(const Mutex &) = delete;
    Mutex &operator=(const Mutex &) = delete;

    void lock() QY_ACQUIRE() { mutex_.lock(); }
    void unlock() QY_RELEASE() { mutex_.unlock(); }

private:
    friend class MutexLock;
    std::mutex mutex_;
};

// Holds a Mutex for its scope (std::unique_lock underneath, so that a condition variable
// can wait on it: the mutex is held again whenever wait returns, as the analysis assumes).
class QY_SCOPED_CAPABILITY MutexLock {
public:
    explicit MutexLock(Mutex &mutex) QY_ACQUIRE(mutex) : lock_(mutex.mutex_) {}
    ~MutexLock() QY_RELEASE() {}
    MutexLock(const MutexLock &) = delete;
    MutexLock &operator=(const MutexLock &) = delete;

    // Lets go of the mutex before the scope ends, and takes it again.
    void unlock() QY_RELEASE() { lock_.unlock(); }
    void lock() QY_ACQUIRE() { lock_.lock(); }

    // For std::condition_variable's waits only.
    std::unique_lock<std::mutex> &for_wait() { return lock_; }

private:
    std::unique_lock<std::mutex> lock_;
};

}  // namespace queuey

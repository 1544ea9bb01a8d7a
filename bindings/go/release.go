package queuey

// #include <queuey/queuey.h>
import "C"

// ReleaseThreadMemory frees what the calling OS thread keeps for its next publish on
// RabbitMQ (qy_release_thread_memory): its last single publish's message (at most a
// 64 KiB body) and its last batch's last piece (at most 2.5 MiB; 1.9 MiB after a batch of
// a thousand 700-byte jobs). A thread that never published keeps nothing. The memory goes
// back to malloc, not to the system: see ReleaseCachedMemory.
//
// Go runs a goroutine's calls on any of the program's OS threads (and a call with a
// context that can end on another goroutine), so this reaches only what the thread it
// runs on kept: call it from a goroutine locked to its thread (runtime.LockOSThread) that
// published with a context without Done, or use ReleaseCachedMemory.
func ReleaseThreadMemory() {
	C.qy_release_thread_memory()
}

// ReleaseCachedMemory frees what every thread keeps for its next publish and what the
// process keeps (up to 16 MiB of freed delivery bodies), then has glibc's malloc give its
// free memory back to the system (qy_release_cached_memory). For when the program goes
// idle, not per job: 64 threads that each published a batch of a thousand 700-byte jobs
// held 182 to 198 MiB more resident, 10 to 19 MiB more after this call (docs/broker.md,
// "Memory kept per thread").
func ReleaseCachedMemory() {
	C.qy_release_cached_memory()
}

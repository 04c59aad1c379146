package replay

import (
	"syscall"
	"time"
)

// sleepThread blocks the calling thread for d with nanosleep: the kernel
// wakes it within its timer slack (~50 µs), where a Go timer would wait
// for the runtime's millisecond-granular poller. d is at most a few ms.
func sleepThread(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil) // EINTR: wake early, the caller spins
}

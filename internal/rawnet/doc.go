// Package rawnet wraps TCP connections so that their reads and writes are
// non-blocking system calls made without the Go runtime's syscall
// bookkeeping, and waits for readiness through the runtime's network
// poller exactly as the net package does.
//
// Why: a read or write through net.Conn enters the runtime's syscall
// state (entersyscall), and when the whole process was idle the runtime's
// monitor thread (sysmon) is parked, so that first system call wakes it.
// sysmon then polls every 20 µs until the process is idle again and parks.
// A proxy at moderate load goes idle between almost every request, so each
// request paid a futex wake-up and several sysmon sleeps: on a core shared
// with the process's own threads, two to three context switches per
// request out of 3.3–5 (perf sched_switch, dohyo serve over HBase at 2,500
// reads/s). Socket reads and writes on non-blocking descriptors never
// block, so they do not need sysmon to hand their P to another thread.
//
// Deadlines, closing and readiness waits are the net package's own (through
// syscall.RawConn); errors are *net.OpError as from net.TCPConn. Everything
// else (addresses, options, CloseWrite, ReadFrom/WriteTo) is the embedded
// *net.TCPConn's.
package rawnet

package rawnet

import (
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// Conn is a *net.TCPConn whose Read and Write are raw system calls.
// Like net.TCPConn, one Read and one Write may run at the same time, from
// different goroutines; concurrent Reads (or Writes) take turns.
type Conn struct {
	*net.TCPConn
	rc syscall.RawConn
	r  op
	w  op

	closed sync.Once
}

// Wrap returns c with raw reads and writes when it is a *net.TCPConn, and c
// itself otherwise (or when its descriptor cannot be reached).
func Wrap(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	rn := &Conn{TCPConn: tc, rc: rc}
	rn.r.fn = rn.r.read
	rn.w.fn = rn.w.write
	sysmonKeeper.add()
	return rn
}

// Close closes the connection.
func (c *Conn) Close() error {
	c.closed.Do(sysmonKeeper.done)
	return c.TCPConn.Close()
}

// Listener wraps every connection its Accept returns.
type Listener struct{ net.Listener }

// Accept returns the next connection, wrapped.
func (l Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return Wrap(c), nil
}

// op is the state of one Read or one Write; fn is its read or write
// method value, bound once so that a call does not allocate a closure. mu
// makes concurrent Reads (or Writes) take turns, as net.Conn allows them.
type op struct {
	mu    sync.Mutex
	buf   []byte
	n     int
	errno syscall.Errno
	fn    func(fd uintptr) bool
}

// read makes one read(2); false asks the poller to wait for readability.
func (o *op) read(fd uintptr) bool {
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&o.buf[0])), uintptr(len(o.buf)))
	switch e {
	case 0:
		o.n = int(n)
	case syscall.EAGAIN:
		return false
	case syscall.EINTR:
		return o.read(fd)
	default:
		o.errno = e
	}
	return true
}

// write writes as much of buf as the socket takes; false waits for
// writability with the rest still to go.
func (o *op) write(fd uintptr) bool {
	for o.n < len(o.buf) {
		rest := o.buf[o.n:]
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&rest[0])), uintptr(len(rest)))
		switch e {
		case 0:
			o.n += int(n)
		case syscall.EAGAIN:
			return false
		case syscall.EINTR:
		default:
			o.errno = e
			return true
		}
	}
	return true
}

// run does o over p through the raw connection (its Write when write is
// set, else its Read) and shapes the outcome as net.TCPConn would: bytes
// done, and nil or an *net.OpError naming name.
func (c *Conn) run(o *op, p []byte, write bool, name string) (int, error) {
	o.mu.Lock()
	o.buf, o.n, o.errno = p, 0, 0
	var err error
	if write {
		err = c.rc.Write(o.fn)
	} else {
		err = c.rc.Read(o.fn)
	}
	n, errno := o.n, o.errno
	o.buf = nil
	o.mu.Unlock()
	sysmonKeeper.used()
	if err == nil && errno != 0 {
		err = os.NewSyscallError(name, errno)
	}
	if err != nil {
		return n, c.opError(name, err)
	}
	return n, nil
}

// Read reads like net.TCPConn.Read.
func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, err := c.run(&c.r, p, false, "read")
	if n == 0 && err == nil {
		return 0, io.EOF
	}
	return n, err
}

// Write writes all of p like net.TCPConn.Write.
func (c *Conn) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return c.run(&c.w, p, true, "write")
}

// opError shapes err as net.TCPConn's methods do. The raw connection's
// own errors (deadline exceeded, use of a closed connection) arrive
// wrapped in an *net.OpError of op "raw-read"/"raw-write": their cause is
// kept, so errors.Is(err, os.ErrDeadlineExceeded) and net.ErrClosed hold.
func (c *Conn) opError(op string, err error) error {
	if oe, ok := err.(*net.OpError); ok {
		err = oe.Err
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

//go:build linux

package pcap

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// LiveConfig configures a live capture.
type LiveConfig struct {
	Interface string   // e.g. "lo", "eth0"
	Ports     []uint16 // TCP ports to keep (a kernel filter); empty: all TCP
	// BufferBytes is the socket's receive buffer: packets arriving while
	// it is full are dropped by the kernel (counted in LiveStats), never
	// delayed. Default 32 MiB.
	BufferBytes int
}

// LiveStats are the kernel's counters of a live capture.
type LiveStats struct {
	Received uint64 // packets that passed the filter
	Dropped  uint64 // packets lost because the buffer was full
}

// Live captures packets from a Linux AF_PACKET socket in cooked mode
// (packets from their IP header on, link type LinkRaw). The kernel hands
// the socket a copy of each packet: traffic is never slowed, and when
// the reader falls behind the kernel drops copies and counts them.
type Live struct {
	fd       int
	loopback bool
	buf, oob []byte
	stats    LiveStats
	drained  int
}

var _ Source = (*Live)(nil)

// ErrNotPermitted is OpenLive's error without CAP_NET_RAW.
var ErrNotPermitted = errors.New("pcap: live capture needs root or CAP_NET_RAW")

// pollInterval is how often a blocked read looks at its context.
const pollInterval = 200 * time.Millisecond

// OpenLive opens a live capture on an interface.
func OpenLive(cfg LiveConfig) (*Live, error) {
	ifi, err := net.InterfaceByName(cfg.Interface)
	if err != nil {
		return nil, fmt.Errorf("pcap: %w", err)
	}
	proto := int(htons(unix.ETH_P_ALL))
	// Protocol 0: the socket receives nothing until bind names the
	// protocol, which setup does after the port filter is attached, so no
	// packet of another port is queued before the filter (packet(7)).
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
			return nil, ErrNotPermitted
		}
		return nil, fmt.Errorf("pcap: AF_PACKET socket: %w", err)
	}
	l := &Live{fd: fd, loopback: ifi.Flags&net.FlagLoopback != 0, buf: make([]byte, MaxPacket), oob: make([]byte, 128)}
	if err := l.setup(cfg, ifi.Index, proto); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return l, nil
}

func (l *Live) setup(cfg LiveConfig, ifindex, proto int) error {
	if len(cfg.Ports) > 0 {
		prog := PortFilter(cfg.Ports, MaxPacket)
		f := make([]unix.SockFilter, len(prog))
		for i, in := range prog {
			f[i] = unix.SockFilter{Code: in.Code, Jt: in.Jt, Jf: in.Jf, K: in.K}
		}
		fp := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
		if err := unix.SetsockoptSockFprog(l.fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &fp); err != nil {
			return fmt.Errorf("pcap: attach filter: %w", err)
		}
	}
	size := cfg.BufferBytes
	if size <= 0 {
		size = 32 << 20
	}
	if err := unix.SetsockoptInt(l.fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, size); err != nil {
		_ = unix.SetsockoptInt(l.fd, unix.SOL_SOCKET, unix.SO_RCVBUF, size)
	}
	if err := unix.SetsockoptInt(l.fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
		return fmt.Errorf("pcap: timestamps: %w", err)
	}
	tv := unix.NsecToTimeval(pollInterval.Nanoseconds())
	if err := unix.SetsockoptTimeval(l.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return fmt.Errorf("pcap: receive timeout: %w", err)
	}
	if err := unix.Bind(l.fd, &unix.SockaddrLinklayer{Protocol: uint16(proto), Ifindex: ifindex}); err != nil {
		return fmt.Errorf("pcap: bind to interface %s: %w", cfg.Interface, err)
	}
	return nil
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// Next returns the next packet, waiting for one; it never returns
// io.EOF. Use NextContext to stop waiting.
func (l *Live) Next() (Packet, error) { return l.NextContext(context.Background()) }

// maxDrain bounds the packets read after the context ended.
const maxDrain = 1 << 16

// NextContext returns the next packet, or ctx's error once it ends.
// After ctx ends it still returns the packets the kernel queued (up to
// maxDrain, without waiting), so that stopping a capture keeps what was
// already copied for it.
func (l *Live) NextContext(ctx context.Context) (Packet, error) {
	for {
		var recvFlags int
		if err := ctx.Err(); err != nil {
			if l.drained >= maxDrain {
				return Packet{}, err
			}
			l.drained++
			recvFlags = unix.MSG_DONTWAIT
		}
		n, oobn, flags, from, err := unix.Recvmsg(l.fd, l.buf, l.oob, recvFlags)
		if err != nil {
			if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
				if err := ctx.Err(); err != nil {
					return Packet{}, err
				}
				continue
			}
			return Packet{}, fmt.Errorf("pcap: read: %w", err)
		}
		if ll, ok := from.(*unix.SockaddrLinklayer); ok && l.loopback && ll.Pkttype == unix.PACKET_OUTGOING {
			continue // on loopback every packet is seen leaving and arriving: keep one
		}
		orig := n
		if flags&unix.MSG_TRUNC != 0 {
			orig = len(l.buf) + 1
			n = len(l.buf)
		}
		return Packet{Time: l.timestamp(oobn), Link: LinkRaw, Data: l.buf[:n], OrigLen: orig}, nil
	}
}

// timestamp is the kernel's receive time of the last packet.
func (l *Live) timestamp(oobn int) time.Time {
	msgs, err := unix.ParseSocketControlMessage(l.oob[:oobn])
	if err == nil {
		for _, m := range msgs {
			if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SO_TIMESTAMPNS && len(m.Data) >= int(unsafe.Sizeof(unix.Timespec{})) {
				ts := (*unix.Timespec)(unsafe.Pointer(&m.Data[0]))
				return time.Unix(ts.Sec, ts.Nsec)
			}
		}
	}
	return time.Now()
}

// Stats returns the kernel's counters since the last call, accumulated.
func (l *Live) Stats() LiveStats {
	if s, err := unix.GetsockoptTpacketStats(l.fd, unix.SOL_PACKET, unix.PACKET_STATISTICS); err == nil {
		// The kernel resets its counters on every read.
		l.stats.Received += uint64(s.Packets)
		l.stats.Dropped += uint64(s.Drops)
	}
	return l.stats
}

// Close closes the socket.
func (l *Live) Close() error { return unix.Close(l.fd) }

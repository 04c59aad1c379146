//go:build !linux

package pcap

import (
	"context"
	"errors"
)

// LiveConfig configures a live capture.
type LiveConfig struct {
	Interface   string
	Ports       []uint16
	BufferBytes int
}

// LiveStats are the kernel's counters of a live capture.
type LiveStats struct {
	Received, Dropped uint64
}

// Live is a live capture; only Linux (AF_PACKET) is supported.
type Live struct{}

// ErrNotPermitted is OpenLive's error without the privilege to capture.
var ErrNotPermitted = errors.New("pcap: live capture not permitted")

// OpenLive fails: live capture needs Linux.
func OpenLive(LiveConfig) (*Live, error) {
	return nil, errors.New("pcap: live capture is implemented for Linux only (AF_PACKET)")
}

func (*Live) Next() (Packet, error) { return Packet{}, errors.New("pcap: no live capture") }
func (*Live) NextContext(context.Context) (Packet, error) {
	return Packet{}, errors.New("pcap: no live capture")
}
func (*Live) Stats() LiveStats { return LiveStats{} }
func (*Live) Close() error     { return nil }

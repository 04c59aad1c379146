//go:build linux

package pcap_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"github.com/dohyo/dohyo/capture/pcap"
)

// openLive opens a live capture on lo, skipping (failing under CI=true)
// without the privilege.
func openLive(t *testing.T, port uint16) *pcap.Live {
	t.Helper()
	l, err := pcap.OpenLive(pcap.LiveConfig{Interface: "lo", Ports: []uint16{port}, BufferBytes: 4 << 20})
	if errors.Is(err, pcap.ErrNotPermitted) {
		if os.Getenv("CI") == "true" {
			t.Fatal("live capture not permitted: CI runs as root (or with CAP_NET_RAW)")
		}
		t.Skip("live capture needs root or CAP_NET_RAW")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// TestLiveLoopback: a TCP exchange on lo is captured once per packet,
// with the kernel filter keeping only its port.
func TestLiveLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	l := openLive(t, port)
	// Traffic on another port must not pass the filter.
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	go func() {
		for _, ln := range []net.Listener{ln, other} {
			go func() {
				c, err := ln.Accept()
				if err == nil {
					buf := make([]byte, 64)
					n, _ := c.Read(buf)
					c.Write(buf[:n])
					c.Close()
				}
			}()
		}
	}()
	for _, addr := range []string{other.Addr().String(), ln.Addr().String()} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("ping-" + addr))
		buf := make([]byte, 64)
		c.Read(buf)
		c.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	want := []byte("ping-" + ln.Addr().String())
	requests, echoed := 0, false
	for !echoed {
		p, err := l.NextContext(ctx)
		if err != nil {
			t.Fatalf("after %d copies of the request: %v", requests, err)
		}
		seg, err := pcap.DecodeTCP(p.Link, p.Data, p.OrigLen)
		if err != nil {
			t.Fatalf("captured a non-TCP packet: %v", err)
		}
		if seg.Src.Port() != port && seg.Dst.Port() != port {
			t.Fatalf("captured a segment of ports %d-%d, filter is %d", seg.Src.Port(), seg.Dst.Port(), port)
		}
		if time.Since(p.Time) > time.Minute || time.Since(p.Time) < 0 {
			t.Fatalf("packet time %v", p.Time)
		}
		if bytes.Equal(seg.Payload, want) {
			if seg.Dst.Port() == port {
				requests++
			} else {
				echoed = true
			}
		}
	}
	if requests != 1 {
		t.Fatalf("the request was captured %d times, want once (loopback copies leaving are skipped)", requests)
	}
	if s := l.Stats(); s.Received == 0 {
		t.Fatalf("kernel stats %+v", s)
	}
}

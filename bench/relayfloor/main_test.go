package main

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/dohyo/dohyo/internal/rawnet"
)

// TestRelayMovesBytesBothWays relays a client to an echo server: what the
// client writes comes back unchanged, in order, and closing the client
// ends the relayed connection to the server too.
func TestRelayMovesBytesBothWays(t *testing.T) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	ended := make(chan struct{})
	go func() {
		c, err := echo.Accept()
		if err != nil {
			return
		}
		_, _ = io.Copy(c, c) // returns when the relay closes its side
		c.Close()
		close(ended)
	}()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { _ = serve(rawnet.Listener{Listener: ln}, echo.Addr().String(), slog.New(slog.DiscardHandler)) }()

	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	want := bytes.Repeat([]byte("0123456789abcdef"), 40000) // 640 KB: several buffers' worth
	go func() { _, _ = c.Write(want) }()
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatalf("read back: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("relayed bytes differ from those sent")
	}
	c.Close()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the relayed connection to the server did not end after the client closed")
	}
}

package relay

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/dohyo/dohyo/cql/wire"
)

// fakeNode listens on loopback and serves each accepted connection with
// serve in a goroutine of its own (unit tests' fake Cassandra nodes).
func fakeNode(t *testing.T, serve func(nc net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				serve(nc)
			}()
		}
	}()
	return ln.Addr().String()
}

// silentNode is a fake Cassandra node (unit test) that completes the
// STARTUP handshake and then never answers a request, as a node does that
// drops requests it cannot serve in time.
func silentNode(t *testing.T) string { return readyNode(t, nil) }

// TestRelayRetiresConnectionWithOrphans: requests that time out on a node
// that never answers keep their stream ids reserved; after maxOrphans of
// them the connection takes no new requests and closes, so the pool dials
// a fresh one instead of keeping a live connection without free streams.
func TestRelayRetiresConnectionWithOrphans(t *testing.T) {
	addr := silentNode(t)
	bc, err := dialBackend(context.Background(), addr, 4, nil, "", 2*time.Second, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer bc.close(errors.New("test over"))
	// A request whose 1ms deadline passes before it gets a stream id fails
	// without reserving one (on a loaded machine that happens), so the loop
	// counts orphans, not requests.
	for i := 0; bc.orphans.Load() < maxOrphans; i++ {
		if i >= 4*maxOrphans {
			t.Fatalf("%d requests timed out but only %d streams are orphaned", i, bc.orphans.Load())
		}
		if !bc.usable() {
			t.Fatalf("retired after %d orphans, want %d", bc.orphans.Load(), maxOrphans)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		_, err := bc.roundTrip(ctx, 0, wire.OpOptions, nil)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("request %d: %v, want a timeout", i, err)
		}
	}
	if bc.usable() {
		t.Fatalf("still usable with %d orphaned streams", bc.orphans.Load())
	}
	select {
	case <-bc.closed:
	case <-time.After(30 * time.Second):
		t.Fatal("a retired connection with nothing in flight was not closed")
	}
	if !errors.Is(bc.err(), errTooManyOrphans) {
		t.Fatalf("closed with %v, want %v", bc.err(), errTooManyOrphans)
	}
}

// readRequest reads a request's header into h (wire.HeaderLen bytes) and
// discards its body: a fake node's read loop. false: the connection ended.
func readRequest(nc net.Conn, h []byte) bool {
	if _, err := io.ReadFull(nc, h); err != nil {
		return false
	}
	_, err := io.CopyN(io.Discard, nc, int64(binary.BigEndian.Uint32(h[5:])))
	return err == nil
}

// answerFrame is a fake node's answer (op, body) to the request whose
// header is h.
func answerFrame(h []byte, op byte, body []byte) []byte {
	f := wire.StartFrame(nil, h[0], 0, int16(binary.BigEndian.Uint16(h[2:])), op)
	f = append(f, body...)
	wire.FinishFrame(f)
	return f
}

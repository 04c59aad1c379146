package relay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/dohyo/dohyo/cql/wire"
)

// echoNode is a fake Cassandra node (unit test, v4 framing) that answers
// STARTUP with READY and any other request with a RESULT whose body is the
// request's body, writing the answers to what it read in one go together.
func echoNode(t *testing.T) string {
	t.Helper()
	return fakeNode(t, func(nc net.Conn) {
		br := bufio.NewReader(nc)
		var out []byte
		for {
			h := make([]byte, wire.HeaderLen)
			if _, err := io.ReadFull(br, h); err != nil {
				return
			}
			body := make([]byte, binary.BigEndian.Uint32(h[5:]))
			if _, err := io.ReadFull(br, body); err != nil {
				return
			}
			op := byte(wire.OpResult)
			if h[4] == wire.OpStartup {
				op, body = wire.OpReady, nil
			}
			out = append(out, answerFrame(h, op, body)...)
			if br.Buffered() == 0 { // answers to requests read together leave together
				nc.Write(out)
				out = out[:0]
			}
		}
	})
}

// TestRelayRoundTripOwnsBody: a round trip's answer is the caller's even
// though the connection's reader reads the next answers into the same
// buffer (the waiter copies it).
func TestRelayRoundTripOwnsBody(t *testing.T) {
	addr := echoNode(t)
	bc, err := dialBackend(context.Background(), addr, 4, nil, "", 5*time.Second, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer bc.close(errBackendClosed)
	const n = 16
	chs := make([]rtWaiter, n)
	for i := range chs {
		chs[i] = make(rtWaiter, 1)
		body := bytes.Repeat([]byte{byte('a' + i)}, 64) // same length: an overwrite would not show in len
		if _, ok, err := bc.submit(0, wire.OpQuery, body, chs[i]); !ok || err != nil {
			t.Fatalf("submit %d: %v %v", i, ok, err)
		}
	}
	bc.Flush() // one write: the node answers all together
	results := make([]rtResult, n)
	for i, ch := range chs {
		results[i] = <-ch
	}
	for i, r := range results { // read only after every answer was delivered
		if r.err != nil || !bytes.Equal(r.r.Body, bytes.Repeat([]byte{byte('a' + i)}, 64)) {
			t.Errorf("answer %d: %q, %v", i, r.r.Body, r.err)
		}
	}
}

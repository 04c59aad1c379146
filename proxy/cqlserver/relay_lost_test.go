package cqlserver

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/proxy"
)

// lostRelayer answers every request as lost with its connection to a
// Cassandra node (bindings.RelayLostError), remembering whether the
// coordinator found it idempotent.
type lostRelayer struct{ idempotent chan bool }

func (l lostRelayer) RelayFrame(_ context.Context, req *bindings.RelayRequest, rcv bindings.RelayReceiver) bool {
	l.idempotent <- req.Idempotent
	rcv.Relayed(bindings.RelayAnswer{}, &bindings.RelayLostError{Node: "10.9.9.9:9042", Err: errors.New("connection reset")})
	return true
}

// TestRelayLostAnswersCoordinatorTimeout: a request the relay lost with its
// connection (and did not send again) reaches the client as a coordinator
// timeout of its statement (WriteTimeout with the write type drivers'
// retry policies read, ReadTimeout for a read), naming the node, and the
// relay is told which requests are idempotent.
func TestRelayLostAnswersCoordinatorTimeout(t *testing.T) {
	emb, err := stores.Embedded(context.Background(), embedded.Config{}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emb.Close() })
	coord, err := proxy.New(proxy.Config{Backends: map[string]bindings.Backend{"cass": emb}, Default: "cass"})
	if err != nil {
		t.Fatal(err)
	}
	lr := lostRelayer{idempotent: make(chan bool, 16)}
	for _, timeout := range []time.Duration{10 * time.Second, 0} { // fast path, general path
		srv, err := New(Config{Coordinator: coord, ClusterName: "front", NumTokens: 4,
			Relays: map[string]bindings.FrameRelayer{"cass": lr}, RequestTimeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		ts := &testServer{srv: srv, coord: coord}
		addr := ts.listen(t)
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c := newClient(t, nc, primitive.ProtocolVersion4)
		c.startup("")
		stamp := int64(1_700_000_000_000_000)
		for _, q := range []struct {
			text       string
			timestamp  bool   // a client timestamp in the frame
			idempotent bool   // as the relay is told
			writeType  string // "" for a ReadTimeout
		}{
			{"SELECT v FROM ks.t WHERE k = 1", false, true, ""},
			{"INSERT INTO ks.t (k, v) VALUES (1, 1) IF NOT EXISTS", true, false, "CAS"},
			{"UPDATE ks.t SET v = 2 WHERE k = 1 IF v = 1", true, false, "CAS"},
			{"UPDATE ks.c SET n = n + 1 WHERE k = 1", true, false, "SIMPLE"},
			{"INSERT INTO ks.t (k, v) VALUES (1, 1)", true, true, "SIMPLE"},
			{"INSERT INTO ks.t (k, v) VALUES (1, 1)", false, false, "SIMPLE"},
			{"BEGIN COUNTER BATCH UPDATE ks.c SET n = n + 1 WHERE k = 1; APPLY BATCH", true, false, "COUNTER"},
		} {
			opts := &message.QueryOptions{Consistency: primitive.ConsistencyLevelQuorum}
			if q.timestamp {
				opts.DefaultTimestamp = &stamp
			}
			m := c.query(q.text, opts)
			if got := <-lr.idempotent; got != q.idempotent {
				t.Errorf("timeout %v, %s (timestamp %v): relayed as idempotent %v, want %v", timeout, q.text, q.timestamp, got, q.idempotent)
			}
			switch e := m.(type) {
			case *message.ReadTimeout:
				if q.writeType != "" || !strings.Contains(e.ErrorMessage, "10.9.9.9:9042 lost before its answer") {
					t.Errorf("timeout %v, %s: ReadTimeout %q, want a WriteTimeout %s naming the node", timeout, q.text, e.ErrorMessage, q.writeType)
				}
			case *message.WriteTimeout:
				if string(e.WriteType) != q.writeType || !strings.Contains(e.ErrorMessage, "10.9.9.9:9042 lost before its answer") {
					t.Errorf("timeout %v, %s: WriteTimeout %s %q, want %q naming the node", timeout, q.text, e.WriteType, e.ErrorMessage, q.writeType)
				}
			default:
				t.Errorf("timeout %v, %s: %v, want a coordinator timeout", timeout, q.text, m)
			}
		}
		s := (&relayRig{}).sessionTB(t, addr)
		b := s.NewBatch(gocql.UnloggedBatch)
		b.Query("INSERT INTO ks.t (k, v) VALUES (1, 1)")
		b.Query("DELETE FROM ks.t WHERE k = 2")
		err = s.ExecuteBatch(b)
		if got := <-lr.idempotent; !got {
			t.Errorf("timeout %v: an unlogged batch of plain writes with a timestamp not relayed as idempotent", timeout)
		}
		var wt *gocql.RequestErrWriteTimeout
		if !errors.As(err, &wt) || wt.WriteType != "UNLOGGED_BATCH" {
			t.Errorf("timeout %v, batch: %T %v, want a WriteTimeout of type UNLOGGED_BATCH", timeout, err, err)
		}
	}
}

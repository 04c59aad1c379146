package proxy

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/bindings"
)

// fakeRelayer is a FrameRelayer that remembers one prepared statement.
type fakeRelayer struct {
	id       string
	prepared bindings.RelayPrepared
}

func (*fakeRelayer) RelayFrame(context.Context, *bindings.RelayRequest, bindings.RelayReceiver) bool {
	return false
}

func (f *fakeRelayer) PreparedStatement(id []byte) (bindings.RelayPrepared, bool) {
	if string(id) == f.id {
		return f.prepared, true
	}
	return bindings.RelayPrepared{}, false
}

// TestRouteFrame: the last hop of request frames when backend b is
// relayed: its keyspaces' statements, unqualified ones in a session on
// them (with the session's keyspace as the connection group), statements
// dohyo cannot parse there, and EXECUTE of its prepared ids go to the
// relayer (EXECUTE in the group of its PREPARE); USE, DESCRIBE and the other backend stay with dohyo; a BATCH
// spanning both is Invalid with the message of the executed path.
func TestRouteFrame(t *testing.T) {
	c, _, _ := newTestCoordinator(t, nil)
	rl := &fakeRelayer{id: "cafe", prepared: bindings.RelayPrepared{Query: "SELECT * FROM t", Keyspace: "ks_b", Group: "ks_b"}}
	relays := map[string]bindings.FrameRelayer{"b": rl}
	s := c.NewSession(bindings.SourceCQL)
	type want struct {
		relayed         bool
		group, keyspace string
	}
	check := func(name string, r FrameRequest, w want) {
		t.Helper()
		got, err := s.RouteFrame(relays, &r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if (got.Relayer != nil) != w.relayed || got.Group != w.group || got.Keyspace != w.keyspace {
			t.Errorf("%s: relayed %v, group %q, keyspace %q; want %+v", name, got.Relayer != nil, got.Group, got.Keyspace, w)
		}
	}
	check("qualified, relayed", FrameRequest{Kind: FrameQuery, Query: "SELECT * FROM ks_b.t"}, want{relayed: true})
	check("qualified, local", FrameRequest{Kind: FrameQuery, Query: "SELECT * FROM ks_a.t"}, want{})
	check("USE", FrameRequest{Kind: FrameQuery, Query: "USE ks_b"}, want{})
	check("DESCRIBE", FrameRequest{Kind: FrameQuery, Query: "DESCRIBE KEYSPACE ks_b"}, want{})
	check("unparsable, default local", FrameRequest{Kind: FrameQuery, Query: "FROBNICATE ks_b"}, want{})
	check("v5 keyspace", FrameRequest{Kind: FramePrepare, Query: "SELECT * FROM t", Keyspace: "ks_b"},
		want{relayed: true, keyspace: "ks_b"})
	s.SetKeyspace("ks_b")
	check("unqualified", FrameRequest{Kind: FrameQuery, Query: "SELECT * FROM t"},
		want{relayed: true, group: "ks_b", keyspace: "ks_b"})
	check("unparsable in a relayed keyspace", FrameRequest{Kind: FrameQuery, Query: "FROBNICATE x"},
		want{relayed: true, group: "ks_b", keyspace: "ks_b"})
	// An EXECUTE goes to the group its statement was prepared in, where
	// Cassandra sees it in its keyspace (else it warns).
	check("EXECUTE", FrameRequest{Kind: FrameExecute, PreparedID: []byte("cafe")}, want{relayed: true, group: "ks_b", keyspace: "ks_b"})
	check("EXECUTE, unknown id", FrameRequest{Kind: FrameExecute, PreparedID: []byte("beef")}, want{})
	check("BATCH, relayed", FrameRequest{Kind: FrameBatch, Batch: &BatchRequest{Entries: []BatchEntry{
		{Query: "INSERT INTO t (k) VALUES (1)"}, {PreparedID: []byte("cafe")}}}},
		want{relayed: true, group: "ks_b", keyspace: "ks_b"})

	_, err := s.RouteFrame(relays, &FrameRequest{Kind: FrameBatch, Batch: &BatchRequest{Entries: []BatchEntry{
		{Query: "INSERT INTO ks_b.t (k) VALUES (1)"}, {Query: "INSERT INTO ks_a.t (k) VALUES (1)"}}}})
	if !errors.Is(err, bindings.ErrInvalid) || !strings.Contains(err.Error(), "ks_b (b) and ks_a (a) are on different backends") {
		t.Errorf("spanning BATCH: %v", err)
	}
	if got, err := s.RouteFrame(nil, &FrameRequest{Kind: FrameQuery, Query: "SELECT * FROM ks_b.t"}); err != nil || got.Relayer != nil {
		t.Errorf("without relays: %+v, %v", got, err)
	}
}

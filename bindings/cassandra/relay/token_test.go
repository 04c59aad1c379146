package relay

import (
	"context"
	"encoding/binary"
	"slices"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/internal/murmur3"
)

// executeBody is an EXECUTE body (protocol v4, or v5 with a result
// metadata id) binding values by position.
func executeBody(version byte, id []byte, values ...[]byte) []byte {
	b := wire.AppendShortBytes(nil, id)
	if version >= 5 {
		b = wire.AppendShortBytes(b, []byte("rm"))
	}
	b = wire.AppendShort(b, uint16(bindings.Quorum))
	if version >= 5 {
		b = wire.AppendInt(b, flagValues)
	} else {
		b = append(b, flagValues)
	}
	b = wire.AppendShort(b, uint16(len(values)))
	for _, v := range values {
		if v == nil {
			b = wire.AppendInt(b, -1)
			continue
		}
		b = wire.AppendBytes(b, v)
	}
	return b
}

func intValue(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

// preparedShape is a PREPARED answer's body after the id: bind metadata
// with the partition key's bind indexes (the columns themselves are not
// read).
func preparedShape(version byte, pk ...int) []byte {
	var b []byte
	if version >= 5 {
		b = wire.AppendShortBytes(b, []byte("rm"))
	}
	b = wire.AppendInt(b, 0) // flags
	b = wire.AppendInt(b, 3) // columns
	b = wire.AppendInt(b, int32(len(pk)))
	for _, i := range pk {
		b = wire.AppendShort(b, uint16(i))
	}
	return b
}

// TestRoutingToken: an EXECUTE's partition key values hash to Cassandra's
// token: int 1 is -4069959284402364209 (Murmur3Partitioner, as
// `SELECT token(k)` answers), a composite key is serialized as Cassandra's
// CompositeType; named or missing key values give no token.
func TestRoutingToken(t *testing.T) {
	for _, v := range []byte{4, 5} {
		pk := pkIndexes(preparedShape(v, 1), v)
		if !slices.Equal(pk, []int{1}) {
			t.Fatalf("v%d: pk indexes %v, want [1]", v, pk)
		}
		tok, ok := routingToken(executeBody(v, []byte("id"), intValue(7), intValue(1)), v, pk)
		if !ok || tok != -4069959284402364209 {
			t.Errorf("v%d: token of int 1 = %d, %v; want -4069959284402364209", v, tok, ok)
		}
		pk2 := pkIndexes(preparedShape(v, 2, 0), v)
		tok, ok = routingToken(executeBody(v, []byte("id"), []byte("a"), intValue(9), []byte("bc")), v, pk2)
		want := murmur3.Token(engine.SerializePartitionKey([][]byte{[]byte("bc"), []byte("a")}))
		if !ok || tok != want {
			t.Errorf("v%d: composite token %d, %v; want %d", v, tok, ok, want)
		}
		if _, ok := routingToken(executeBody(v, []byte("id"), nil, intValue(1)), v, []int{0}); ok {
			t.Errorf("v%d: a null key value gave a token", v)
		}
	}
	if pk := pkIndexes(preparedShape(4), 4); pk != nil {
		t.Errorf("no key indexes: %v", pk)
	}
	if pk := pkIndexes(preparedShape(4, 0), 3); pk != nil {
		t.Errorf("protocol v3 has no key indexes: %v", pk)
	}
}

// TestRingReplicas: the owner of a token is the node of the first token at
// or after it (wrapping), then the next distinct nodes along the ring.
func TestRingReplicas(t *testing.T) {
	r := newRing([]ringEntry{{100, "c"}, {-100, "a"}, {0, "b"}, {50, "a"}})
	for tok, want := range map[int64][]string{
		-500: {"a", "b", "c"},
		-100: {"a", "b", "c"},
		-99:  {"b", "a", "c"},
		60:   {"c", "a", "b"},
		101:  {"a", "b", "c"}, // wraps
	} {
		if got := r.replicas(tok); !slices.Equal(got, want) {
			t.Errorf("replicas(%d) = %v, want %v", tok, got, want)
		}
	}
	if got := (*ring)(nil).replicas(1); got != nil {
		t.Errorf("no ring: %v", got)
	}
}

// TestRelayTokenAware: EXECUTEs of a prepared statement whose key is bound
// go to the node that owns the key's token, and to the next node along the
// ring while the owner is down; so do BATCHes led by such a statement.
func TestRelayTokenAware(t *testing.T) {
	a, b := newClusterNode(t), newClusterNode(t)
	rl := clusterRelay(t, a, b)
	for _, n := range []*clusterNode{a, b} {
		k := poolKey{node: n.addr, version: 4}
		if _, err := rl.dial(context.Background(), startDialing(rl.pool(k)), k, nil); err != nil {
			t.Fatal(err)
		}
	}
	// a owns (-inf, 0], b (0, max]: token(1) < 0 is a's.
	rl.ring.Store(newRing([]ringEntry{{0, a.addr}, {1 << 62, b.addr}}))
	rl.prepared.Put("id", &Prepared{Query: "SELECT v FROM ks.t WHERE k = ?", pk: []int{0}})
	body := executeBody(4, []byte("id"), intValue(1))
	run := func(n int) {
		t.Helper()
		for range n {
			rcv := &testReceiver{got: make(chan bindings.RelayAnswer, 1), errs: make(chan error, 1)}
			req := &bindings.RelayRequest{Version: 4, Op: wire.OpExecute, Body: body, Timeout: 20 * time.Second}
			if !rl.RelayFrame(context.Background(), req, rcv) {
				if _, err := rl.Do(context.Background(), Request{Version: 4, Op: wire.OpExecute, Body: body}); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := awaitChan(t, rcv.errs, "the answer"); err != nil {
				t.Fatal(err)
			}
		}
	}
	run(10)
	if ra, rb := nodeStats(rl, a.addr).Requests, nodeStats(rl, b.addr).Requests; ra != 10 || rb != 0 {
		t.Fatalf("requests: owner %d, other %d; want 10 and 0", ra, rb)
	}
	// A BATCH goes where its first statement's key is, when that statement
	// is prepared with its key bound; a batch led by a text statement
	// round-robins.
	batch := func(first byte) []byte {
		b := []byte{0}             // logged
		b = wire.AppendShort(b, 2) // two statements
		if first == 1 {
			b = append(b, 1)
			b = wire.AppendShortBytes(b, []byte("id"))
		} else {
			b = append(b, 0)
			b = wire.AppendLongString(b, "INSERT INTO ks.t (k) VALUES (5)")
		}
		b = wire.AppendShort(b, 1)
		b = wire.AppendBytes(b, intValue(1))
		b = append(b, 1)
		b = wire.AppendShortBytes(b, []byte("id"))
		b = wire.AppendShort(b, 1)
		b = wire.AppendBytes(b, intValue(2))
		return append(wire.AppendShort(b, uint16(bindings.Quorum)), 0)
	}
	for range 6 {
		if _, err := rl.Do(context.Background(), Request{Version: 4, Op: wire.OpBatch, Body: batch(1)}); err != nil {
			t.Fatal(err)
		}
	}
	if ra, rb := nodeStats(rl, a.addr).Requests, nodeStats(rl, b.addr).Requests; ra != 16 || rb != 0 {
		t.Fatalf("batches: owner %d, other %d; want 16 and 0", ra, rb)
	}
	for range 6 {
		if _, err := rl.Do(context.Background(), Request{Version: 4, Op: wire.OpBatch, Body: batch(0)}); err != nil {
			t.Fatal(err)
		}
	}
	if rb := nodeStats(rl, b.addr).Requests; rb == 0 {
		t.Fatalf("batches led by a text statement all went to one node")
	}
	a.hold.Store(true)
	rl.nodeLost(a.addr, context.Canceled)
	before := nodeStats(rl, b.addr).Requests
	run(5)
	if rb := nodeStats(rl, b.addr).Requests - before; rb != 5 {
		t.Fatalf("with the owner down: %d requests to the next node, want 5", rb)
	}
}

package cqlserver

import (
	"context"
	"fmt"
	"net"
	"os"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/engine"
)

// trailer is what the probes append to every body: bytes after the last
// field, within the frame's declared length.
var trailer = []byte{1, 2, 3, 4, 5, 6, 7}

// trailingProbe sends every request opcode a client uses, each with
// bytes after its last field, on a raw connection to addr, and checks the
// answers Cassandra 5.0.9 gives (it ignores the extra bytes): SUPPORTED,
// READY, READY for REGISTER, and the results of QUERY, PREPARE, EXECUTE
// and BATCH writing to and reading ks.t (k int PRIMARY KEY, v int), which
// the probe creates.
func trailingProbe(t *testing.T, addr, ks string) {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, nc, primitive.ProtocolVersion4)
	stream := int16(0)
	send := func(op byte, body []byte) message.Message {
		t.Helper()
		stream++
		c.writeRaw(rawFrame(4, 0, stream, op, append(append([]byte(nil), body...), trailer...)))
		for {
			f := c.read()
			if f.Header.StreamId == stream {
				return f.Body.Message
			}
		}
	}
	query := func(q string) []byte {
		return append(wire.AppendShort(wire.AppendLongString(nil, q), uint16(primitive.ConsistencyLevelOne)), 0)
	}
	if m := send(wire.OpOptions, nil); m.GetOpCode() != primitive.OpCodeSupported {
		t.Fatalf("OPTIONS: %v", m)
	}
	if m := send(wire.OpStartup, startupBody(map[string]string{"CQL_VERSION": "3.0.0"})); m.GetOpCode() != primitive.OpCodeReady {
		t.Fatalf("STARTUP: %v", m)
	}
	if m := send(wire.OpRegister, wire.AppendStringList(nil, []string{"SCHEMA_CHANGE"})); m.GetOpCode() != primitive.OpCodeReady {
		t.Fatalf("REGISTER: %v", m)
	}
	for _, q := range []string{
		"CREATE KEYSPACE IF NOT EXISTS " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE IF NOT EXISTS " + ks + ".t (k int PRIMARY KEY, v int)",
	} {
		if m := send(wire.OpQuery, query(q)); m.GetOpCode() != primitive.OpCodeResult {
			t.Fatalf("%s: %v", q, m)
		}
	}
	if m := send(wire.OpQuery, query("INSERT INTO "+ks+".t (k, v) VALUES (1, 10)")); m.GetOpCode() != primitive.OpCodeResult {
		t.Fatalf("QUERY INSERT: %v", m)
	}
	m := send(wire.OpPrepare, wire.AppendLongString(nil, "INSERT INTO "+ks+".t (k, v) VALUES (?, ?)"))
	prep, ok := m.(*message.PreparedResult)
	if !ok {
		t.Fatalf("PREPARE: %v", m)
	}
	exec := wire.AppendShortBytes(nil, prep.PreparedQueryId)
	exec = append(wire.AppendShort(exec, uint16(primitive.ConsistencyLevelOne)), 1) // values
	exec = wire.AppendShort(exec, 2)
	exec = wire.AppendBytes(wire.AppendBytes(exec, be32(2)), be32(20))
	if m := send(wire.OpExecute, exec); m.GetOpCode() != primitive.OpCodeResult {
		t.Fatalf("EXECUTE: %v", m)
	}
	batch := wire.AppendShort([]byte{1}, 1) // UNLOGGED, one statement
	batch = append(batch, 0)
	batch = wire.AppendShort(wire.AppendLongString(batch, "INSERT INTO "+ks+".t (k, v) VALUES (3, 30)"), 0)
	batch = append(wire.AppendShort(batch, uint16(primitive.ConsistencyLevelOne)), 0)
	if m := send(wire.OpBatch, batch); m.GetOpCode() != primitive.OpCodeResult {
		t.Fatalf("BATCH: %v", m)
	}
	m = send(wire.OpQuery, query("SELECT k, v FROM "+ks+".t WHERE k IN (1, 2, 3)"))
	rows, ok := m.(*message.RowsResult)
	if !ok {
		t.Fatalf("QUERY SELECT: %v", m)
	}
	if got := len(rows.Data); got != 3 {
		t.Fatalf("SELECT after the writes: %d rows, want 3 (each write ran once)", got)
	}
	if m := send(wire.OpQuery, query("DROP KEYSPACE "+ks)); m.GetOpCode() != primitive.OpCodeResult {
		t.Fatalf("DROP KEYSPACE: %v", m)
	}
}

// TestTrailingBytesEmbedded: bytes after a body's last field are ignored
// through the real listener over the embedded (executed) backend.
func TestTrailingBytesEmbedded(t *testing.T) {
	emb, err := stores.Embedded(context.Background(), embedded.Config{}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emb.Close() })
	ts := newTestServerWith(t, emb, nil, nil)
	trailingProbe(t, ts.listen(t), "trailing")
}

// TestTrailingBytesRelay: the same through the relay (the node answers
// the relayed frames, extra bytes included, and ignores them too).
func TestTrailingBytesRelay(t *testing.T) {
	r := newRelayRig(t, rigOptions{})
	trailingProbe(t, r.addr, "trailing")
}

// TestTrailingBytesCassandra runs the probe against the reference
// Cassandra named by DOHYO_TEST_CASSANDRA (skipped without it), so its
// expectations are Cassandra's.
func TestTrailingBytesCassandra(t *testing.T) {
	addr := os.Getenv("DOHYO_TEST_CASSANDRA")
	if addr == "" || testing.Short() {
		t.Skip("DOHYO_TEST_CASSANDRA is not set")
	}
	trailingProbe(t, addr, fmt.Sprintf("trailing_%d", time.Now().UnixNano()%1e9))
}

package relay

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
)

// schemaNode is a fake Cassandra node that changes the schema: any QUERY
// but a read of system.local or system.peers_v2 is answered with a
// SCHEMA_CHANGE result; system.local reports version "A", and
// system.peers_v2 one peer (127.0.0.9:9042) whose version is B until the
// node has answered agreeAfter reads of the peers (A from then on; never
// when agreeAfter is negative).
type schemaNode struct {
	addr       string
	agreeAfter int64
	peerReads  atomic.Int64
	// noTables answers reads of the system tables with a VOID result (a
	// server that is not Cassandra) and counts them in peerReads.
	noTables bool
}

func newSchemaNode(t *testing.T, agreeAfter int64) *schemaNode {
	n := &schemaNode{agreeAfter: agreeAfter}
	n.addr = fakeNode(t, n.serve)
	return n
}

func (n *schemaNode) serve(nc net.Conn) {
	h := make([]byte, wire.HeaderLen)
	for {
		if _, err := io.ReadFull(nc, h); err != nil {
			return
		}
		body := make([]byte, binary.BigEndian.Uint32(h[5:]))
		if _, err := io.ReadFull(nc, body); err != nil {
			return
		}
		var out []byte
		switch h[4] {
		case wire.OpStartup:
			out = answerFrame(h, wire.OpReady, nil)
		case wire.OpQuery:
			q := string(body[4 : 4+binary.BigEndian.Uint32(body)])
			switch {
			case n.noTables && strings.Contains(q, "system."):
				n.peerReads.Add(1)
				out = answerFrame(h, wire.OpResult, wire.AppendInt(nil, wire.ResultVoid))
			case strings.Contains(q, "system.local"):
				out = answerFrame(h, wire.OpResult, rowsBody([][]byte{uuidOf('A')}))
			case strings.Contains(q, "system.peers_v2"):
				version := uuidOf('B')
				if reads := n.peerReads.Add(1); n.agreeAfter >= 0 && reads >= n.agreeAfter {
					version = uuidOf('A')
				}
				out = answerFrame(h, wire.OpResult, rowsBody([][]byte{{127, 0, 0, 9}, wire.AppendInt(nil, 9042), version}))
			default:
				msg := wire.AppendInt(nil, wire.ResultSchemaChange)
				for _, s := range []string{"CREATED", "TABLE", "ks", "t"} {
					msg = wire.AppendString(msg, s)
				}
				out = answerFrame(h, wire.OpResult, msg)
			}
		default:
			out = answerFrame(h, wire.OpResult, wire.AppendInt(nil, wire.ResultVoid))
		}
		if _, err := nc.Write(out); err != nil {
			return
		}
	}
}

// uuidOf is a schema version: 16 bytes of c.
func uuidOf(c byte) []byte { return []byte(strings.Repeat(string(c), 16)) }

// rowsBody is a Rows result without metadata holding one row of cells.
func rowsBody(row [][]byte) []byte {
	b := wire.AppendInt(nil, wire.ResultRows)
	b = wire.AppendInt(b, wire.RowsNoMetadata)
	b = wire.AppendInt(b, int32(len(row)))
	b = wire.AppendInt(b, 1)
	for _, c := range row {
		b = wire.AppendBytes(b, c)
	}
	return b
}

// schemaRelay is a relay over node with its control connection on it.
func schemaRelay(t *testing.T, node string, bound time.Duration) *Relay {
	t.Helper()
	rl := testRelay(1)
	rl.cfg.SchemaAgreement = bound
	rl.nodes = []string{node}
	t.Cleanup(rl.shutdown)
	bc, err := dialBackend(context.Background(), node, 4, nil, "", 5*time.Second, rl.log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bc.close(errBackendClosed) })
	rl.control.Store(bc)
	k := poolKey{node: node, version: 4} // the fast path takes a live connection
	if _, err := rl.dial(context.Background(), startDialing(rl.pool(k)), k, nil); err != nil {
		t.Fatal(err)
	}
	return rl
}

// agreementReceiver records the answer and how many reads of the peers'
// versions the node had answered when it came.
type agreementReceiver struct {
	testReceiver
	node      *schemaNode
	readsSeen atomic.Int64
}

func (r *agreementReceiver) Relayed(ans bindings.RelayAnswer, err error) {
	r.readsSeen.Store(r.node.peerReads.Load())
	r.testReceiver.Relayed(ans, err)
}

// relayDDL relays a CREATE TABLE through rl (on the fast path when timeout
// is positive) and returns its answer and the peers' reads seen by then.
func relayDDL(t *testing.T, rl *Relay, node *schemaNode, timeout time.Duration) (bindings.RelayAnswer, int64) {
	t.Helper()
	rcv := &agreementReceiver{testReceiver: testReceiver{got: make(chan bindings.RelayAnswer, 1), errs: make(chan error, 1)}, node: node}
	req := &bindings.RelayRequest{Version: 4, Op: wire.OpQuery, Body: queryBody("CREATE TABLE ks.t (k int PRIMARY KEY)", 4),
		Timeout: timeout}
	go func() {
		if !rl.RelayFrame(context.Background(), req, rcv) {
			rcv.Relayed(bindings.RelayAnswer{}, context.Canceled)
		}
	}()
	if err := awaitChan(t, rcv.errs, "the DDL's answer"); err != nil {
		t.Fatalf("the DDL failed: %v", err)
	}
	ans := <-rcv.got
	if ans.Op != wire.OpResult || int32(binary.BigEndian.Uint32(ans.Body)) != wire.ResultSchemaChange {
		t.Fatalf("answer op %#x body %x, want the SCHEMA_CHANGE result", ans.Op, ans.Body)
	}
	return ans, rcv.readsSeen.Load()
}

// TestRelayDDLWaitsForSchemaAgreement: a relayed schema change is answered
// only once the control node reports one schema version for itself and
// its peers (as a driver connected to Cassandra waits before its next
// statement), on the fast path and the slow one.
func TestRelayDDLWaitsForSchemaAgreement(t *testing.T) {
	for _, timeout := range []time.Duration{20 * time.Second, 0} {
		node := newSchemaNode(t, 3)
		rl := schemaRelay(t, node.addr, 30*time.Second)
		_, reads := relayDDL(t, rl, node, timeout)
		if reads < 3 {
			t.Errorf("timeout %v: answered after %d reads of the peers' versions; the peer agreed only at the 3rd", timeout, reads)
		}
		if st := rl.Stats(); st.SchemaAgreed != 1 || st.SchemaDisagreed != 0 {
			t.Errorf("timeout %v: agreed %d, disagreed %d; want 1 and 0", timeout, st.SchemaAgreed, st.SchemaDisagreed)
		}
	}
}

// TestRelayDDLSkipsDownPeer: a peer the relay has marked down is not
// waited for.
func TestRelayDDLSkipsDownPeer(t *testing.T) {
	node := newSchemaNode(t, -1)
	rl := schemaRelay(t, node.addr, 30*time.Second)
	rl.health("127.0.0.9:9042").state.Store(int32(nodeDown))
	_, reads := relayDDL(t, rl, node, 20*time.Second)
	if reads != 1 {
		t.Errorf("answered after %d reads of the peers' versions, want 1 (the disagreeing peer is down)", reads)
	}
	if st := rl.Stats(); st.SchemaAgreed != 1 {
		t.Errorf("agreed %d, want 1", st.SchemaAgreed)
	}
}

// TestRelayDDLAgreementBounded: when the nodes do not agree within
// SchemaAgreement, the change (applied) is answered anyway and counted.
func TestRelayDDLAgreementBounded(t *testing.T) {
	node := newSchemaNode(t, -1)
	rl := schemaRelay(t, node.addr, 300*time.Millisecond)
	_, reads := relayDDL(t, rl, node, 20*time.Second)
	if reads < 1 {
		t.Errorf("answered after %d reads of the peers' versions, want at least 1", reads)
	}
	if st := rl.Stats(); st.SchemaAgreed != 0 || st.SchemaDisagreed != 1 {
		t.Errorf("agreed %d, disagreed %d; want 0 and 1", st.SchemaAgreed, st.SchemaDisagreed)
	}
}

// TestRelayDDLAgreementUnreadable: when the node cannot report schema
// versions, the change is answered at once (no wait to the bound), and
// counted as not agreed.
func TestRelayDDLAgreementUnreadable(t *testing.T) {
	node := &schemaNode{noTables: true}
	node.addr = fakeNode(t, node.serve)
	rl := schemaRelay(t, node.addr, time.Hour)
	_, reads := relayDDL(t, rl, node, 20*time.Second)
	if reads != 1 {
		t.Errorf("answered after %d reads of the system tables, want 1 (the first failed read ends the wait)", reads)
	}
	if st := rl.Stats(); st.SchemaAgreed != 0 || st.SchemaDisagreed != 1 {
		t.Errorf("agreed %d, disagreed %d; want 0 and 1", st.SchemaAgreed, st.SchemaDisagreed)
	}
}

// TestPeersSkipsShortRows: a node answering the peers query with rows
// short of the columns asked for (a malformed or hostile answer) yields no
// peers instead of a panic.
func TestPeersSkipsShortRows(t *testing.T) {
	addr := fakeNode(t, func(nc net.Conn) {
		h := make([]byte, wire.HeaderLen)
		for readRequest(nc, h) {
			out := answerFrame(h, wire.OpReady, nil)
			if h[4] == wire.OpQuery { // two rows of no cells
				b := wire.AppendInt(nil, wire.ResultRows)
				b = wire.AppendInt(b, wire.RowsNoMetadata)
				b = wire.AppendInt(wire.AppendInt(b, 0), 2)
				out = answerFrame(h, wire.OpResult, b)
			}
			if _, err := nc.Write(out); err != nil {
				return
			}
		}
	})
	rl := testRelay(1)
	t.Cleanup(rl.shutdown)
	bc, err := dialBackend(context.Background(), addr, 4, nil, "", 5*time.Second, rl.log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bc.close(errBackendClosed) })
	peers, err := rl.peers(context.Background(), bc, "schema_version")
	if err != nil || len(peers) != 0 {
		t.Fatalf("peers = %v, %v; want none and no error", peers, err)
	}
}

package cqlserver

import (
	"bytes"
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/engine"
)

// embeddedServer is an in-process server over an in-memory embedded backend.
func embeddedServer(t *testing.T) *testServer {
	t.Helper()
	emb, err := stores.Embedded(context.Background(), embedded.Config{}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServerWith(t, emb, nil, nil)
	t.Cleanup(func() { emb.Close() })
	return ts
}

func gocqlSession(t *testing.T, addr string, proto int) *gocql.Session {
	t.Helper()
	host, portText, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portText)
	cluster := gocql.NewCluster(host)
	cluster.Port = port
	cluster.ProtoVersion = proto
	cluster.Timeout = 5 * time.Second
	cluster.ConnectTimeout = 5 * time.Second
	cluster.Consistency = gocql.One
	sess, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sess.Close)
	return sess
}

// TestGocqlPreparedFollowsAlterTable: a statement prepared before ALTER
// TABLE ADD is re-prepared by the driver on its next execution (the server
// answers UNPREPARED), so it scans the new column instead of failing with
// "not enough columns to scan into"; likewise after DROP and re-CREATE.
func TestGocqlPreparedFollowsAlterTable(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server and a driver")
	}
	addr := embeddedServer(t).listen(t)
	for _, proto := range []int{3, 4} {
		t.Run("proto"+strconv.Itoa(proto), func(t *testing.T) {
			sess := gocqlSession(t, addr, proto)
			ks := "pa" + strconv.Itoa(proto)
			mustExec(t, sess, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
			mustExec(t, sess, "CREATE TABLE "+ks+".t (k int PRIMARY KEY, a text)")
			mustExec(t, sess, "INSERT INTO "+ks+".t (k, a) VALUES (1, 'x')")
			q := "SELECT * FROM " + ks + ".t WHERE k = ?"
			var k int
			var a, b string
			if err := sess.Query(q, 1).Scan(&k, &a); err != nil {
				t.Fatalf("before ALTER: %v", err)
			}
			mustExec(t, sess, "ALTER TABLE "+ks+".t ADD b text")
			mustExec(t, sess, "UPDATE "+ks+".t SET b = 'y' WHERE k = 1")
			if err := sess.Query(q, 1).Scan(&k, &a, &b); err != nil || a != "x" || b != "y" {
				t.Fatalf("after ALTER ADD: %v (a=%q b=%q)", err, a, b)
			}
			mustExec(t, sess, "DROP TABLE "+ks+".t")
			mustExec(t, sess, "CREATE TABLE "+ks+".t (k int PRIMARY KEY, z int)")
			mustExec(t, sess, "INSERT INTO "+ks+".t (k, z) VALUES (1, 5)")
			var z int
			if err := sess.Query(q, 1).Scan(&k, &z); err != nil || z != 5 {
				t.Fatalf("after DROP and CREATE: %v (z=%d)", err, z)
			}
		})
	}
}

func mustExec(t *testing.T, sess *gocql.Session, q string, vals ...any) {
	t.Helper()
	if err := sess.Query(q, vals...).Exec(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestPreparedInvalidatedByAlterFrames checks the frames: after ALTER TABLE
// an EXECUTE of a statement prepared before it answers UNPREPARED with its
// id (every protocol version); the re-PREPARE has the new result metadata
// and, in v5, a new result metadata id; another connection still holding
// the old id gets METADATA_CHANGED with the new id and columns.
func TestPreparedInvalidatedByAlterFrames(t *testing.T) {
	for _, v := range allVersions {
		t.Run(v.String(), func(t *testing.T) {
			ts := embeddedServer(t)
			c := readyClient(t, ts, v)
			for _, q := range []string{
				"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
				"CREATE TABLE ks.t (k int PRIMARY KEY, a int)",
				"INSERT INTO ks.t (k, a) VALUES (1, 2)",
			} {
				if m := c.query(q, nil); isError(m) {
					t.Fatalf("%s: %v", q, m)
				}
			}
			const q = "SELECT * FROM ks.t WHERE k = ?"
			prepare := func() *message.PreparedResult {
				t.Helper()
				p, ok := c.do(&message.Prepare{Query: q}).Body.Message.(*message.PreparedResult)
				if !ok {
					t.Fatal("PREPARE failed")
				}
				return p
			}
			exec := func(p *message.PreparedResult, metaID []byte) message.Message {
				return c.do(&message.Execute{QueryId: p.PreparedQueryId, ResultMetadataId: metaID, Options: &message.QueryOptions{
					Consistency: primitive.ConsistencyLevelOne, SkipMetadata: true,
					PositionalValues: []*primitive.Value{primitive.NewValue(be32(1))},
				}}).Body.Message
			}
			p1 := prepare()
			if p1.ResultMetadata.ColumnCount != 2 {
				t.Fatalf("prepared columns %d", p1.ResultMetadata.ColumnCount)
			}
			var old []byte
			if v >= primitive.ProtocolVersion5 {
				old = p1.ResultMetadataId
			}
			if _, ok := exec(p1, old).(*message.RowsResult); !ok {
				t.Fatal("EXECUTE before ALTER failed")
			}
			if m := c.query("ALTER TABLE ks.t ADD b int", nil); isError(m) {
				t.Fatalf("ALTER: %v", m)
			}
			u, ok := exec(p1, old).(*message.Unprepared)
			if !ok || !bytes.Equal(u.Id, p1.PreparedQueryId) {
				t.Fatalf("EXECUTE after ALTER: want UNPREPARED with the id, got %v", u)
			}
			p2 := prepare()
			if p2.ResultMetadata.ColumnCount != 3 || !bytes.Equal(p2.PreparedQueryId, p1.PreparedQueryId) {
				t.Fatalf("re-PREPARE: %d columns, id %x", p2.ResultMetadata.ColumnCount, p2.PreparedQueryId)
			}
			if v < primitive.ProtocolVersion5 {
				r, ok := exec(p2, nil).(*message.RowsResult)
				if !ok || len(r.Data) != 1 || len(r.Data[0]) != 3 {
					t.Fatalf("EXECUTE after re-PREPARE: %v", r)
				}
				return
			}
			if bytes.Equal(p2.ResultMetadataId, p1.ResultMetadataId) {
				t.Fatal("v5: result metadata id unchanged by ALTER TABLE ADD")
			}
			// A client that missed the change still sends the old id.
			r, ok := exec(p2, p1.ResultMetadataId).(*message.RowsResult)
			if !ok || r.Metadata.Flags()&primitive.RowsFlagMetadataChanged == 0 ||
				!bytes.Equal(r.Metadata.NewResultMetadataId, p2.ResultMetadataId) || len(r.Metadata.Columns) != 3 {
				t.Fatalf("v5 stale id: want METADATA_CHANGED with the new id and 3 columns, got %v", r)
			}
			r, ok = exec(p2, p2.ResultMetadataId).(*message.RowsResult)
			if !ok || r.Metadata.Flags()&primitive.RowsFlagMetadataChanged != 0 || len(r.Data[0]) != 3 {
				t.Fatalf("v5 current id: %v", r)
			}
		})
	}
}

func isError(m message.Message) bool {
	_, ok := m.(message.Error)
	return ok
}

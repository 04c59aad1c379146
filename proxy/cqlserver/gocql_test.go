package cqlserver

import (
	"context"
	"net"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/engine"
)

// TestGocql runs the real gocql driver against an in-process server over
// the embedded (in-memory Pebble) backend.
func TestGocql(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server and a driver")
	}
	ctx := context.Background()
	emb, err := stores.Embedded(ctx, embedded.Config{}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServerWith(t, emb, nil, nil)
	t.Cleanup(func() { emb.Close() })
	addr := ts.listen(t)
	host, portText, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portText)

	for i, proto := range []int{0, 3, 4} { // 0: gocql negotiates
		t.Run("proto"+strconv.Itoa(proto), func(t *testing.T) {
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
			defer sess.Close()

			ks := "gk" + strconv.Itoa(i)
			if err := sess.Query("CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec(); err != nil {
				t.Fatal(err)
			}
			if err := sess.Query("CREATE TABLE " + ks + ".kv (k int, c int, v text, PRIMARY KEY (k, c))").Exec(); err != nil {
				t.Fatal(err)
			}
			// Prepared (gocql prepares statements with bind markers) and
			// unprepared inserts.
			for c := 0; c < 25; c++ {
				if err := sess.Query("INSERT INTO "+ks+".kv (k, c, v) VALUES (?, ?, ?)", 1, c, "v"+strconv.Itoa(c)).Exec(); err != nil {
					t.Fatal(err)
				}
			}
			if err := sess.Query("INSERT INTO " + ks + ".kv (k, c, v) VALUES (2, 0, 'literal')").Exec(); err != nil {
				t.Fatal(err)
			}
			var v string
			if err := sess.Query("SELECT v FROM "+ks+".kv WHERE k = ? AND c = ?", 1, 7).Scan(&v); err != nil || v != "v7" {
				t.Fatalf("select prepared: %q %v", v, err)
			}
			if err := sess.Query("SELECT v FROM " + ks + ".kv WHERE k = 2 AND c = 0").Scan(&v); err != nil || v != "literal" {
				t.Fatalf("select unprepared: %q %v", v, err)
			}
			// Paging with a page size smaller than the partition.
			iter := sess.Query("SELECT c FROM "+ks+".kv WHERE k = ?", 1).PageSize(4).Iter()
			var got []int
			var c int
			for iter.Scan(&c) {
				got = append(got, c)
			}
			if err := iter.Close(); err != nil {
				t.Fatal(err)
			}
			if !sort.IntsAreSorted(got) || len(got) != 25 {
				t.Errorf("paged rows: %v", got)
			}
			// Batch and schema metadata (system_schema through the driver).
			b := sess.NewBatch(gocql.LoggedBatch)
			b.Query("INSERT INTO "+ks+".kv (k, c, v) VALUES (?, ?, ?)", 3, 1, "b")
			b.Query("INSERT INTO " + ks + ".kv (k, c, v) VALUES (3, 2, 'c')")
			if err := sess.ExecuteBatch(b); err != nil {
				t.Fatal(err)
			}
			var n int
			if err := sess.Query("SELECT COUNT(*) FROM "+ks+".kv WHERE k = ?", 3).Scan(&n); err != nil || n != 2 {
				t.Fatalf("count after batch: %d %v", n, err)
			}
			md, err := sess.KeyspaceMetadata(ks)
			if err != nil {
				t.Fatal(err)
			}
			tm := md.Tables["kv"]
			if tm == nil || len(tm.PartitionKey) != 1 || tm.PartitionKey[0].Name != "k" || len(tm.ClusteringColumns) != 1 {
				t.Errorf("table metadata %+v", tm)
			}
			var release string
			if err := sess.Query("SELECT release_version FROM system.local").Scan(&release); err != nil || release != "5.0.0-test" {
				t.Errorf("release_version %q %v", release, err)
			}
		})
	}
}

var _ bindings.Backend = (*engine.Engine)(nil)

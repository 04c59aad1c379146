package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/mirror"
)

// TestServeMirrorHBaseToEmbedded: dohyo serve on the real HBase with the
// keyspace mirrored to an embedded store. Concurrent writes and reads
// through gocql; afterwards the mirror holds exactly the primary's rows
// and write times (full scans compared), every sampled read compared
// equal, and /admin/mirror and /metrics say so.
func TestServeMirrorHBaseToEmbedded(t *testing.T) {
	zk := os.Getenv("DOHYO_TEST_HBASE_ZK")
	if zk == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("DOHYO_TEST_HBASE_ZK is not set: CI runs the mirror test on HBase (run via make test)")
		}
		t.Skip("DOHYO_TEST_HBASE_ZK not set")
	}
	const ks = "mir_ks"
	ddl := []string{
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + ks + ".t (k int, c int, v text, PRIMARY KEY (k, c))",
	}
	dir := t.TempDir()
	mirrorURL := "embedded://" + dir
	func() { // the mirror holds the schema before it starts (DDL is not mirrored)
		b, err := stores.Embedded(t.Context(), embedded.Config{Dir: dir}, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		for _, q := range ddl {
			if _, err := b.Execute(t.Context(), &bindings.Request{Query: q}); err != nil {
				t.Fatal(err)
			}
		}
	}()
	p := startServe(t, "--backend", fmt.Sprintf("hbase://%s?salt=4&catalog=mir%d", zk, time.Now().UnixNano()),
		"--mirror", ks+"="+mirrorURL, "--mirror-read-sample", "1")
	s := gocqlSession(t, p.CQLAddr, 4, nil)
	for _, q := range ddl {
		mustExec(t, s, q)
	}
	const writers, perWriter = 8, 40
	mirrorWorkload(t, s, ks, writers, perWriter, func(k int) []cqlStmt {
		return []cqlStmt{
			{"INSERT INTO " + ks + ".t (k, c, v) VALUES (?, ?, ?)", []any{k, 1, "first"}},
			{"UPDATE " + ks + ".t SET v = ? WHERE k = ? AND c = ?", []any{"second", k, 1}},
			{"INSERT INTO " + ks + ".t (k, c, v) VALUES (?, ?, ?)", []any{k, 2, "other"}},
			{"SELECT v FROM " + ks + ".t WHERE k = ?", []any{k}},
		}
	})
	b := s.NewBatch(gocql.LoggedBatch)
	b.Query("INSERT INTO "+ks+".t (k, c, v) VALUES (?, ?, ?)", 9999, 1, "batched")
	b.Query("UPDATE "+ks+".t SET v = ? WHERE k = ? AND c = ?", "batched too", 0, 1)
	if err := s.ExecuteBatch(b); err != nil {
		t.Fatal(err)
	}
	primary := scanRows(t, func(q string) ([][]any, error) {
		it := s.Query(q).Iter()
		var out [][]any
		var k, c int
		var v string
		var wt int64
		for it.Scan(&k, &c, &v, &wt) {
			out = append(out, []any{k, c, v, wt})
		}
		return out, it.Close()
	}, ks)
	want := writers*perWriter*2 - writers*perWriter/10 + 1
	if len(primary) != want {
		t.Fatalf("primary has %d rows, want %d", len(primary), want)
	}
	// Every request applied: poll the status until the mirror caught up.
	var st mirror.Status
	deadline := time.Now().Add(60 * time.Second)
	for {
		st = mirrorStatus(t, p.HTTPAddr)
		if st.Applied+st.Failed+st.Dropped == st.Sent && st.Queued == 0 && st.Sent > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("mirror did not catch up within 60s: %+v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
	reads := int64(writers*perWriter) + 1 // and the full scan above
	if st.Failed != 0 || st.Dropped != 0 || st.Mismatches != 0 || st.Compared != reads || st.State != mirror.StateOK {
		t.Fatalf("mirror status %+v: want no failure, drop or mismatch and %d reads compared", st, reads)
	}
	checkMirrorReport(t, p.HTTPAddr, mirrorURL, st)
	metrics := httpGet(t, "http://"+p.HTTPAddr+"/metrics")
	if !strings.Contains(metrics, fmt.Sprintf("dohyo_mirror_applied_total{mirror=%q} %d", mirrorURL, st.Applied)) {
		t.Errorf("/metrics lacks the applied count %d of %s", st.Applied, mirrorURL)
	}
	p.stop(t) // releases the mirror's data directory
	mb, err := stores.Embedded(t.Context(), embedded.Config{Dir: dir}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer mb.Close()
	copied := scanRows(t, func(q string) ([][]any, error) {
		res, err := mb.Execute(t.Context(), &bindings.Request{Query: q, Consistency: bindings.One})
		if err != nil {
			return nil, err
		}
		var out [][]any
		for _, r := range res.Rows {
			out = append(out, []any{be32i(r[0]), be32i(r[1]), string(r[2]), be64i(r[3])})
		}
		return out, nil
	}, ks)
	if !slices.Equal(primary, copied) {
		t.Fatalf("mirror differs from the primary: %d vs %d rows; first primary %q, first mirror %q",
			len(copied), len(primary), first(primary), first(copied))
	}
}

// cqlStmt is one statement of a test workload.
type cqlStmt struct {
	stmt string
	args []any
}

// mirrorWorkload runs, from writers concurrent clients, the statements
// of every key k in [0, writers*perWriter), and deletes row (k, 2) of
// every tenth key.
func mirrorWorkload(t *testing.T, s *gocql.Session, ks string, writers, perWriter int, stmts func(k int) []cqlStmt) {
	t.Helper()
	concurrently(t, writers, func(w int) error {
		for i := 0; i < perWriter; i++ {
			k := w*perWriter + i
			for _, q := range stmts(k) {
				if err := s.Query(q.stmt, q.args...).Exec(); err != nil {
					return fmt.Errorf("%s: %w", q.stmt, err)
				}
			}
			if k%10 == 0 {
				if err := s.Query("DELETE FROM "+ks+".t WHERE k = ? AND c = 2", k).Exec(); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// concurrently runs fn(0..n-1) in n goroutines (clients) and fails the
// test with the first error any of them returned.
func concurrently(t *testing.T, n int, fn func(w int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			if err := fn(w); err != nil {
				errs <- err
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a client saw an error: %v", err)
	}
}

// scanRows reads every row with its write time, rendered and sorted.
func scanRows(t *testing.T, query func(string) ([][]any, error), ks string) []string {
	t.Helper()
	rows, err := query("SELECT k, c, v, writetime(v) FROM " + ks + ".t")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, fmt.Sprint(r...))
	}
	slices.Sort(out)
	return out
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func be32i(b []byte) int {
	return int(int32(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])))
}

func be64i(b []byte) int64 {
	var v uint64
	for _, x := range b {
		v = v<<8 | uint64(x)
	}
	return int64(v)
}

func mirrorStatus(t *testing.T, addr string) mirror.Status {
	t.Helper()
	var body struct{ Mirrors []mirror.Status }
	if err := json.Unmarshal([]byte(httpGet(t, "http://"+addr+"/admin/mirror")), &body); err != nil || len(body.Mirrors) != 1 {
		t.Fatalf("/admin/mirror: %v %+v", err, body)
	}
	return body.Mirrors[0]
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, res.StatusCode, b)
	}
	return string(b)
}

package main

import (
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/internal/testtools"
)

// TestCaptureThreeWays records one workload three ways and checks that
// the three captures agree statement by statement ("agree"): a gocql client
// talks to `dohyo serve --capture-dir` relaying to the test Cassandra,
// tcpdump records the client's connections to dohyo on lo, and Cassandra's
// full query log (enabled through nodetool) records what reached it. The
// pcap and the log are imported with `dohyo capture import`. Then the
// pcap's import is replayed on HBase ("replay-on-hbase",
// capture_agree_replay_test.go).
//
// What each source holds (capture_agree_helpers_test.go compares only the
// fields both sides have):
//   - dohyo's capture and the pcap: every field — text, prepared or not,
//     values, keyspace, consistency, serial consistency, page size, paging
//     state, client timestamp, batch position and type, outcome (error
//     code, result kind, rows, digest, more pages) — and sessions, each
//     with its order. Latency is measured at different points (dohyo's
//     socket, packets) and is not compared.
//   - the full query log lacks errors (failed statements are not logged),
//     outcomes, sessions and whether a statement was prepared (the
//     importer infers it from bound values; gocql prepares literal DML
//     too). It cannot tell SERIAL from an absent serial consistency, and
//     it carries a generated timestamp when the client sent none. Its
//     keyspace is that of the relay's connection to Cassandra, which
//     follows the client's USE. Its order is the one global order of a
//     workload run one statement at a time.
//
// Only the workload's statements are compared: the drivers' own queries
// (topology, schema) and the USE statements dohyo's relay sends on its
// pooled connections are not the workload's.
func TestCaptureThreeWays(t *testing.T) {
	addr, script, jmx := fqlEnv(t)
	tcpdump := testtools.Tcpdump(t)
	ks := fmt.Sprintf("agree%d", time.Now().UnixNano())
	direct := directCassandra(t, addr)
	for _, q := range agreeSchema(ks) {
		mustExec(t, direct, q)
	}
	t.Cleanup(func() { _ = direct.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })

	fqlDir, disable := enableFQL(t, script, jmx)

	capDir := filepath.Join(t.TempDir(), "served")
	p := startServe(t, "--backend", "cassandra://"+addr, "--capture-dir", capDir)
	_, port, _ := net.SplitHostPort(p.CQLAddr)
	pcapFile, stopDump := startTcpdump(t, tcpdump, port)

	w := runAgreeWorkload(t, p.CQLAddr, ks)
	waitCaptured(t, pcapFile, port, w.last, 1)
	stopDump()
	p.stop(t)
	disable() // closes the log: every entry is on disk

	pcapDir := filepath.Join(t.TempDir(), "pcap")
	if out, err := runCLI(t, "", "capture", "import", "--pcap", pcapFile, "--port", port, "--out", pcapDir); err != nil {
		t.Fatalf("import --pcap: %v\n%s", err, out)
	} else {
		t.Logf("import --pcap:\n%s", out)
	}
	fqlCap := filepath.Join(t.TempDir(), "fqlcap")
	if out, err := runCLI(t, "", "capture", "import", "--fql", fqlDir, "--out", fqlCap); err != nil {
		t.Fatalf("import --fql: %v\n%s", err, out)
	} else {
		t.Logf("import --fql:\n%s", out)
	}

	served := w.filter(readRecords(t, capDir))
	wired := w.filter(readRecords(t, pcapDir))
	logged := w.filter(readRecords(t, fqlCap))
	t.Run("agree", func(t *testing.T) { agreeThreeWays(t, w, served, wired, logged) })
	data := dumpQueries(t, direct, ks, agreeTables)
	t.Run("replay-on-hbase", func(t *testing.T) { replayImportOnHBase(t, w, pcapFile, port, served, data) })
}

// agreeThreeWays checks the three captures' records against each other.
func agreeThreeWays(t *testing.T, w *agreeWorkload, served, wired, logged []*capture.Record) {
	t.Logf("workload: %d records (%d statements, %d erred); dohyo capture %d, pcap %d, full query log %d",
		w.records, w.statements, w.errors, len(served), len(wired), len(logged))
	if len(served) != w.records {
		t.Errorf("dohyo's capture holds %d of the workload's %d records", len(served), w.records)
	}
	if n := countErrs(served); n != w.errors {
		t.Errorf("dohyo's capture has %d erred records, the workload had %d", n, w.errors)
	}
	for _, d := range agreeServedWire(served, wired) {
		t.Errorf("dohyo capture vs pcap: %s", d)
	}
	for _, d := range agreeServedLog(served, logged) {
		t.Errorf("dohyo capture vs full query log: %s", d)
	}
}

// agreeSchema is the workload's keyspace and tables, created before the
// recording.
func agreeSchema(ks string) []string {
	return []string{
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + ks + ".kv (k int PRIMARY KEY, v text, n bigint)",
		"CREATE TABLE " + ks + ".ck (p int, c int, v text, PRIMARY KEY (p, c))",
		"CREATE TABLE " + ks + ".cnt (k int PRIMARY KEY, c counter)",
		"CREATE TABLE " + ks + ".lwt (k int PRIMARY KEY, v text)",
	}
}

// agreeTables dump the workload's tables, write times included (not of
// the LWTs' table: a conditional write's timestamp is its Paxos ballot,
// the server's clock).
var agreeTables = []string{
	"SELECT k, v, n, writetime(v) FROM %s.kv",
	"SELECT p, c, v, writetime(v) FROM %s.ck",
	"SELECT k, c FROM %s.cnt",
	"SELECT k, v FROM %s.lwt",
}

// agreeWorkload is what runAgreeWorkload sent: the statement texts (to
// tell the workload's records from the drivers' own), how many records
// it makes and how many of them err.
type agreeWorkload struct {
	ks         string
	texts      map[string]bool
	statements int // requests sent (a batch is one, each page one)
	records    int // capture records (a batch child is one)
	errors     int // records that erred
	last       string
}

// run executes q on s and counts it; wantErr says it must fail.
func (w *agreeWorkload) run(t *testing.T, q *gocql.Query, text string, wantErr bool) {
	t.Helper()
	w.texts[text] = true
	w.statements++
	w.records++
	err := q.Exec()
	if wantErr != (err != nil) {
		t.Fatalf("%s: error %v, want an error: %v", text, err, wantErr)
	}
	if err != nil {
		w.errors++
	}
}

// batch executes b (children texts) and counts its children.
func (w *agreeWorkload) batch(t *testing.T, s *gocql.Session, b *gocql.Batch, wantErr bool) {
	t.Helper()
	for _, e := range b.Entries {
		w.texts[e.Stmt] = true
	}
	w.statements++
	w.records += len(b.Entries)
	err := s.ExecuteBatch(b)
	if wantErr != (err != nil) {
		t.Fatalf("batch: error %v, want an error: %v", err, wantErr)
	}
	if err != nil {
		w.errors += len(b.Entries)
	}
}

// runAgreeWorkload runs ~300 statements one at a time on two gocql
// sessions through dohyo at addr: session A (protocol v4, USE ks,
// unqualified names) and session B (protocol v3, Snappy, qualified
// names). Prepared and unprepared statements (gocql prepares every
// SELECT/INSERT/UPDATE/DELETE; a statement opening with a comment is sent
// as a QUERY), nulls, five consistencies, logged, unlogged and counter
// batches with prepared and literal children, LWTs with SERIAL and
// LOCAL_SERIAL, a paged read, and statements that fail on Cassandra.
// The sessions touch rows of their own, so that a replay, which runs
// sessions side by side, gives each read the answer it had.
func runAgreeWorkload(t *testing.T, addr, ks string) *agreeWorkload {
	t.Helper()
	w := &agreeWorkload{ks: ks, texts: map[string]bool{}}
	a := gocqlSession(t, addr, 4, nil, func(c *gocql.ClusterConfig) { c.Keyspace = ks; c.NumConns = 1 })
	b := gocqlSession(t, addr, 3, gocql.SnappyCompressor{}, func(c *gocql.ClusterConfig) { c.NumConns = 1 })
	cons := []gocql.Consistency{gocql.One, gocql.Quorum, gocql.LocalOne, gocql.All, gocql.LocalQuorum}

	// Unqualified statements name the run's keyspace in a comment, so
	// that the workload's records are told apart from other traffic on
	// the server by their text alone.
	tag := " /* " + ks + " */"
	ins := "INSERT INTO kv (k, v, n) VALUES (?, ?, ?)" + tag
	sel := "SELECT v, n FROM " + ks + ".kv WHERE k = ?"
	lit := "/* literal */ INSERT INTO kv (k, v, n) VALUES (%d, 'lit', %d)" + tag
	upd := "/* unprepared */ UPDATE " + ks + ".kv SET v = 'u' WHERE k = %d"
	ckIns := "INSERT INTO ck (p, c, v) VALUES (?, ?, ?)" + tag
	for r := 0; r < 20; r++ {
		for j := 0; j < 5; j++ {
			k := r*10 + j
			var v any = fmt.Sprintf("v%d", k)
			if j == 4 {
				v = nil
			}
			w.run(t, a.Query(ins, k, v, int64(k)*7).Consistency(cons[(r+j)%len(cons)]), ins, false)
		}
		q := fmt.Sprintf(lit, 1000+r, r)
		w.run(t, a.Query(q), q, false)
		// Session B's rows: one it updates (a row), one it never writes.
		q = fmt.Sprintf(upd, 100000+r*10)
		w.run(t, b.Query(q).Consistency(gocql.Quorum), q, false)
		for j := 0; j < 2; j++ {
			w.run(t, b.Query(sel, 100000+r*10+j).Consistency(cons[j]), sel, false)
		}

		bt := gocql.LoggedBatch
		if r%2 == 1 {
			bt = gocql.UnloggedBatch
		}
		bb := a.NewBatch(bt)
		bb.Query(ckIns, r%3, r, fmt.Sprint("b", r))
		bb.Query(ckIns, r%3, 100+r, nil)
		bb.Query(fmt.Sprintf("INSERT INTO ck (p, c, v) VALUES (%d, %d, 'literal-child')", r%3, 200+r) + tag)
		bb.SetConsistency(cons[r%len(cons)])
		w.batch(t, a, bb, false)

		if r%5 == 4 {
			agreeExtras(t, w, a, b, r)
		}
	}
	// Statements that fail on Cassandra: a missing table, a bad literal
	// (QUERY), invalid UTF-8 bound to text (EXECUTE), a counter update
	// in a logged batch.
	for _, q := range []string{
		"/* error */ SELECT * FROM " + ks + ".nosuch",
		"/* error */ INSERT INTO " + ks + ".kv (k, v) VALUES ('notanint', 'x')",
	} {
		w.run(t, b.Query(q), q, true)
	}
	w.run(t, a.Query(ins, 9999, "\xff\xfe", int64(1)), ins, true)
	bad := a.NewBatch(gocql.LoggedBatch)
	bad.Query("UPDATE cnt SET c = c + 1 WHERE k = 1" + tag)
	bad.Query(ins, 9998, "x", int64(2))
	w.batch(t, a, bad, true)

	w.last = "/* end */ SELECT v FROM " + ks + ".kv WHERE k = 100000"
	w.run(t, b.Query(w.last), w.last, false)
	return w
}

// agreeExtras: a counter batch, LWTs and a paged read, every fifth round.
func agreeExtras(t *testing.T, w *agreeWorkload, a, b *gocql.Session, r int) {
	t.Helper()
	ks := w.ks
	tag := " /* " + ks + " */"
	cb := b.NewBatch(gocql.CounterBatch)
	cb.Query("UPDATE "+ks+".cnt SET c = c + ? WHERE k = ?", int64(r), 1)
	cb.Query("UPDATE " + ks + ".cnt SET c = c - 1 WHERE k = 2")
	w.batch(t, b, cb, false)

	// LWTs: session A inserts its row twice (LOCAL_SERIAL; the second
	// is not applied), session B inserts its own (SERIAL) and updates it.
	for _, c := range []struct {
		s    *gocql.Session
		q    string
		args []any
		sc   gocql.SerialConsistency
	}{
		{a, "INSERT INTO lwt (k, v) VALUES (?, ?) IF NOT EXISTS" + tag, []any{r, "a"}, gocql.LocalSerial},
		{a, "INSERT INTO lwt (k, v) VALUES (?, ?) IF NOT EXISTS" + tag, []any{r, "again"}, gocql.LocalSerial},
		{b, "INSERT INTO " + ks + ".lwt (k, v) VALUES (?, ?) IF NOT EXISTS", []any{1000 + r, "b"}, gocql.Serial},
		{b, "UPDATE " + ks + ".lwt SET v = ? WHERE k = ? IF v = ?", []any{"cas", 1000 + r, "b"}, gocql.Serial},
	} {
		w.texts[c.q] = true
		w.statements++
		w.records++
		if _, err := c.s.Query(c.q, c.args...).SerialConsistency(c.sc).MapScanCAS(map[string]any{}); err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
	}

	// 10 rows of partition 50+r read 3 at a time: 4 requests, the
	// last three continuation pages with Cassandra's paging state.
	for c := 0; c < 10; c++ {
		q := "INSERT INTO ck (p, c, v) VALUES (?, ?, ?)" + tag
		w.run(t, a.Query(q, 50+r, c, "page"), q, false)
	}
	paged := "SELECT c, v FROM ck WHERE p = ?" + tag
	w.texts[paged] = true
	it := a.Query(paged, 50+r).PageSize(3).Iter()
	n := 0
	for c, v := 0, ""; it.Scan(&c, &v); {
		n++
	}
	if err := it.Close(); err != nil || n != 10 {
		t.Fatalf("paged read: %d rows, %v; want 10", n, err)
	}
	w.statements += 4
	w.records += 4
}

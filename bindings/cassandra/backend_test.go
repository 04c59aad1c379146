package cassandra_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/cassandra"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

func intVal(n int32) bindings.Value {
	return bindings.Value{Bytes: []byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}}
}

func formatRows(res *bindings.Result) []string {
	var out []string
	for _, r := range res.Rows {
		s := ""
		for i, c := range r {
			if i > 0 {
				s += " | "
			}
			s += cql.FormatValue(res.Columns[i].Type, c)
		}
		out = append(out, s)
	}
	return out
}

func TestSchemaDiscovery(t *testing.T) {
	b := openBackend(t, testConfig(t))
	ks := testKeyspace(t, b, 1)
	before, err := b.Catalog(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if before.Keyspace(ks) == nil {
		t.Fatalf("keyspace %s missing from the catalog", ks)
	}
	for _, name := range before.KeyspaceNames() {
		if schema.IsSystemKeyspace(name) {
			t.Errorf("system keyspace %s in the catalog", name)
		}
	}
	exec(t, b, ks, "CREATE TYPE addr (street text, zip int)")
	exec(t, b, ks, `CREATE TABLE t (p1 int, p2 text, c1 timestamp, c2 int, s set<int> static,
		l list<text>, m map<text, frozen<list<int>>>, a frozen<addr>, tp tuple<int, text>, v blob,
		PRIMARY KEY ((p1, p2), c1, c2)) WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC)
		AND comment = 'hello' AND default_time_to_live = 60 AND gc_grace_seconds = 3600`)
	exec(t, b, ks, "CREATE TABLE counts (k int PRIMARY KEY, n counter)")
	exec(t, b, ks, "ALTER TABLE t DROP v")

	cat, err := b.Catalog(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if cat.Version == before.Version || cat.Version == "" {
		t.Errorf("catalog version: got %q after DDL, %q before", cat.Version, before.Version)
	}
	k := cat.Keyspace(ks)
	if k == nil || k.Replication["class"] != "org.apache.cassandra.locator.SimpleStrategy" || k.Replication["replication_factor"] != "1" || !k.DurableWrites {
		t.Fatalf("keyspace: got %+v", k)
	}
	tab := cat.Table(ks, "t")
	if tab == nil {
		t.Fatal("table t missing")
	}
	type col struct {
		name, typ string
		kind      schema.ColumnKind
		pos       int
		desc      bool
	}
	var got []col
	for _, c := range tab.Columns {
		got = append(got, col{c.Name, c.Type.String(), c.Kind, c.Position, c.Desc})
	}
	want := []col{
		{"p1", "int", schema.PartitionKey, 0, false},
		{"p2", "text", schema.PartitionKey, 1, false},
		{"c1", "timestamp", schema.Clustering, 0, true},
		{"c2", "int", schema.Clustering, 1, false},
		{"s", "set<int>", schema.Static, -1, false},
		{"a", "frozen<addr>", schema.Regular, -1, false},
		{"l", "list<text>", schema.Regular, -1, false},
		{"m", "map<text, frozen<list<int>>>", schema.Regular, -1, false},
		{"tp", "tuple<int, text>", schema.Regular, -1, false},
	}
	if !slices.Equal(got, want) {
		t.Errorf("columns:\n got  %v\n want %v", got, want)
	}
	if len(tab.PartitionKey) != 2 || len(tab.Clustering) != 2 {
		t.Errorf("key columns: got %d partition, %d clustering", len(tab.PartitionKey), len(tab.Clustering))
	}
	if a := tab.Column("a"); a == nil || !slices.Equal(a.Type.Fields, []string{"street", "zip"}) || len(a.Type.Elems) != 2 || a.Type.Elems[1].Kind != cql.KindInt {
		t.Errorf("UDT column not resolved: %+v", tab.Column("a"))
	}
	if tab.Params.Comment != "hello" || tab.Params.DefaultTimeToLive != 60 || tab.Params.GCGraceSeconds != 3600 {
		t.Errorf("params: got comment %q, ttl %d, gc %d", tab.Params.Comment, tab.Params.DefaultTimeToLive, tab.Params.GCGraceSeconds)
	}
	if tab.Options["comment"] != "'hello'" {
		t.Errorf("options: comment = %q", tab.Options["comment"])
	}
	if d := tab.Dropped["v"]; d == nil || d.DroppedAt == 0 || d.Type == nil || d.Type.Kind != cql.KindBlob {
		t.Errorf("dropped column v: got %+v", d)
	}
	if tab.ID == "" || tab.Counter {
		t.Errorf("table id %q, counter %v", tab.ID, tab.Counter)
	}
	if c := cat.Table(ks, "counts"); c == nil || !c.Counter {
		t.Errorf("counter table: got %+v", c)
	}

	// Cached until the next DDL through the backend.
	again, err := b.Catalog(t.Context())
	if err != nil || again != cat {
		t.Errorf("catalog not cached: %p vs %p (%v)", again, cat, err)
	}
	exec(t, b, ks, "DROP TABLE counts")
	after, err := b.Catalog(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if after.Table(ks, "counts") != nil || after.Table(ks, "t") == nil {
		t.Errorf("after DROP TABLE: tables %v", after.Keyspace(ks).TableNames())
	}
}

// TestSchemaRefresh checks that schema changes made by another client show
// up through the periodic refresh.
func TestSchemaRefresh(t *testing.T) {
	cfg := testConfig(t)
	cfg.SchemaRefresh = 100 * time.Millisecond
	b := openBackend(t, cfg)
	other := openBackend(t, testConfig(t))
	ks := testKeyspace(t, other, 1)
	if _, err := b.Catalog(t.Context()); err != nil {
		t.Fatal(err)
	}
	exec(t, other, ks, "CREATE TABLE seen (k int PRIMARY KEY)")
	deadline := time.Now().Add(20 * time.Second)
	for {
		cat, err := b.Catalog(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if cat.Table(ks, "seen") != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("table created by another client never appeared")
		}
		select {
		case <-t.Context().Done():
			t.Fatal(t.Context().Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func TestErrors(t *testing.T) {
	b := openBackend(t, testConfig(t))
	ks := testKeyspace(t, b, 1)
	rf3 := testKeyspace(t, b, 3) // one node: QUORUM is unreachable
	exec(t, b, ks, "CREATE TABLE t (k int PRIMARY KEY, v text)")
	exec(t, b, rf3, "CREATE TABLE t (k int PRIMARY KEY, v text)")
	cases := []struct {
		name  string
		ks    string
		query string
		cl    bindings.Consistency
		check func(*bindings.Error) string // "" when fine
	}{
		{"syntax", ks, "SELEC * FROM t", bindings.One, code(bindings.CodeSyntaxError)},
		{"syntax dml", ks, "SELECT * FROM t WHERE", bindings.One, code(bindings.CodeSyntaxError)},
		{"unknown table", ks, "SELECT * FROM nope", bindings.One, code(bindings.CodeInvalid)},
		{"unknown keyspace", "", "SELECT * FROM nope_ks.t", bindings.One, code(bindings.CodeInvalid)},
		{"missing session keyspace", ks + "_nope", "SELECT * FROM t", bindings.One, code(bindings.CodeInvalid)},
		{"already exists", ks, "CREATE TABLE t (k int PRIMARY KEY)", bindings.One, func(e *bindings.Error) string {
			if e.Code != bindings.CodeAlreadyExists || e.Keyspace != ks || e.Table != "t" {
				return fmt.Sprintf("got %#v", e)
			}
			return ""
		}},
		{"unavailable read", rf3, "SELECT * FROM t WHERE k = 1", bindings.Quorum, unavailable(bindings.Quorum, 2, 1)},
		{"unavailable write", rf3, "INSERT INTO t (k, v) VALUES (1, 'a')", bindings.All, unavailable(bindings.All, 3, 1)},
		{"read at ANY", ks, "SELECT * FROM t WHERE k = 1", bindings.Any, code(bindings.CodeInvalid)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := b.Execute(t.Context(), &bindings.Request{Keyspace: c.ks, Query: c.query, Consistency: c.cl})
			var e *bindings.Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want a *bindings.Error", err)
			}
			if msg := c.check(e); msg != "" {
				t.Error(msg)
			}
			if e.Message == "" {
				t.Error("empty message")
			}
		})
	}

	// The caller's deadline ends a request as a timeout of the right kind.
	ctx, cancel := context.WithTimeout(t.Context(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	_, err := b.Execute(ctx, &bindings.Request{Keyspace: ks, Query: "SELECT * FROM t", Consistency: bindings.One})
	var e *bindings.Error
	if !errors.As(err, &e) || e.Code != bindings.CodeReadTimeout {
		t.Errorf("expired deadline on a read: got %v, want ReadTimeout", err)
	}
	_, err = b.Execute(ctx, &bindings.Request{Keyspace: ks, Query: "INSERT INTO t (k) VALUES (1)", Consistency: bindings.One})
	if !errors.As(err, &e) || e.Code != bindings.CodeWriteTimeout || e.WriteType != "SIMPLE" {
		t.Errorf("expired deadline on a write: got %v, want WriteTimeout SIMPLE", err)
	}
}

func code(c bindings.ErrorCode) func(*bindings.Error) string {
	return func(e *bindings.Error) string {
		if e.Code != c {
			return fmt.Sprintf("got %v: %s, want %v", e.Code, e.Message, c)
		}
		return ""
	}
}

func unavailable(cl bindings.Consistency, required, alive int32) func(*bindings.Error) string {
	return func(e *bindings.Error) string {
		if e.Code != bindings.CodeUnavailable || e.Consistency != cl || e.BlockFor != required || e.Received != alive {
			return fmt.Sprintf("got %#v, want Unavailable %v required %d alive %d", e, cl, required, alive)
		}
		return ""
	}
}

func TestPaging(t *testing.T) {
	b := openBackend(t, testConfig(t))
	ks := testKeyspace(t, b, 1)
	exec(t, b, ks, "CREATE TABLE t (k int, c int, v text, PRIMARY KEY (k, c))")
	for i := range 25 {
		exec(t, b, ks, "INSERT INTO t (k, c, v) VALUES (?, ?, ?)", intVal(int32(i%3)), intVal(int32(i)), bindings.Value{Bytes: fmt.Appendf(nil, "v%d", i)})
	}
	for _, q := range []string{"SELECT * FROM t", "SELECT c, v FROM t WHERE k = 1 ORDER BY c DESC"} {
		whole := exec(t, b, ks, q)
		if whole.PagingState != nil {
			t.Errorf("%s: unpaged result has a paging state", q)
		}
		var paged []string
		req := &bindings.Request{Keyspace: ks, Query: q, Consistency: bindings.One, PageSize: 4}
		pages := 0
		for {
			res, err := b.Execute(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			if len(res.Rows) > 4 {
				t.Fatalf("%s: page of %d rows", q, len(res.Rows))
			}
			paged = append(paged, formatRows(res)...)
			if res.PagingState == nil {
				break
			}
			r := *req
			r.PagingState = res.PagingState
			req = &r
		}
		if want := formatRows(whole); !slices.Equal(paged, want) {
			t.Errorf("%s: paged rows\n got  %v\n want %v", q, paged, want)
		}
		if min := (len(whole.Rows) + 3) / 4; pages < min {
			t.Errorf("%s: %d pages for %d rows", q, pages, len(whole.Rows))
		}
	}
}

// TestRawValues checks that values and cells pass through as bytes: null
// versus empty, unset, named values, tuples (which gocql would split) and
// UDTs.
func TestRawValues(t *testing.T) {
	b := openBackend(t, testConfig(t))
	ks := testKeyspace(t, b, 1)
	exec(t, b, ks, "CREATE TYPE pt (x int, y int)")
	exec(t, b, ks, "CREATE TABLE t (k int PRIMARY KEY, s text, i int, tp tuple<int, int>, u frozen<pt>, l list<frozen<tuple<int, text>>>)")
	null := bindings.Value{}
	empty := bindings.Value{Bytes: []byte{}}
	tupleOfNulls := bindings.Value{Bytes: []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}
	exec(t, b, ks, "INSERT INTO t (k, s, i, tp) VALUES (?, ?, ?, ?)", intVal(1), empty, empty, tupleOfNulls)
	exec(t, b, ks, "INSERT INTO t (k, s, i, tp) VALUES (?, ?, ?, ?)", intVal(2), null, null, null)
	exec(t, b, ks, "INSERT INTO t (k, s) VALUES (?, ?)", intVal(3), bindings.Value{Bytes: []byte("x")})
	exec(t, b, ks, "UPDATE t SET s = ?, i = ? WHERE k = ?", bindings.Value{Unset: true}, intVal(7), intVal(3))
	if _, err := b.Execute(t.Context(), &bindings.Request{Keyspace: ks, Consistency: bindings.One,
		Query:  "UPDATE t SET u = :u, tp = :tp WHERE k = :k",
		Names:  []string{"k", "tp", "u"},
		Values: []bindings.Value{intVal(4), {Bytes: tupleBytes(intVal(5).Bytes, intVal(6).Bytes)}, {Bytes: tupleBytes(intVal(8).Bytes, intVal(9).Bytes)}},
	}); err != nil {
		t.Fatal(err)
	}
	exec(t, b, ks, "UPDATE t SET l = [(1, 'a'), (2, null)] WHERE k = 5")

	res := exec(t, b, ks, "SELECT k, s, i, tp, u, l FROM t WHERE k IN (1, 2, 3, 4, 5)")
	type cell struct {
		null bool
		text string
	}
	got := map[int32][]cell{}
	for _, r := range res.Rows {
		k := int32(r[0][0])<<24 | int32(r[0][1])<<16 | int32(r[0][2])<<8 | int32(r[0][3])
		var cs []cell
		for i, c := range r[1:] {
			cs = append(cs, cell{c == nil, cql.FormatValue(res.Columns[i+1].Type, c)})
		}
		got[k] = cs
	}
	if c := got[1]; c[0].null || c[0].text != "''" || c[1].null || c[2].null || c[2].text != "(null, null)" {
		t.Errorf("k=1 (empty values, tuple of nulls): got %+v", c)
	}
	if c := got[2]; !c[0].null || !c[1].null || !c[2].null {
		t.Errorf("k=2 (nulls): got %+v", c)
	}
	if c := got[3]; c[0].text != "'x'" || c[1].text != "7" {
		t.Errorf("k=3 (unset kept s): got %+v", c)
	}
	if c := got[4]; c[2].text != "(5, 6)" || c[3].text != "{x: 8, y: 9}" {
		t.Errorf("k=4 (named values, tuple, UDT): got %+v", c)
	}
	if c := got[5]; c[4].text != "[(1, 'a'), (2, null)]" {
		t.Errorf("k=5 (tuples in a list): got %+v", c)
	}
	if typ := res.Columns[3].Type.String(); typ != "tuple<int, int>" {
		t.Errorf("tuple column type: got %s", typ)
	}
	if u := res.Columns[4].Type; u.Kind != cql.KindUDT || u.Name != "pt" || !slices.Equal(u.Fields, []string{"x", "y"}) {
		t.Errorf("UDT column type: got %+v", u)
	}
}

// tupleBytes serializes tuple (or UDT) components; nil is null.
func tupleBytes(elems ...[]byte) []byte {
	out := []byte{}
	for _, e := range elems {
		if e == nil {
			out = append(out, 0xff, 0xff, 0xff, 0xff)
			continue
		}
		n := len(e)
		out = append(out, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
		out = append(out, e...)
	}
	return out
}

func TestPrepare(t *testing.T) {
	b := openBackend(t, testConfig(t))
	ks := testKeyspace(t, b, 1)
	exec(t, b, ks, "CREATE TABLE t (p1 int, p2 text, c int, v map<text, int>, PRIMARY KEY ((p1, p2), c))")
	p, err := b.Prepare(t.Context(), ks, "SELECT c, v FROM t WHERE p2 = ? AND p1 = :first AND c > ?")
	if err != nil {
		t.Fatal(err)
	}
	specs := func(cs []bindings.ColumnSpec) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name+" "+c.Type.String())
		}
		return out
	}
	if got, want := specs(p.Bind), []string{"p2 text", "first int", "c int"}; !slices.Equal(got, want) {
		t.Errorf("bind: got %v, want %v", got, want)
	}
	if got, want := specs(p.Result), []string{"c int", "v map<text, int>"}; !slices.Equal(got, want) {
		t.Errorf("result: got %v, want %v", got, want)
	}
	if !slices.Equal(p.PKIndexes, []uint16{1, 0}) {
		t.Errorf("pk indexes: got %v, want [1 0]", p.PKIndexes)
	}
	if p.Keyspace != ks || p.Table != "t" {
		t.Errorf("statement table: got %s.%s", p.Keyspace, p.Table)
	}
	if p, err := b.Prepare(t.Context(), ks, "INSERT INTO t (p1, p2, c) VALUES (?, ?, ?)"); err != nil || p.Result != nil || len(p.Bind) != 3 {
		t.Errorf("insert: got %+v, %v", p, err)
	}
	_, err = b.Prepare(t.Context(), ks, "SELECT * FROM nope WHERE k = ?")
	var e *bindings.Error
	if !errors.As(err, &e) || e.Code != bindings.CodeInvalid {
		t.Errorf("prepare of a missing table: got %v", err)
	}
}

func TestBatch(t *testing.T) {
	b := openBackend(t, testConfig(t))
	ks := testKeyspace(t, b, 1)
	exec(t, b, ks, "CREATE TABLE t (k int, c int, v int, PRIMARY KEY (k, c))")
	batch := func(typ cql.BatchType, entries ...bindings.BatchEntry) (*bindings.Result, error) {
		return b.Batch(t.Context(), &bindings.BatchRequest{Keyspace: ks, Type: typ, Entries: entries,
			Consistency: bindings.One, SerialConsistency: bindings.Serial, Timestamp: 1000, HasTimestamp: true})
	}
	res, err := batch(cql.BatchUnlogged,
		bindings.BatchEntry{Query: "INSERT INTO t (k, c, v) VALUES (1, 1, 1)"},
		bindings.BatchEntry{Query: "INSERT INTO t (k, c, v) VALUES (?, ?, ?)", Values: []bindings.Value{intVal(2), intVal(1), intVal(2)}})
	if err != nil || res.Kind != bindings.ResultVoid {
		t.Fatalf("unlogged batch: got %+v, %v", res, err)
	}
	got := formatRows(exec(t, b, ks, "SELECT k, c, v, writetime(v) FROM t"))
	slices.Sort(got)
	if want := []string{"1 | 1 | 1 | 1000", "2 | 1 | 2 | 1000"}; !slices.Equal(got, want) {
		t.Errorf("after batch: got %v, want %v", got, want)
	}
	// A conditional batch answers with rows.
	res, err = batch(cql.BatchLogged,
		bindings.BatchEntry{Query: "UPDATE t SET v = 10 WHERE k = 1 AND c = 1 IF v = ?", Values: []bindings.Value{intVal(5)}},
		bindings.BatchEntry{Query: "INSERT INTO t (k, c, v) VALUES (1, 2, 2) IF NOT EXISTS"})
	if err != nil || res.Kind != bindings.ResultRows || len(res.Rows) == 0 || res.Columns[0].Name != "[applied]" {
		t.Fatalf("conditional batch: got %+v, %v", res, err)
	}
	if got := formatRows(res)[0]; got[:5] != "false" {
		t.Errorf("conditional batch applied: got %s", got)
	}
	_, err = batch(cql.BatchLogged, bindings.BatchEntry{Query: "INSERT INTO nope (k) VALUES (1)"})
	var e *bindings.Error
	if !errors.As(err, &e) || e.Code != bindings.CodeInvalid {
		t.Errorf("batch on a missing table: got %v", err)
	}
}

// TestKeyspaces checks USE results and the per-keyspace gocql sessions:
// several keyspaces with MaxSessions 1, and a keyspace dropped and
// recreated through the backend.
func TestKeyspaces(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxSessions = 1
	b := openBackend(t, cfg)
	ks1, ks2 := testKeyspace(t, b, 1), testKeyspace(t, b, 1)
	for _, ks := range []string{ks1, ks2} {
		exec(t, b, ks, "CREATE TABLE t (k int PRIMARY KEY, v text)")
		exec(t, b, ks, "INSERT INTO t (k, v) VALUES (1, '"+ks+"')")
	}
	for range 3 {
		for _, ks := range []string{ks1, ks2} {
			if got := formatRows(exec(t, b, ks, "SELECT v FROM t WHERE k = 1")); !slices.Equal(got, []string{"'" + ks + "'"}) {
				t.Errorf("keyspace %s: got %v", ks, got)
			}
		}
	}
	res := exec(t, b, "", "USE "+ks1)
	if res.Kind != bindings.ResultSetKeyspace || res.Keyspace != ks1 {
		t.Errorf("USE: got %+v", res)
	}
	_, err := b.Execute(t.Context(), &bindings.Request{Query: "USE " + ks1 + "_nope", Consistency: bindings.One})
	var e *bindings.Error
	if !errors.As(err, &e) || e.Code != bindings.CodeInvalid {
		t.Errorf("USE of a missing keyspace: got %v", err)
	}
	exec(t, b, "", "DROP KEYSPACE "+ks2)
	exec(t, b, "", "CREATE KEYSPACE "+ks2+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	exec(t, b, ks2, "CREATE TABLE t (k int PRIMARY KEY, w int)")
	if res := exec(t, b, ks2, "SELECT * FROM t"); len(res.Rows) != 0 || len(res.Columns) != 2 || res.Columns[1].Name != "w" {
		t.Errorf("recreated keyspace: got %+v", res)
	}
	if err := b.Ping(t.Context()); err != nil {
		t.Errorf("ping: %v", err)
	}
}

func TestForcedConsistency(t *testing.T) {
	cfg := testConfig(t)
	cfg.Consistency = "ALL"
	b := openBackend(t, cfg)
	ks := testKeyspace(t, b, 3) // ALL cannot be met on one node
	exec(t, b, ks, "CREATE TABLE t (k int PRIMARY KEY)")
	_, err := b.Execute(t.Context(), &bindings.Request{Keyspace: ks, Query: "SELECT * FROM t", Consistency: bindings.One})
	var e *bindings.Error
	if !errors.As(err, &e) || e.Code != bindings.CodeUnavailable || e.Consistency != bindings.All {
		t.Errorf("forced ALL: got %v, want Unavailable at ALL", err)
	}
}

func TestOpenUnreachable(t *testing.T) {
	cfg := cassandra.DefaultConfig()
	cfg.Hosts = []string{"127.0.0.1:1"}
	cfg.ConnectTimeout = time.Second
	_, err := cassandra.Open(t.Context(), cfg)
	if err == nil || !errors.Is(err, bindings.ErrBadConn) {
		t.Errorf("got %v, want an error wrapping ErrBadConn", err)
	}
}

// TestAggregateWithoutFinalFunc: a keyspace holding an aggregate without
// FINALFUNC (which makes gocql v1.7.0's keyspace metadata panic) is
// served: the session opens and answers.
func TestAggregateWithoutFinalFunc(t *testing.T) {
	b := openBackend(t, testConfig(t))
	ks := testKeyspace(t, b, 1)
	exec(t, b, "", "CREATE TABLE "+ks+".t (k int PRIMARY KEY, v int)")
	exec(t, b, "", "CREATE FUNCTION "+ks+".plus (s int, v int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return s + (v == null ? 0 : v);'")
	exec(t, b, "", "CREATE AGGREGATE "+ks+".total (int) SFUNC plus STYPE int INITCOND 0")
	exec(t, b, ks, "INSERT INTO t (k, v) VALUES (1, 5)")
	exec(t, b, ks, "INSERT INTO t (k, v) VALUES (2, 7)")
	res := exec(t, b, ks, "SELECT total(v) FROM t")
	if got := formatRows(res); len(got) != 1 || got[0] != "12" {
		t.Fatalf("SELECT total(v): %v", got)
	}
}

package proxy

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/schema"
)

// fakeBackend records what it is asked and owns a fixed set of keyspaces.
type fakeBackend struct {
	name      string
	keyspaces []string

	mu      sync.Mutex
	queries []string
	batches int
	handles []any // Request.Handle, then each BatchEntry.Handle
}

func (f *fakeBackend) Execute(_ context.Context, req *bindings.Request) (*bindings.Result, error) {
	f.mu.Lock()
	f.queries = append(f.queries, req.Keyspace+"|"+req.Query)
	f.handles = append(f.handles, req.Handle)
	f.mu.Unlock()
	if strings.HasPrefix(req.Query, "CREATE KEYSPACE") {
		return &bindings.Result{Kind: bindings.ResultSchemaChange,
			Change: &bindings.SchemaChange{Type: bindings.Created, Target: bindings.TargetKeyspace, Keyspace: "x"}}, nil
	}
	return &bindings.Result{Kind: bindings.ResultRows, Rows: [][][]byte{{[]byte(f.name)}}}, nil
}

func (f *fakeBackend) Batch(_ context.Context, req *bindings.BatchRequest) (*bindings.Result, error) {
	f.mu.Lock()
	f.batches++
	for _, e := range req.Entries {
		f.handles = append(f.handles, e.Handle)
	}
	f.mu.Unlock()
	return &bindings.Result{Kind: bindings.ResultVoid}, nil
}

func (f *fakeBackend) Prepare(_ context.Context, keyspace, query string) (*bindings.Prepared, error) {
	return &bindings.Prepared{Keyspace: keyspace, Handle: fakeHandle(keyspace + "|" + query)}, nil
}

// fakeHandle is the handle fakeBackend's Prepare returns.
type fakeHandle string

func (f *fakeBackend) Catalog(context.Context) (*schema.Catalog, error) {
	c := &schema.Catalog{Version: f.name + "-v1", Keyspaces: map[string]*schema.Keyspace{}}
	for _, ks := range f.keyspaces {
		c.Keyspaces[ks] = &schema.Keyspace{Name: ks, Tables: map[string]*schema.Table{}}
	}
	return c, nil
}

func (f *fakeBackend) Close() error { return nil }

type recordingTap struct {
	mu  sync.Mutex
	obs []bindings.Observation
}

func (r *recordingTap) Observe(o *bindings.Observation) {
	r.mu.Lock()
	r.obs = append(r.obs, *o)
	r.mu.Unlock()
}

func newTestCoordinator(t *testing.T, tap Tap) (*Coordinator, *fakeBackend, *fakeBackend) {
	t.Helper()
	a := &fakeBackend{name: "a", keyspaces: []string{"ks_a", "shadow"}}
	b := &fakeBackend{name: "b", keyspaces: []string{"ks_b", "shadow"}}
	c, err := New(Config{
		Backends: map[string]bindings.Backend{"a": a, "b": b},
		Default:  "a",
		Routes:   map[string]string{"ks_b": "b", "shadow": "b"},
		Tap:      tap,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, a, b
}

func TestRoutingByKeyspace(t *testing.T) {
	ctx := context.Background()
	c, a, b := newTestCoordinator(t, nil)
	s := c.NewSession(bindings.SourceCQL)
	cases := []struct {
		query string
		want  string
	}{
		{"SELECT * FROM ks_a.t WHERE k = 1", "a"},
		{"SELECT * FROM ks_b.t WHERE k = 1", "b"},
		{"INSERT INTO other.t (k) VALUES (1)", "a"},
		{"CREATE KEYSPACE ks_b WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", "b"},
	}
	for _, tc := range cases {
		res, err := s.Query(ctx, &bindings.Request{Query: tc.query})
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		if tc.want != "" && res.Kind == bindings.ResultRows && string(res.Rows[0][0]) != tc.want {
			t.Errorf("%s: routed to %s, want %s", tc.query, res.Rows[0][0], tc.want)
		}
	}
	if len(a.queries) != 2 || len(b.queries) != 2 {
		t.Errorf("backend a got %v, b got %v", a.queries, b.queries)
	}
}

// TestRouteResolvesBackend: a route names its backend and holds the
// backend itself, resolved from one route table (the default for a
// keyspace without a route).
func TestRouteResolvesBackend(t *testing.T) {
	c, a, b := newTestCoordinator(t, nil)
	for ks, want := range map[string]*fakeBackend{"ks_b": b, "shadow": b, "ks_a": a, "other": a} {
		rt := c.Route(ks)
		if rt.Keyspace != ks || rt.Name != want.name || rt.Backend != bindings.Backend(want) {
			t.Errorf("Route(%q) = %s %s %p, want %s %p", ks, rt.Keyspace, rt.Name, rt.Backend, want.name, want)
		}
	}
	rt, err := c.routeAll([]string{"ks_b", "shadow"})
	if err != nil || rt.Name != "b" || rt.Backend != bindings.Backend(b) {
		t.Errorf("routeAll(ks_b, shadow) = %s %p, %v; want b %p", rt.Name, rt.Backend, err, b)
	}
	if _, err := c.routeAll([]string{"ks_a", "ks_b"}); err == nil {
		t.Error("routeAll(ks_a, ks_b) spanning two backends succeeded")
	}
}

func TestUseAndUnqualifiedNames(t *testing.T) {
	ctx := context.Background()
	c, _, b := newTestCoordinator(t, nil)
	s := c.NewSession(bindings.SourceCQL)
	if _, err := s.Query(ctx, &bindings.Request{Query: "SELECT * FROM t"}); !errors.Is(err, bindings.ErrInvalid) {
		t.Fatalf("unqualified without USE: got %v, want Invalid", err)
	}
	res, err := s.Query(ctx, &bindings.Request{Query: "USE ks_b"})
	if err != nil || res.Kind != bindings.ResultSetKeyspace || res.Keyspace != "ks_b" {
		t.Fatalf("USE ks_b: %+v, %v", res, err)
	}
	if _, err := s.Query(ctx, &bindings.Request{Query: "SELECT * FROM t"}); err != nil {
		t.Fatal(err)
	}
	if got := b.queries[len(b.queries)-1]; got != "ks_b|SELECT * FROM t" {
		t.Errorf("backend b saw %q", got)
	}
	if _, err := s.Query(ctx, &bindings.Request{Query: "USE nope"}); !errors.Is(err, bindings.ErrInvalid) {
		t.Errorf("USE of a missing keyspace: got %v, want Invalid", err)
	}
}

func TestCatalogMergeFollowsRoutes(t *testing.T) {
	c, _, _ := newTestCoordinator(t, nil)
	cat, err := c.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(cat.KeyspaceNames(), ",")
	if got != "ks_a,ks_b,shadow" {
		t.Errorf("keyspaces = %s", got)
	}
	// "shadow" exists on both; only b's copy is routed.
	again, _ := c.Catalog(context.Background())
	if again != cat {
		t.Error("merge not cached while versions are unchanged")
	}
}

func TestBatchSpanningBackendsIsRejected(t *testing.T) {
	ctx := context.Background()
	c, a, b := newTestCoordinator(t, nil)
	s := c.NewSession(bindings.SourceCQL)
	_, err := s.Batch(ctx, &BatchRequest{Entries: []BatchEntry{
		{Query: "INSERT INTO ks_a.t (k) VALUES (1)"},
		{Query: "INSERT INTO ks_b.t (k) VALUES (1)"},
	}})
	if !errors.Is(err, bindings.ErrInvalid) || !strings.Contains(err.Error(), "different backends") {
		t.Fatalf("got %v, want Invalid about different backends", err)
	}
	_, err = s.Query(ctx, &bindings.Request{Query: "BEGIN BATCH INSERT INTO ks_a.t (k) VALUES (1); INSERT INTO ks_b.t (k) VALUES (1); APPLY BATCH"})
	if !errors.Is(err, bindings.ErrInvalid) {
		t.Fatalf("BEGIN BATCH across backends: got %v, want Invalid", err)
	}
	if _, err := s.Batch(ctx, &BatchRequest{Entries: []BatchEntry{
		{Query: "INSERT INTO ks_b.t (k) VALUES (1)"}, {Query: "DELETE FROM ks_b.t WHERE k = 2"},
	}}); err != nil {
		t.Fatal(err)
	}
	if a.batches != 0 || b.batches != 1 {
		t.Errorf("batches a=%d b=%d, want 0 and 1", a.batches, b.batches)
	}
}

func TestPreparedRegistry(t *testing.T) {
	ctx := context.Background()
	a := &fakeBackend{name: "a"}
	c, err := New(Config{Backends: map[string]bindings.Backend{"a": a}, Default: "a", PreparedCacheSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	s := c.NewSession(bindings.SourceCQL)
	var ids [][]byte
	for _, q := range []string{"SELECT * FROM k.t1", "SELECT * FROM k.t2", "SELECT * FROM k.t3"} {
		ps, err := s.Prepare(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if string(ps.ID) != string(PreparedID("", q)) {
			t.Errorf("id of %q is not MD5(keyspace+query)", q)
		}
		ids = append(ids, ps.ID)
	}
	// The first was evicted (cache of 2): Unprepared with the id, so drivers re-prepare.
	_, err = s.Execute(ctx, ids[0], &bindings.Request{})
	var e *bindings.Error
	if !errors.As(err, &e) || e.Code != bindings.CodeUnprepared || string(e.UnpreparedID) != string(ids[0]) {
		t.Fatalf("evicted statement: got %v, want Unprepared carrying the id", err)
	}
	if _, err := s.Execute(ctx, ids[2], &bindings.Request{}); err != nil {
		t.Fatal(err)
	}
	if got := a.queries[len(a.queries)-1]; got != "|SELECT * FROM k.t3" {
		t.Errorf("backend saw %q", got)
	}
	if st := c.PreparedStats(); st.Evictions != 1 || st.Size != 2 {
		t.Errorf("stats = %+v, want 1 eviction and size 2", st)
	}
}

// TestPreparedHandlePassedBack: the backend's handle of a prepared
// statement comes back with each EXECUTE and each prepared batch child; a
// QUERY and an unprepared child carry none.
func TestPreparedHandlePassedBack(t *testing.T) {
	ctx := context.Background()
	a := &fakeBackend{name: "a"}
	c, err := New(Config{Backends: map[string]bindings.Backend{"a": a}, Default: "a"})
	if err != nil {
		t.Fatal(err)
	}
	s := c.NewSession(bindings.SourceCQL)
	const q = "INSERT INTO k.t (k) VALUES (?)"
	ps, err := s.Prepare(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Execute(ctx, ps.ID, &bindings.Request{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Query(ctx, &bindings.Request{Query: q}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Batch(ctx, &BatchRequest{Entries: []BatchEntry{{PreparedID: ps.ID}, {Query: q}}}); err != nil {
		t.Fatal(err)
	}
	want := []any{fakeHandle("|" + q), nil, fakeHandle("|" + q), nil}
	if len(a.handles) != len(want) {
		t.Fatalf("handles %v, want %v", a.handles, want)
	}
	for i := range want {
		if a.handles[i] != want[i] {
			t.Errorf("handle %d: got %v, want %v", i, a.handles[i], want[i])
		}
	}
}

func TestTapSeesEveryRequest(t *testing.T) {
	ctx := context.Background()
	tap := &recordingTap{}
	c, _, _ := newTestCoordinator(t, tap)
	s := c.NewSession(bindings.SourceCQL)
	s.Query(ctx, &bindings.Request{Query: "SELECT * FROM ks_a.t"})
	s.Query(ctx, &bindings.Request{Query: "SELEC nonsense"})
	s.Batch(ctx, &BatchRequest{Entries: []BatchEntry{
		{Query: "INSERT INTO ks_b.t (k) VALUES (1)"}, {Query: "INSERT INTO ks_b.t (k) VALUES (2)"},
	}})
	if len(tap.obs) != 4 {
		t.Fatalf("observed %d requests, want 4 (query, bad query, 2 batch children)", len(tap.obs))
	}
	if !tap.obs[1].Err || tap.obs[1].ErrCode != bindings.CodeSyntaxError {
		t.Errorf("bad query observation = %+v, want a SyntaxError", tap.obs[1])
	}
	if tap.obs[0].Rows != 1 || tap.obs[0].Digest == 0 {
		t.Errorf("row count/digest missing: %+v", tap.obs[0])
	}
	for i, o := range tap.obs {
		if o.Seq != uint64(i+1) || o.Session != s.ID() {
			t.Errorf("obs %d: seq %d session %d", i, o.Seq, o.Session)
		}
	}
	if tap.obs[3].BatchSize != 2 || tap.obs[3].BatchIndex != 1 {
		t.Errorf("batch child observation = %+v", tap.obs[3])
	}
}

func TestRowsDigestIsOrderInsensitive(t *testing.T) {
	r1 := [][][]byte{{[]byte("a"), nil}, {[]byte("b"), []byte("c")}}
	r2 := [][][]byte{{[]byte("b"), []byte("c")}, {[]byte("a"), nil}}
	r3 := [][][]byte{{[]byte("b"), []byte("c")}, {[]byte("a"), []byte{}}}
	if bindings.RowsDigest(r1) != bindings.RowsDigest(r2) {
		t.Error("digest depends on row order")
	}
	if bindings.RowsDigest(r1) == bindings.RowsDigest(r3) {
		t.Error("digest does not tell null from empty")
	}
}

package cqlserver

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/proxy"
	"github.com/dohyo/dohyo/schema"
)

// fakeBackend is a scriptable backend over a real schema catalog: DDL is
// applied to the catalog; SELECTs from a few magic table names return
// canned rows or errors.
type fakeBackend struct {
	mu      sync.Mutex
	cat     *schema.Catalog
	reqs    []bindings.Request
	batches []*bindings.BatchRequest
	// release unblocks SELECTs from ks.slow.
	release chan struct{}
}

var (
	_ bindings.Backend       = (*fakeBackend)(nil)
	_ bindings.Preparer      = (*fakeBackend)(nil)
	_ bindings.CatalogSource = (*fakeBackend)(nil)
)

func newFakeBackend(t testing.TB) *fakeBackend {
	t.Helper()
	f := &fakeBackend{cat: schema.New(), release: make(chan struct{})}
	for _, ddl := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v text)",
		"CREATE TABLE ks.wide (p text, c int, s int static, m map<text, int>, PRIMARY KEY ((p), c)) WITH CLUSTERING ORDER BY (c DESC) AND comment = 'hi'",
	} {
		if _, err := f.ddl(ddl, ""); err != nil {
			t.Fatalf("%s: %v", ddl, err)
		}
	}
	return f
}

func (f *fakeBackend) ddl(text, ks string) (*bindings.Result, error) {
	p, err := cql.Parse(text)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	next, ch, err := f.cat.Apply(p.Stmt, ks)
	if err != nil {
		return nil, bindings.Errorf(bindings.CodeInvalid, "%v", err)
	}
	f.cat = next
	if ch == nil {
		return &bindings.Result{Kind: bindings.ResultVoid}, nil
	}
	return &bindings.Result{Kind: bindings.ResultSchemaChange, Change: &bindings.SchemaChange{
		Type: bindings.ChangeType(ch.Type), Target: bindings.ChangeTarget(ch.Target),
		Keyspace: ch.Keyspace, Object: ch.Table,
	}}, nil
}

func (f *fakeBackend) Catalog(context.Context) (*schema.Catalog, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cat, nil
}

func (f *fakeBackend) Close() error { return nil }

func (f *fakeBackend) lastRequest() bindings.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reqs[len(f.reqs)-1]
}

func be32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

var tCols = []bindings.ColumnSpec{
	{Keyspace: "ks", Table: "t", Name: "k", Type: cql.Scalar(cql.KindInt)},
	{Keyspace: "ks", Table: "t", Name: "v", Type: cql.Scalar(cql.KindText)},
}

func (f *fakeBackend) Execute(ctx context.Context, req *bindings.Request) (*bindings.Result, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, *req)
	f.mu.Unlock()
	sel, ok := req.Parsed.Stmt.(*cql.Select)
	if !ok {
		switch req.Parsed.Stmt.(type) {
		case *cql.Insert, *cql.Update, *cql.Delete:
			return &bindings.Result{Kind: bindings.ResultVoid}, nil
		}
		return f.ddl(req.Query, req.Keyspace)
	}
	switch sel.Table {
	case "t":
		return &bindings.Result{Kind: bindings.ResultRows, Columns: tCols,
			Rows: [][][]byte{{be32(1), []byte("one")}, {be32(2), nil}}}, nil
	case "warn":
		return &bindings.Result{Kind: bindings.ResultRows, Columns: tCols[:1],
			Rows: [][][]byte{{be32(7)}}, Warnings: []string{"careful", "very careful"}}, nil
	case "paged":
		return pagedRows(req), nil
	case "slow":
		select {
		case <-f.release:
			return &bindings.Result{Kind: bindings.ResultVoid}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case "boom":
		panic("boom")
	case "echo": // one row holding the first bound value
		var v []byte
		if len(req.Values) > 0 {
			v = req.Values[0].Bytes
		}
		return &bindings.Result{Kind: bindings.ResultRows, Columns: []bindings.ColumnSpec{
			{Keyspace: "ks", Table: "echo", Name: "b", Type: cql.Scalar(cql.KindBlob)}}, Rows: [][][]byte{{v}}}, nil
	}
	if err, ok := errorTables[sel.Table]; ok {
		return nil, err
	}
	return nil, bindings.Errorf(bindings.CodeInvalid, "unconfigured table %s", sel.Table)
}

// pagedRows serves 10 rows of ks.paged; the paging state is the offset.
func pagedRows(req *bindings.Request) *bindings.Result {
	start := 0
	if len(req.PagingState) == 4 {
		start = int(binary.BigEndian.Uint32(req.PagingState))
	}
	end := 10
	res := &bindings.Result{Kind: bindings.ResultRows, Columns: tCols[:1]}
	if req.PageSize > 0 && start+int(req.PageSize) < 10 {
		end = start + int(req.PageSize)
		res.PagingState = be32(int32(end))
	}
	for i := start; i < end; i++ {
		res.Rows = append(res.Rows, [][]byte{be32(int32(i))})
	}
	return res
}

var errorTables = map[string]error{
	"unavailable":    &bindings.Error{Code: bindings.CodeUnavailable, Message: "not enough replicas", Consistency: bindings.Quorum, BlockFor: 3, Received: 1},
	"write_timeout":  &bindings.Error{Code: bindings.CodeWriteTimeout, Message: "write timed out", Consistency: bindings.One, Received: 0, BlockFor: 1, WriteType: "BATCH"},
	"read_timeout":   &bindings.Error{Code: bindings.CodeReadTimeout, Message: "read timed out", Consistency: bindings.LocalQuorum, Received: 1, BlockFor: 2, DataPresent: true},
	"read_failure":   &bindings.Error{Code: bindings.CodeReadFailure, Message: "read failed", Consistency: bindings.One, Received: 0, BlockFor: 1},
	"write_failure":  &bindings.Error{Code: bindings.CodeWriteFailure, Message: "write failed", Consistency: bindings.One, BlockFor: 1, WriteType: "SIMPLE"},
	"already_exists": &bindings.Error{Code: bindings.CodeAlreadyExists, Message: "Cannot add existing table", Keyspace: "ks", Table: "t"},
	"overloaded":     bindings.Errorf(bindings.CodeOverloaded, "too busy"),
	"invalid":        bindings.Errorf(bindings.CodeInvalid, "bad request"),
	"plain":          errors.New("disk on fire"),
}

func (f *fakeBackend) Batch(_ context.Context, req *bindings.BatchRequest) (*bindings.Result, error) {
	f.mu.Lock()
	f.batches = append(f.batches, req)
	f.mu.Unlock()
	return &bindings.Result{Kind: bindings.ResultVoid}, nil
}

// Prepare describes statements on ks.t: bind markers take the type of the
// column they are compared with or assigned to.
func (f *fakeBackend) Prepare(ctx context.Context, keyspace, query string) (*bindings.Prepared, error) {
	p, err := cql.Parse(query)
	if err != nil {
		return nil, err
	}
	cat, _ := f.Catalog(ctx)
	meta := &bindings.Prepared{}
	var tb *schema.Table
	var names []string
	switch st := p.Stmt.(type) {
	case *cql.Select:
		tb = cat.Table(cmp.Or(st.Keyspace, keyspace), st.Table)
		for _, r := range st.Where {
			names = append(names, r.Columns[0])
		}
		if tb != nil {
			for _, c := range tb.Columns {
				meta.Result = append(meta.Result, bindings.ColumnSpec{Keyspace: tb.Keyspace, Table: tb.Name, Name: c.Name, Type: c.Type})
			}
		}
	case *cql.Insert:
		tb = cat.Table(cmp.Or(st.Keyspace, keyspace), st.Table)
		names = st.Columns
	}
	if tb == nil {
		return nil, bindings.Errorf(bindings.CodeInvalid, "cannot prepare %q in this fake", query)
	}
	for i, n := range names {
		c := tb.Column(n)
		if c == nil || i >= len(p.Markers) {
			continue
		}
		meta.Bind = append(meta.Bind, bindings.ColumnSpec{Keyspace: tb.Keyspace, Table: tb.Name, Name: n, Type: c.Type})
		if c.Kind == schema.PartitionKey {
			meta.PKIndexes = append(meta.PKIndexes, uint16(i))
		}
	}
	meta.Keyspace, meta.Table = tb.Keyspace, tb.Name
	return meta, nil
}

// testServer wires a coordinator over backend and a Server.
type testServer struct {
	srv   *Server
	coord *proxy.Coordinator
	fake  *fakeBackend
}

func newTestServer(t testing.TB, mod func(*Config)) *testServer {
	t.Helper()
	fake := newFakeBackend(t)
	return newTestServerWith(t, fake, fake, mod)
}

func newTestServerWith(t testing.TB, b bindings.Backend, fake *fakeBackend, mod func(*Config)) *testServer {
	t.Helper()
	coord, err := proxy.New(proxy.Config{Backends: map[string]bindings.Backend{"main": b}, Default: "main"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Coordinator: coord, ClusterName: "test cluster", NumTokens: 4, ReleaseVersion: "5.0.0-test"}
	if mod != nil {
		mod(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return &testServer{srv: srv, coord: coord, fake: fake}
}

// waitFor polls cond until it holds or the deadline passes: 30 seconds,
// which only stops a test from hanging on a loaded machine.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine/kv"
)

// schemaCell is a SharedSchema kept in memory, shared by several sharedKV
// handles (a fake of HBase's CheckAndPut on the schema row).
type schemaCell struct {
	mu      sync.Mutex
	m       kv.SchemaMeta
	commits int
	creates int // tables created in the store
}

// sharedKV is one process's handle on a memKV shared with others.
type sharedKV struct {
	*memKV
	cell *schemaCell
	// beforeCommit, when set, runs once at the start of the next commit.
	beforeCommit func()
}

// CreateTable counts the tables created (not already there).
func (s *sharedKV) CreateTable(ctx context.Context, t *kv.TableSpec) error {
	s.memKV.mu.Lock()
	fresh := s.memKV.tables[t.ID] == nil
	s.memKV.mu.Unlock()
	if fresh {
		s.cell.mu.Lock()
		s.cell.creates++
		s.cell.mu.Unlock()
	}
	return s.memKV.CreateTable(ctx, t)
}

func (s *sharedKV) SchemaVersion(context.Context) (int64, error) {
	s.cell.mu.Lock()
	defer s.cell.mu.Unlock()
	return s.cell.m.Version, nil
}

func (s *sharedKV) ReadSchema(context.Context) (kv.SchemaMeta, error) {
	s.cell.mu.Lock()
	defer s.cell.mu.Unlock()
	return s.cell.m, nil
}

func (s *sharedKV) CommitSchema(_ context.Context, prev int64, m kv.SchemaMeta) (bool, error) {
	if fn := s.beforeCommit; fn != nil {
		s.beforeCommit = nil
		fn()
	}
	s.cell.mu.Lock()
	defer s.cell.mu.Unlock()
	if s.cell.m.Version != prev {
		return false, nil
	}
	m.Version = prev + 1
	s.cell.m = m
	s.cell.commits++
	return true, nil
}

// newSharedEngines opens n engines over one shared store; poll < 0 turns
// the version poll off, so tests see only the on-demand reloads.
func newSharedEngines(t *testing.T, n int, poll time.Duration) []*Engine {
	t.Helper()
	base, cell := newMemKV(), &schemaCell{}
	out := make([]*Engine, n)
	for i := range out {
		// One memKV (one lock) for all: the engines are closed together.
		e, err := New(context.Background(), &sharedKV{memKV: base, cell: cell}, Options{SchemaPoll: poll})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		out[i] = e
	}
	return out
}

func execOn(e *Engine, ks, q string) (*bindings.Result, error) {
	return e.Execute(context.Background(), &bindings.Request{Keyspace: ks, Query: q})
}

func mustExecOn(t *testing.T, e *Engine, ks, q string) *bindings.Result {
	t.Helper()
	res, err := execOn(e, ks, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res
}

const sharedKSDDL = "CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"

func TestSharedSchemaUnknownNameReloads(t *testing.T) {
	es := newSharedEngines(t, 2, -1)
	a, b := es[0], es[1]
	mustExecOn(t, a, "", fmt.Sprintf(sharedKSDDL, "ks"))
	mustExecOn(t, a, "ks", "CREATE TABLE t (k int PRIMARY KEY, v text)")
	// b never polls: naming the unknown keyspace and table reloads.
	if _, err := execOn(b, "", "USE ks"); err != nil {
		t.Fatalf("USE on the other engine: %v", err)
	}
	mustExecOn(t, b, "ks", "INSERT INTO t (k, v) VALUES (1, 'x')")
	res := mustExecOn(t, a, "ks", "SELECT v FROM t WHERE k = 1")
	if got := formatRows(res); len(got) != 1 || got[0] != "'x'" {
		t.Fatalf("row written through b, read through a: %v", got)
	}
	if a.SchemaVersion() != b.SchemaVersion() || a.SchemaVersion() != 2 {
		t.Fatalf("schema versions a=%d b=%d, want 2 and 2", a.SchemaVersion(), b.SchemaVersion())
	}
	// A name that exists nowhere is still an error, after one reload.
	if _, err := execOn(b, "ks", "SELECT * FROM nope"); err == nil {
		t.Fatal("SELECT from a table that exists nowhere succeeded")
	}
}

func TestSharedSchemaConcurrentDDLLosesNothing(t *testing.T) {
	es := newSharedEngines(t, 3, -1)
	mustExecOn(t, es[0], "", fmt.Sprintf(sharedKSDDL, "ks"))
	var wg sync.WaitGroup
	errs := make(chan error, 3*8)
	for i, e := range es {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 8 {
				if _, err := execOn(e, "ks", fmt.Sprintf("CREATE TABLE t%d_%d (k int PRIMARY KEY)", i, j)); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent CREATE TABLE: %v", err)
	}
	for i, e := range es {
		if _, err := e.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		cat, _ := e.Catalog(context.Background())
		if n := len(cat.Keyspace("ks").Tables); n != 24 {
			t.Errorf("engine %d sees %d tables, want 24", i, n)
		}
	}
}

func TestSharedSchemaConflictingDDLOneWinner(t *testing.T) {
	es := newSharedEngines(t, 2, -1)
	a, b := es[0], es[1]
	mustExecOn(t, a, "", fmt.Sprintf(sharedKSDDL, "ks"))
	mustExecOn(t, b, "ks", "CREATE TABLE t (k int PRIMARY KEY, a int)")
	// a has not loaded b's table: its CREATE is applied against the
	// committed schema and fails as Cassandra's would.
	_, err := execOn(a, "ks", "CREATE TABLE t (k int PRIMARY KEY, b text)")
	var be *bindings.Error
	if !errors.As(err, &be) || be.Code != bindings.CodeAlreadyExists {
		t.Fatalf("second CREATE TABLE t: got %v, want AlreadyExists", err)
	}
	if res := mustExecOn(t, a, "ks", "CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY, b text)"); res.Kind != bindings.ResultVoid {
		t.Fatalf("IF NOT EXISTS on an existing table: result kind %v, want Void", res.Kind)
	}
	cat, _ := a.Catalog(context.Background())
	if cat.Table("ks", "t").Column("a") == nil {
		t.Fatal("the winner's column a is not in the loaded table")
	}
	_, err = execOn(b, "", fmt.Sprintf(sharedKSDDL, "ks"))
	if !errors.As(err, &be) || be.Code != bindings.CodeAlreadyExists {
		t.Fatalf("CREATE KEYSPACE ks again: got %v, want AlreadyExists", err)
	}
}

// A commit lost to another engine is retried against the new schema: the
// first CheckAndPut of b fails (a committed in between) and b's change
// still lands, next to a's.
func TestSharedSchemaCommitConflictRetries(t *testing.T) {
	es := newSharedEngines(t, 2, -1)
	a, b := es[0], es[1]
	mustExecOn(t, a, "", fmt.Sprintf(sharedKSDDL, "ks"))
	mustExecOn(t, b, "", "USE ks") // b loads version 1
	skv := b.kv.(*sharedKV)
	// a commits between b's version check and b's commit.
	skv.beforeCommit = func() { mustExecOn(t, a, "ks", "CREATE TABLE ta (k int PRIMARY KEY)") }
	mustExecOn(t, b, "ks", "CREATE TABLE tb (k int PRIMARY KEY)")
	skv.cell.mu.Lock()
	commits := skv.cell.commits
	skv.cell.mu.Unlock()
	if commits != 3 {
		t.Fatalf("%d commits, want 3 (keyspace, ta, tb after a retry)", commits)
	}
	if _, err := a.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	cat, _ := a.Catalog(context.Background())
	if cat.Table("ks", "ta") == nil || cat.Table("ks", "tb") == nil {
		t.Fatalf("tables after the retried commit: %v", cat.Keyspace("ks").TableNames())
	}
	// The retry reused the storage of the lost attempt: two tables
	// created, none left over.
	if n, c := storedTables(skv.memKV), skv.cell.creates; n != 2 || c != 2 {
		t.Fatalf("%d tables in the store, %d created; want 2 and 2", n, c)
	}

	// A retry that fails (the same table was created meanwhile) drops the
	// storage its lost attempt created.
	skv.beforeCommit = func() { mustExecOn(t, a, "ks", "CREATE TABLE tc (k int PRIMARY KEY)") }
	_, err := execOn(b, "ks", "CREATE TABLE tc (k int PRIMARY KEY, v int)")
	var be *bindings.Error
	if !errors.As(err, &be) || be.Code != bindings.CodeAlreadyExists {
		t.Fatalf("CREATE TABLE tc after a's: %v, want AlreadyExists", err)
	}
	if n := storedTables(skv.memKV); n != 3 {
		t.Fatalf("%d tables in the store, want 3 (ta, tb, a's tc)", n)
	}
}

func storedTables(m *memKV) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.tables)
}

func TestSharedSchemaPollAndEvents(t *testing.T) {
	es := newSharedEngines(t, 2, 20*time.Millisecond)
	a, b := es[0], es[1]
	got := make(chan *bindings.SchemaChange, 16)
	b.OnSchemaChange(func(ch *bindings.SchemaChange) { got <- ch })
	deadline := time.After(10 * time.Second)
	for _, step := range []struct{ ks, ddl, want string }{
		{"", fmt.Sprintf(sharedKSDDL, "ks"), "CREATED KEYSPACE ks."},
		{"ks", "CREATE TABLE t (k int PRIMARY KEY)", "CREATED TABLE ks.t"},
		{"ks", "ALTER TABLE t ADD v text", "UPDATED TABLE ks.t"},
		{"ks", "DROP TABLE t", "DROPPED TABLE ks.t"},
		{"", "DROP KEYSPACE ks", "DROPPED KEYSPACE ks."},
	} {
		mustExecOn(t, a, step.ks, step.ddl)
		select {
		case ch := <-got:
			if s := fmt.Sprintf("%s %s %s.%s", ch.Type, ch.Target, ch.Keyspace, ch.Object); s != step.want {
				t.Fatalf("after %q the polling engine reported %q, want %q", step.ddl, s, step.want)
			}
		case <-deadline:
			t.Fatalf("no event on the polling engine after %q", step.ddl)
		}
		if b.SchemaVersion() != a.SchemaVersion() {
			t.Fatalf("polling engine at version %d after the event, committed %d", b.SchemaVersion(), a.SchemaVersion())
		}
	}
}

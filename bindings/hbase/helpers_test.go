package hbase

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/engine/kv"
)

// ZKEnv names the environment variable with the ZooKeeper quorum of the
// HBase that integration tests use (e.g. 127.0.0.1:2181).
const ZKEnv = "DOHYO_TEST_HBASE_ZK"

// testZK returns the quorum, or skips the test when none is configured;
// under CI=true a missing HBase fails instead.
func testZK(t testing.TB) string {
	t.Helper()
	zk := os.Getenv(ZKEnv)
	if zk == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: the HBase integration tests need a running HBase (start it with it/hbase/run.sh)", ZKEnv)
		}
		t.Skipf("%s not set: no HBase to test against", ZKEnv)
	}
	return zk
}

// uniqueName returns a fresh name for catalogs and keyspaces: tests share
// one long-lived HBase.
func uniqueName(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// testTable creates table name of keyspace kvtest in s, with a unique ID
// and the given split keys; the caller drops it with drop, before closing
// s (defer drop() after defer s.Close()).
func testTable(t testing.TB, s *Store, name string, splits ...[]byte) (ts *kv.TableSpec, drop func()) {
	t.Helper()
	ts = &kv.TableSpec{Keyspace: "kvtest", Name: name, ID: uniqueName(name), SplitKeys: splits}
	if err := s.CreateTable(t.Context(), ts); err != nil {
		t.Fatal(err)
	}
	return ts, func() { _ = s.DropTable(context.Background(), ts) }
}

// openTestStore opens a Store with its own catalog; the test closes it.
func openTestStore(t testing.TB) *Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := OpenStore(ctx, Config{ZooKeeper: testZK(t), Catalog: uniqueName("test_")})
	if err != nil {
		t.Fatalf("OpenStore: %v", err)
	}
	return s
}

// openTestBackend opens a Backend from a URL on the test HBase, with
// query options appended; it is closed when the test ends.
func openTestBackend(t testing.TB, query string) *engine.Engine {
	t.Helper()
	u := "hbase://" + testZK(t) + "?" + query
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b, err := openEngineURL(ctx, u)
	if err != nil {
		t.Fatalf("openEngineURL(%s): %v", u, err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func bigint(n int64) bindings.Value {
	return bindings.Value{Bytes: binary.BigEndian.AppendUint64(nil, uint64(n))}
}

func text(s string) bindings.Value { return bindings.Value{Bytes: []byte(s)} }

func exec(t testing.TB, b bindings.Backend, q string, vals ...bindings.Value) *bindings.Result {
	t.Helper()
	return execPaged(t, b, q, 0, nil, vals...)
}

func execPaged(t testing.TB, b bindings.Backend, q string, pageSize int32, state []byte, vals ...bindings.Value) *bindings.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := b.Execute(ctx, &bindings.Request{Query: q, Values: vals, Consistency: bindings.One,
		PageSize: pageSize, PagingState: state})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res
}

// tableSpec finds a CQL table's KV spec through the catalog.
func tableSpec(t testing.TB, b *engine.Engine, ks, name string) *kv.TableSpec {
	t.Helper()
	cat, err := b.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tb := cat.Table(ks, name)
	if tb == nil {
		t.Fatalf("table %s.%s not in the catalog", ks, name)
	}
	return &kv.TableSpec{Keyspace: ks, Name: name, ID: tb.ID}
}

func dropKeyspace(t testing.TB, b bindings.Backend, ks string) {
	t.Helper()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if _, err := b.Execute(ctx, &bindings.Request{Query: "DROP KEYSPACE IF EXISTS " + ks}); err != nil {
			t.Errorf("cleanup: drop keyspace %s: %v", ks, err)
		}
	})
}

const replication = " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"

// openEngine opens the engine on a new store, as bindings/stores does
// (which this package's tests cannot import: it imports this package).
func openEngine(ctx context.Context, cfg Config) (*engine.Engine, error) {
	st, err := OpenStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return engine.Open(ctx, st, engine.Options{Logger: cfg.Logger})
}

// openEngineURL is openEngine for an hbase:// URL.
func openEngineURL(ctx context.Context, rawURL string) (*engine.Engine, error) {
	cfg, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	return openEngine(ctx, cfg)
}

// storeOf is the store under an engine opened by openEngine.
func storeOf(e *engine.Engine) *Store { return e.KV().(*Store) }

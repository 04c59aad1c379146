package embedded

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine"
)

func bigint(n int64) bindings.Value {
	return bindings.Value{Bytes: binary.BigEndian.AppendUint64(nil, uint64(n))}
}

func text(s string) bindings.Value { return bindings.Value{Bytes: []byte(s)} }

func mustExec(t testing.TB, b bindings.Backend, q string, vals ...bindings.Value) *bindings.Result {
	t.Helper()
	res, err := b.Execute(context.Background(), &bindings.Request{Query: q, Values: vals, Consistency: bindings.One})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res
}

const (
	createKS    = "CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"
	createKV    = "CREATE TABLE IF NOT EXISTS ks.kv (k bigint PRIMARY KEY, v text)"
	insertKV    = "INSERT INTO ks.kv (k, v) VALUES (?, ?)"
	selectKV    = "SELECT v FROM ks.kv WHERE k = ?"
	selectAllKV = "SELECT k, v FROM ks.kv"
)

func setupKV(t testing.TB, b bindings.Backend) {
	t.Helper()
	mustExec(t, b, createKS)
	mustExec(t, b, createKV)
}

func selectV(t testing.TB, b bindings.Backend, k int64) (string, bool) {
	t.Helper()
	res := mustExec(t, b, selectKV, bigint(k))
	if res.Kind != bindings.ResultRows {
		t.Fatalf("SELECT: got result kind %v, want rows", res.Kind)
	}
	if len(res.Rows) == 0 {
		return "", false
	}
	return string(res.Rows[0][0]), true
}

// openEngine opens the engine on a new store, as bindings/stores does
// (which this package's tests cannot import: it imports this package).
func openEngine(ctx context.Context, cfg Config) (*engine.Engine, error) {
	st, err := OpenStore(cfg)
	if err != nil {
		return nil, err
	}
	return engine.Open(ctx, st, engine.Options{Logger: cfg.Logger})
}

// storeOf is the store under an engine opened by openEngine.
func storeOf(e *engine.Engine) *Store { return e.KV().(*Store) }

// openEngineURL is openEngine for an embedded:// URL.
func openEngineURL(ctx context.Context, rawURL string) (*engine.Engine, error) {
	cfg, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	return openEngine(ctx, cfg)
}

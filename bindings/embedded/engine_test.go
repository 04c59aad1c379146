package embedded

import (
	"strings"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/faulty"
)

func TestBackendEndToEnd(t *testing.T) {
	b, err := openEngineURL(t.Context(), "embedded://memory?salt=4&cache=8MiB")
	if err != nil {
		t.Fatalf("OpenURL: %v", err)
	}
	setupKV(t, b)
	mustExec(t, b, insertKV, bigint(1), text("one"))
	mustExec(t, b, insertKV, bigint(2), text("two"))
	if _, err := b.Batch(t.Context(), &bindings.BatchRequest{Entries: []bindings.BatchEntry{
		{Query: insertKV, Values: []bindings.Value{bigint(3), text("three")}},
		{Query: "UPDATE ks.kv SET v = 'uno' WHERE k = 1"},
	}, Consistency: bindings.One}); err != nil {
		t.Fatalf("Batch: %v", err)
	}
	for k, want := range map[int64]string{1: "uno", 2: "two", 3: "three"} {
		if got, ok := selectV(t, b, k); !ok || got != want {
			t.Errorf("k=%d: got %q (found=%v), want %q", k, got, ok, want)
		}
	}
	if _, ok := selectV(t, b, 4); ok {
		t.Errorf("k=4: found a row, want none")
	}

	p, err := b.Prepare(t.Context(), "", selectKV)
	if err != nil || len(p.Bind) != 1 || len(p.Result) != 1 {
		t.Errorf("Prepare: got %+v, %v; want 1 bind variable and 1 result column", p, err)
	}
	cat, err := b.Catalog(t.Context())
	if err != nil || cat == nil || cat.Keyspaces["ks"] == nil || cat.Keyspaces["ks"].Tables["kv"] == nil {
		t.Errorf("Catalog: got %v, %v; want ks.kv", cat, err)
	}
	if err := b.Ping(t.Context()); err != nil {
		t.Errorf("Ping: %v", err)
	}

	// Faults work on the real engine: a replay "wrong target".
	fb := faulty.Wrap(b)
	rm := fb.InjectFault(faulty.Fault{Match: "SELECT v FROM ks.kv WHERE k = ?", Alter: func(r *bindings.Result) {
		for _, row := range r.Rows {
			row[0] = []byte("wrong")
		}
	}})
	if got, _ := selectV(t, fb, 2); got != "wrong" {
		t.Errorf("with Alter: got %q, want wrong", got)
	}
	rm()
	if got, _ := selectV(t, fb, 2); got != "two" {
		t.Errorf("after removing Alter: got %q, want two", got)
	}

	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := b.Ping(t.Context()); err == nil {
		t.Errorf("Ping after Close: got nil, want an error")
	}
}

func TestBackendReopenOnDisk(t *testing.T) {
	dir := t.TempDir()
	url := "embedded://" + dir + "?sync=true"
	b, err := openEngineURL(t.Context(), url)
	if err != nil {
		t.Fatalf("OpenURL(%s): %v", url, err)
	}
	setupKV(t, b)
	for k := range int64(50) {
		mustExec(t, b, insertKV, bigint(k), text(strings.Repeat("v", int(k))))
	}
	mustExec(t, b, "DELETE FROM ks.kv WHERE k = 7")
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	b, err = openEngineURL(t.Context(), url)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer b.Close()
	if got, ok := selectV(t, b, 10); !ok || got != strings.Repeat("v", 10) {
		t.Errorf("k=10 after reopen: got %q (found=%v)", got, ok)
	}
	if _, ok := selectV(t, b, 7); ok {
		t.Errorf("k=7 after reopen: deleted row is back")
	}
	if res := mustExec(t, b, selectAllKV); len(res.Rows) != 49 {
		t.Errorf("rows after reopen: got %d, want 49", len(res.Rows))
	}
}

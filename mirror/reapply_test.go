package mirror_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/mirror"
	"github.com/dohyo/dohyo/proxy"
)

// flaky is a mirror backend that answers Unavailable while down is set.
type flaky struct {
	bindings.Backend
	down atomic.Bool
}

func (f *flaky) Execute(ctx context.Context, req *bindings.Request) (*bindings.Result, error) {
	if f.down.Load() {
		return nil, bindings.Errorf(bindings.CodeUnavailable, "mirror down")
	}
	return f.Backend.Execute(ctx, req)
}

// TestMirrorDownThenReapply: a mirror that is down for part of a run misses
// those writes (counted as failures); re-applying the captured writes of
// the keyspace brings it back in line with the primary, write times
// included, and the LWT is not applied a second time.
func TestMirrorDownThenReapply(t *testing.T) {
	ctx := t.Context()
	copyB := &flaky{Backend: open(t)}
	e := newEnv(t, 0, copyB.Backend, 0)
	// newEnv wired the plain store; rebuild the coordinator with the flaky
	// one and a capture writer beside the mirror.
	m, err := mirror.New(mirror.Config{Targets: []mirror.Target{{Name: "copy", Backend: copyB}},
		Keyspaces: map[string][]string{"ks": {"copy"}}, Workers: 2, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	wc := capture.DefaultWriterConfig()
	wc.Dir, wc.NodeID = t.TempDir(), "n1"
	w, err := capture.NewWriter(wc)
	if err != nil {
		t.Fatal(err)
	}
	c, err := proxy.New(proxy.Config{Backends: map[string]bindings.Backend{"p": e.primary}, Default: "p",
		Tap: proxy.Taps{w, m}, Stamp: m.Stamp})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	e.s = c.NewSession(bindings.SourceCQL)
	for k := 0; k < 30; k++ {
		if k == 10 { // what was sent so far is applied, then the mirror goes down
			if err := m.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			copyB.down.Store(true)
		}
		if k == 20 {
			if err := m.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			copyB.down.Store(false)
		}
		e.q(t, "INSERT INTO ks.t (k, c, v) VALUES (?, 1, 'x')", i32(k))
		e.q(t, "UPDATE ks.t SET v = 'y' WHERE k = ? AND c = 2", i32(k))
	}
	e.q(t, "INSERT INTO ks.t (k, c, v) VALUES (100, 1, 'lwt') IF NOT EXISTS")
	if err := m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if st := m.Status()[0]; st.Failed != 20 || st.Errors["Unavailable"] != 20 {
		t.Fatalf("status %+v: want the 20 writes made while down counted as Unavailable failures", st)
	}
	if p, c := rows(t, e.primary), rows(t, copyB.Backend); len(c) != len(p)-20 {
		t.Fatalf("mirror has %d rows, primary %d: want 20 missing", len(c), len(p))
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	mg, err := capture.NewMerger(ctx, capture.MergeOptions{}, wc.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer mg.Close()
	st, err := mirror.Reapply(ctx, mg.Next, copyB, mirror.ReapplyFilter{Keyspaces: []string{"ks"}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Applied != 60 || st.NotIdempotent != 1 || st.Failed != 0 {
		t.Fatalf("reapply %+v: want the 60 plain writes applied and the LWT left out", st)
	}
	pr, mr := rows(t, e.primary), rows(t, copyB.Backend)
	stripLWTTime(pr, mr)
	if !slices.Equal(pr, mr) {
		t.Fatalf("after reapply the mirror differs:\n%q\n%q", pr, mr)
	}
}

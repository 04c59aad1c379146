package faulty

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// fakeEngine answers every statement with one row holding the query text,
// and counts calls.
type fakeEngine struct{ calls atomic.Int64 }

func (f *fakeEngine) Execute(_ context.Context, req *bindings.Request) (*bindings.Result, error) {
	f.calls.Add(1)
	return &bindings.Result{Kind: bindings.ResultRows, Rows: [][][]byte{{[]byte(req.Query)}}}, nil
}

func (f *fakeEngine) Batch(_ context.Context, req *bindings.BatchRequest) (*bindings.Result, error) {
	f.calls.Add(1)
	return &bindings.Result{Kind: bindings.ResultVoid}, nil
}

func (f *fakeEngine) Prepare(context.Context, string, string) (*bindings.Prepared, error) {
	return &bindings.Prepared{}, nil
}
func (f *fakeEngine) Catalog(context.Context) (*schema.Catalog, error) { return nil, nil }
func (f *fakeEngine) Ping(context.Context) error                       { return nil }
func (f *fakeEngine) Close() error                                     { return nil }

func fakeBackend() (*Backend, *fakeEngine) {
	f := &fakeEngine{}
	return Wrap(f), f
}

const (
	selectQ = "SELECT v FROM ks.kv WHERE k = 5"
	insertQ = "INSERT INTO ks.kv (k, v) VALUES (5, 'x')"
)

func exec(t *testing.T, b *Backend, ctx context.Context, q string) (*bindings.Result, error) {
	t.Helper()
	return b.Execute(ctx, &bindings.Request{Query: q})
}

// waitGoroutines polls until the goroutine count is back to at most n.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("goroutines: got %d, want <= %d\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
}

func TestFaultDelayHonoursContext(t *testing.T) {
	b, f := fakeBackend()
	before := runtime.NumGoroutine()
	remove := b.InjectFault(Fault{Match: "SELECT", Delay: time.Hour})
	defer remove()

	cases := []struct {
		name string
		run  func(ctx context.Context) error
		code bindings.ErrorCode
		wt   string
	}{
		{"select", func(ctx context.Context) error { _, err := exec(t, b, ctx, selectQ); return err }, bindings.CodeReadTimeout, ""},
		{"parsed select", func(ctx context.Context) error {
			_, err := b.Execute(ctx, &bindings.Request{Parsed: &cql.Parsed{Stmt: &cql.Select{}, Text: selectQ}})
			return err
		}, bindings.CodeReadTimeout, ""},
		{"batch", func(ctx context.Context) error {
			_, err := b.Batch(ctx, &bindings.BatchRequest{Type: cql.BatchUnlogged, Entries: []bindings.BatchEntry{{Query: insertQ}, {Query: "INSERT ... SELECT"}}})
			return err
		}, bindings.CodeWriteTimeout, "UNLOGGED_BATCH"},
	}
	for _, c := range cases {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
		err := c.run(ctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: got %v, want it to wrap context.DeadlineExceeded", c.name, err)
		}
		if e := bindings.AsError(err); e.Code != c.code || e.WriteType != c.wt {
			t.Errorf("%s: got code %v write type %q, want %v %q", c.name, e.Code, e.WriteType, c.code, c.wt)
		}
	}
	// Cancellation (not only deadlines) ends the wait too.
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { _, err := exec(t, b, ctx, selectQ); done <- err }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v, want context.Canceled", err)
	}
	if n := f.calls.Load(); n != 0 {
		t.Errorf("engine calls: got %d, want 0 (every call timed out in the delay)", n)
	}
	// A statement that does not match is not delayed.
	if _, err := exec(t, b, t.Context(), insertQ); err != nil {
		t.Errorf("unmatched statement: %v", err)
	}
	waitGoroutines(t, before)
}

func TestFaultDelayThenRun(t *testing.T) {
	b, f := fakeBackend()
	defer b.InjectFault(Fault{Match: "INSERT", Delay: 15 * time.Millisecond})()
	start := time.Now()
	if _, err := exec(t, b, t.Context(), insertQ); err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if el := time.Since(start); el < 15*time.Millisecond {
		t.Errorf("elapsed %v, want at least the 15ms delay", el)
	}
	if f.calls.Load() != 1 {
		t.Errorf("engine calls: got %d, want 1", f.calls.Load())
	}
}

func TestFaultErrorAndAlter(t *testing.T) {
	b, f := fakeBackend()
	boom := bindings.Errorf(bindings.CodeUnavailable, "injected")
	rmErr := b.InjectFault(Fault{Match: `^INSERT INTO ks\.kv`, Err: boom})
	rmAlter := b.InjectFault(Fault{Match: "FROM ks.kv", Alter: func(r *bindings.Result) {
		r.Rows[0][0] = []byte("wrong")
	}})

	if _, err := exec(t, b, t.Context(), insertQ); !errors.Is(err, boom) {
		t.Errorf("INSERT: got %v, want the injected error", err)
	}
	if n := f.calls.Load(); n != 0 {
		t.Errorf("engine calls after an injected error: got %d, want 0", n)
	}
	res, err := exec(t, b, t.Context(), selectQ)
	if err != nil || string(res.Rows[0][0]) != "wrong" {
		t.Errorf("SELECT with Alter: got %v, %v; want the altered row", res, err)
	}
	// Batches match on any entry.
	_, err = b.Batch(t.Context(), &bindings.BatchRequest{Entries: []bindings.BatchEntry{{Query: "UPDATE x SET a = 1"}, {Query: insertQ}}})
	if !errors.Is(err, boom) {
		t.Errorf("Batch: got %v, want the injected error", err)
	}

	rmErr()
	rmErr() // removing twice is harmless
	if _, err := exec(t, b, t.Context(), insertQ); err != nil {
		t.Errorf("INSERT after removal: %v", err)
	}
	rmAlter()
	if res, _ := exec(t, b, t.Context(), selectQ); string(res.Rows[0][0]) != selectQ {
		t.Errorf("SELECT after removal: got %q, want the real row", res.Rows[0][0])
	}
	if b.faults.Load() != nil {
		t.Errorf("faults pointer not nil after removing every fault")
	}
}

func TestFaultMatching(t *testing.T) {
	cases := []struct {
		match, query string
		want         bool
	}{
		{"", "anything", true},
		{"ks.kv", selectQ, true},
		{"ks.other", selectQ, false},
		{"(?i)^select", "select * from t", true},
		{"^INSERT", selectQ, false},
		// Fingerprints: literals become ?, keywords upper case.
		{"SELECT v FROM ks.kv WHERE k = ?", "select v from ks.kv where k = 42", true},
		{"WHERE k = ?", "SELECT v FROM ks.kv WHERE k = 'x'", true},
		{"WHERE k = ?", "SELECT v FROM ks.kv WHERE j = 1", false},
		// Not a valid regexp: still a substring.
		{"v IN (", "SELECT * FROM t WHERE v IN (1, 2)", true},
	}
	for _, c := range cases {
		b, _ := fakeBackend()
		rm := b.InjectFault(Fault{Match: c.match, Err: errors.New("hit")})
		_, err := exec(t, b, t.Context(), c.query)
		rm()
		if got := err != nil; got != c.want {
			t.Errorf("Match %q on %q: matched=%v, want %v", c.match, c.query, got, c.want)
		}
	}
}

// TestFaultConcurrent installs and removes faults while statements run
// (meant for -race).
func TestFaultConcurrent(t *testing.T) {
	b, _ := fakeBackend()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := exec(t, b, t.Context(), selectQ)
				if err == nil && len(res.Rows) != 1 {
					t.Errorf("rows: got %d, want 1", len(res.Rows))
				}
			}
		}()
	}
	for i := range 200 {
		rm := b.InjectFault(Fault{Match: "SELECT", Alter: func(r *bindings.Result) { r.Warnings = append(r.Warnings, "x") }})
		if i%2 == 0 {
			rm2 := b.InjectFault(Fault{Match: "kv", Err: errors.New("e")})
			rm2()
		}
		rm()
	}
	close(stop)
	wg.Wait()
	if b.faults.Load() != nil {
		t.Errorf("faults pointer not nil after removing every fault")
	}
}

package engine

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// harness is an engine on a memKV with a controllable clock.
type harness struct {
	t   testing.TB
	kv  *memKV
	e   *Engine
	now atomic.Int64 // unix nanoseconds
	ks  string
}

func newHarness(t testing.TB) *harness {
	return newHarnessOpts(t, Options{})
}

func newHarnessOpts(t testing.TB, opts Options) *harness {
	t.Helper()
	h := &harness{t: t, kv: newMemKV(), ks: "ks"}
	h.now.Store(time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	opts.Clock = h.clock
	e, err := New(context.Background(), h.kv, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	h.e = e
	h.exec("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	return h
}

func (h *harness) clock() time.Time { return time.Unix(0, h.now.Load()) }

// advance moves the clock forward.
func (h *harness) advance(d time.Duration) { h.now.Add(int64(d)) }

func (h *harness) run(q string, vals ...any) (*bindings.Result, error) {
	h.t.Helper()
	req := &bindings.Request{Keyspace: h.ks, Query: q}
	if len(vals) > 0 {
		p, err := h.e.Prepare(context.Background(), h.ks, q)
		if err != nil {
			return nil, err
		}
		if len(p.Bind) != len(vals) {
			h.t.Fatalf("%s: %d markers, %d values", q, len(p.Bind), len(vals))
		}
		for i, v := range vals {
			switch x := v.(type) {
			case bindings.Value:
				req.Values = append(req.Values, x)
			default:
				b, err := cql.EncodeGo(p.Bind[i].Type, v)
				if err != nil {
					h.t.Fatalf("%s: encode value %d (%v) as %s: %v", q, i, v, p.Bind[i].Type, err)
				}
				req.Values = append(req.Values, bindings.Value{Bytes: b})
			}
		}
	}
	return h.e.Execute(context.Background(), req)
}

func (h *harness) exec(q string, vals ...any) *bindings.Result {
	h.t.Helper()
	res, err := h.run(q, vals...)
	if err != nil {
		h.t.Fatalf("%s: %v", q, err)
	}
	return res
}

// rows runs a query and formats its rows as "a | b" strings.
func (h *harness) rows(q string, vals ...any) []string {
	h.t.Helper()
	return formatRows(h.exec(q, vals...))
}

func formatRows(res *bindings.Result) []string {
	out := []string{}
	for _, r := range res.Rows {
		parts := make([]string, len(r))
		for i, v := range r {
			parts[i] = cql.FormatValue(res.Columns[i].Type, v)
		}
		out = append(out, strings.Join(parts, " | "))
	}
	return out
}

func columnNames(res *bindings.Result) string {
	names := make([]string, len(res.Columns))
	for i, c := range res.Columns {
		names[i] = c.Name
	}
	return strings.Join(names, ",")
}

// expectRows checks a query's rows exactly (order included).
func (h *harness) expectRows(q string, want ...string) {
	h.t.Helper()
	got := h.rows(q)
	if want == nil {
		want = []string{}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		h.t.Errorf("%s:\ngot  %q\nwant %q", q, got, want)
	}
}

// expectError checks that a query fails with the code and a message
// containing want.
func (h *harness) expectError(q string, code bindings.ErrorCode, want string, vals ...any) {
	h.t.Helper()
	_, err := h.run(q, vals...)
	if err == nil {
		h.t.Errorf("%s: no error, want %s %q", q, code, want)
		return
	}
	var be *bindings.Error
	if !errors.As(err, &be) {
		h.t.Errorf("%s: error %T %v is not a *bindings.Error", q, err, err)
		return
	}
	if be.Code != code || !strings.Contains(be.Message, want) {
		h.t.Errorf("%s:\ngot  %s %q\nwant %s %q", q, be.Code, be.Message, code, want)
	}
}

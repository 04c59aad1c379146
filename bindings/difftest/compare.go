package difftest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// Outcome is what one target answered to a step.
type Outcome struct {
	Result *bindings.Result // pages concatenated
	Err    error
	Pages  int
	Took   time.Duration
}

// maxPages stops a target that never ends a paged read.
const maxPages = 10000

// Execute runs a step on b, following paging states to the end.
func Execute(ctx context.Context, b bindings.Backend, st Step) Outcome {
	start := time.Now()
	out := execute(ctx, b, st)
	out.Took = time.Since(start)
	return out
}

func execute(ctx context.Context, b bindings.Backend, st Step) Outcome {
	if st.Batch != nil {
		req := *st.Batch // backends may keep the request
		res, err := b.Batch(ctx, &req)
		return Outcome{Result: res, Err: err, Pages: 1}
	}
	req := *st.Request
	var all *bindings.Result
	for page := 1; ; page++ {
		if page > maxPages {
			return Outcome{Err: fmt.Errorf("difftest: paging did not end after %d pages", maxPages)}
		}
		r := req
		res, err := b.Execute(ctx, &r)
		if err != nil {
			return Outcome{Err: err, Pages: page}
		}
		if req.PageSize <= 0 || res.Kind != bindings.ResultRows {
			return Outcome{Result: res, Pages: page}
		}
		if len(res.Rows) > int(req.PageSize) {
			return Outcome{Err: fmt.Errorf("difftest: page %d has %d rows, page size is %d", page, len(res.Rows), req.PageSize)}
		}
		if all == nil {
			all = &bindings.Result{Kind: bindings.ResultRows, Columns: res.Columns}
		}
		all.Rows = append(all.Rows, res.Rows...)
		if len(res.PagingState) == 0 {
			return Outcome{Result: all, Pages: page}
		}
		req.PagingState = res.PagingState
	}
}

// ttlTolerance is how far TTL(x) values may differ (seconds): each server
// computes them from its own clock.
const ttlTolerance = 10

// Compare checks got against the reference want. diff describes a
// difference ("" when none); note describes a tolerated one (error
// messages that differ under the same code).
func Compare(st Step, want, got Outcome) (diff, note string) {
	switch {
	case want.Err != nil && got.Err != nil:
		we, ge := bindings.AsError(want.Err), bindings.AsError(got.Err)
		if we.Code != ge.Code {
			return fmt.Sprintf("error code: got %v: %s\n  want %v: %s", ge.Code, ge.Message, we.Code, we.Message), ""
		}
		if we.Message != ge.Message {
			return "", fmt.Sprintf("%v message: got %q, want %q", we.Code, ge.Message, we.Message)
		}
		return "", ""
	case want.Err != nil:
		we := bindings.AsError(want.Err)
		return fmt.Sprintf("got a result, want error %v: %s\n  got %s", we.Code, we.Message, FormatResult(got.Result)), ""
	case got.Err != nil:
		return fmt.Sprintf("got error %v\n  want %s", got.Err, FormatResult(want.Result)), ""
	}
	w, g := want.Result, got.Result
	if w == nil || g == nil {
		if w != g {
			return fmt.Sprintf("result: got %v, want %v", g, w), ""
		}
		return "", ""
	}
	if w.Kind != g.Kind {
		return fmt.Sprintf("result kind: got %s, want %s", FormatResult(g), FormatResult(w)), ""
	}
	switch w.Kind {
	case bindings.ResultSetKeyspace:
		if w.Keyspace != g.Keyspace {
			return fmt.Sprintf("keyspace: got %s, want %s", g.Keyspace, w.Keyspace), ""
		}
	case bindings.ResultSchemaChange:
		if w.Change == nil || g.Change == nil || !sameChange(w.Change, g.Change) {
			return fmt.Sprintf("schema change: got %s, want %s", FormatResult(g), FormatResult(w)), ""
		}
	case bindings.ResultRows:
		return compareRows(st, w, g), ""
	}
	return "", ""
}

func compareRows(st Step, w, g *bindings.Result) string {
	if wc, gc := columnsText(w.Columns), columnsText(g.Columns); wc != gc {
		return fmt.Sprintf("columns: got %s\n  want %s", gc, wc)
	}
	same := len(w.Rows) == len(g.Rows)
	for i := 0; same && i < len(w.Rows); i++ {
		same = rowsEqual(st, w.Rows[i], g.Rows[i])
	}
	if same {
		return ""
	}
	first := 0
	for first < len(w.Rows) && first < len(g.Rows) && rowsEqual(st, w.Rows[first], g.Rows[first]) {
		first++
	}
	return fmt.Sprintf("rows differ from row %d (got %d rows, want %d):\n  got  %s\n  want %s",
		first, len(g.Rows), len(w.Rows), formatRows(g, 12), formatRows(w, 12))
}

func rowsEqual(st Step, a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if (a[i] == nil) != (b[i] == nil) {
			return false
		}
		if slices.Contains(st.TTLColumns, i) && len(a[i]) == 4 && len(b[i]) == 4 {
			d := int64(int32(binary.BigEndian.Uint32(a[i]))) - int64(int32(binary.BigEndian.Uint32(b[i])))
			if d < -ttlTolerance || d > ttlTolerance {
				return false
			}
			continue
		}
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// columnsText renders result columns as "name type, ..." ignoring
// frozenness, which the protocol does not carry.
func columnsText(cols []bindings.ColumnSpec) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.Name + " " + typeText(c.Type)
	}
	return strings.Join(parts, ", ")
}

func typeText(t *cql.Type) string {
	if t == nil {
		return "?"
	}
	return unfrozen(t).String()
}

func unfrozen(t *cql.Type) *cql.Type {
	c := *t
	c.Frozen = false
	c.Elems = make([]*cql.Type, len(t.Elems))
	for i, e := range t.Elems {
		c.Elems[i] = unfrozen(e)
	}
	return &c
}

// FormatResult renders a result briefly.
func FormatResult(r *bindings.Result) string {
	if r == nil {
		return "<nil>"
	}
	switch r.Kind {
	case bindings.ResultVoid:
		return "(void)"
	case bindings.ResultSetKeyspace:
		return "(keyspace " + r.Keyspace + ")"
	case bindings.ResultSchemaChange:
		if r.Change == nil {
			return "(schema change)"
		}
		c := r.Change
		obj := c.Keyspace
		if c.Object != "" {
			obj += "." + c.Object
		}
		return fmt.Sprintf("(schema %s %s %s)", c.Type, c.Target, obj)
	}
	return fmt.Sprintf("[%s] %s", columnsText(r.Columns), formatRows(r, 12))
}

// formatRows renders up to max rows with cql.FormatValue.
func formatRows(r *bindings.Result, max int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d rows", len(r.Rows))
	for i, row := range r.Rows {
		if i == max {
			fmt.Fprintf(&b, "\n      ... %d more", len(r.Rows)-max)
			break
		}
		cells := make([]string, len(row))
		for j, c := range row {
			var t *cql.Type
			if j < len(r.Columns) {
				t = r.Columns[j].Type
			}
			cells[j] = cql.FormatValue(t, c)
		}
		b.WriteString("\n      " + strings.Join(cells, " | "))
	}
	return b.String()
}

// IsUnsupported reports whether a target refused a step as a feature dohyo
// does not implement.
func IsUnsupported(o Outcome) bool { return o.Err != nil && errors.Is(o.Err, bindings.ErrUnsupported) }

func sameChange(a, b *bindings.SchemaChange) bool {
	return a.Type == b.Type && a.Target == b.Target && a.Keyspace == b.Keyspace && a.Object == b.Object && slices.Equal(a.Args, b.Args)
}

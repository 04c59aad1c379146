package embedded

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/dohyo/dohyo/engine/kv"
)

// TestGetSharesCellsSafely reads many rows of different widths in one Get,
// more cells than the shared cell slice starts with, so that it grows
// mid-read: every row must keep exactly its own cells, and appending to one
// row's cells must not overwrite the next row's.
func TestGetSharesCellsSafely(t *testing.T) {
	eachFormat(t, func(t *testing.T, f Format) {
		s, ts := memTable(t, f, "g")
		ctx := t.Context()
		const rows = 300
		width := func(i int) int { return i % 10 } // 0: the row is never written
		var muts []kv.Mutation
		keys := make([][]byte, rows)
		for i := range rows {
			keys[i] = fmt.Appendf(nil, "row%03d", i)
			if width(i) == 0 {
				continue
			}
			m := kv.Mutation{Table: ts, Row: keys[i]}
			for c := range width(i) {
				m.Cells = append(m.Cells, kv.Cell{
					Qualifier: fmt.Appendf(nil, "q%d", c), Timestamp: int64(i),
					Value: fmt.Appendf(nil, "v%d.%d", i, c),
				})
			}
			muts = append(muts, m)
		}
		if err := s.Apply(ctx, muts); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, ts, keys)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != rows {
			t.Fatalf("Get returned %d rows, want %d", len(got), rows)
		}
		check := func(when string) {
			t.Helper()
			for i, r := range got {
				if !bytes.Equal(r.Key, keys[i]) || len(r.Cells) != width(i) {
					t.Fatalf("%s: row %d: key %q with %d cells, want %q with %d", when, i, r.Key, len(r.Cells), keys[i], width(i))
				}
				for c, cell := range r.Cells {
					if want := fmt.Sprintf("q%d=v%d.%d@%d", c, i, c, i); fmt.Sprintf("%s=%s@%d", cell.Qualifier, cell.Value, cell.Timestamp) != want {
						t.Fatalf("%s: row %d cell %d: %s=%s@%d, want %s", when, i, c, cell.Qualifier, cell.Value, cell.Timestamp, want)
					}
				}
			}
		}
		check("read")
		for i := range got {
			got[i].Cells = append(got[i].Cells, kv.Cell{Qualifier: []byte("zz"), Value: []byte("x")})
			got[i].Cells = got[i].Cells[:len(got[i].Cells)-1]
		}
		check("after appending to every row")
	})
}

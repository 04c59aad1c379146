package engine

import "testing"

// TestNewCQLRow checks every width: n slots (no more: appends must not
// reach a neighbour), zeroed, one allocation up to 16 columns, and rows
// that do not share memory.
func TestNewCQLRow(t *testing.T) {
	for n := 0; n <= 20; n++ {
		r, h := newCQLRow(n)
		if len(r.cols) != n || cap(r.cols) != n {
			t.Fatalf("n=%d: len %d cap %d", n, len(r.cols), cap(r.cols))
		}
		for i := range r.cols {
			if r.cols[i].val != nil || r.cols[i].live {
				t.Fatalf("n=%d: slot %d not zero", n, i)
			}
			r.cols[i].live = true
		}
		if h == nil || h.statics != nil || h.del != 0 {
			t.Fatalf("n=%d: header %+v", n, h)
		}
		r2, _ := newCQLRow(n)
		for i := range r2.cols {
			if r2.cols[i].live {
				t.Fatalf("n=%d: a new row shares slot %d with the previous one", n, i)
			}
		}
		want := 3.0
		if n <= 16 {
			want = 1
		}
		// the rows and headers escape, as decodeRow's do
		rows, hdrs := make([]*cqlRow, 0, 64), make([]*partHeader, 0, 64)
		if got := testing.AllocsPerRun(50, func() {
			r, h := newCQLRow(n)
			rows, hdrs = append(rows, r), append(hdrs, h)
		}); got != want {
			t.Errorf("n=%d: %v allocations, want %v", n, got, want)
		}
	}
}

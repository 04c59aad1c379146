package bindings

import "testing"

type countFlusher struct{ n int }

func (f *countFlusher) Flush() { f.n++ }

// TestRelayCork: a connection added twice is flushed once, and the cork
// is empty afterwards.
func TestRelayCork(t *testing.T) {
	var c RelayCork
	a, b := &countFlusher{}, &countFlusher{}
	c.Add(a)
	c.Add(b)
	c.Add(a)
	c.Flush()
	c.Flush()
	if a.n != 1 || b.n != 1 {
		t.Errorf("flushed a %d, b %d times; want once each", a.n, b.n)
	}
	if a := testing.AllocsPerRun(100, func() { c.Add(b); c.Flush() }); a != 0 {
		t.Errorf("Add and Flush allocate %.0f times", a)
	}
}

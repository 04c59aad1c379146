package bufpool

import "testing"

// TestGetIsEmpty: a buffer from the pool is empty, whatever was put back
// (frames are appended to it from its start).
func TestGetIsEmpty(t *testing.T) {
	for i := 0; i < 100; i++ {
		b := Get()
		if len(b) != 0 {
			t.Fatalf("Get returned %d bytes", len(b))
		}
		Put(append(b, "frame"...))
		Put(make([]byte, 3, MaxPooled+1)) // not pooled
	}
}

package hbase

import (
	"context"
	"testing"
)

// TestCompareAndSetMeta: the write happens only when the key holds the
// expected value (absent for nil), on a real HBase.
func TestCompareAndSetMeta(t *testing.T) {
	s := openTestStore(t)
	defer s.Close()
	ctx := context.Background()
	key := uniqueName("cas")
	step := func(old, value []byte, want bool) {
		t.Helper()
		ok, err := s.CompareAndSetMeta(ctx, key, old, value)
		if err != nil || ok != want {
			t.Fatalf("CompareAndSetMeta(%q -> %q) = %v, %v; want %v", old, value, ok, err, want)
		}
	}
	step([]byte("x"), []byte("a"), false) // absent, not "x"
	step(nil, []byte("a"), true)          // absent: created
	step(nil, []byte("b"), false)         // no longer absent
	step([]byte("b"), []byte("c"), false) // holds "a"
	step([]byte("a"), []byte("c"), true)
	if got, err := s.GetMeta(ctx, key); err != nil || string(got) != "c" {
		t.Fatalf("GetMeta = %q, %v; want c", got, err)
	}
}

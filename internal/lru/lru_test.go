package lru

import "testing"

func TestEvictsLeastRecentlyUsed(t *testing.T) {
	c := New[string, int](2)
	c.Put("a", 1)
	c.Put("b", 2)
	if _, ok := c.Get("a"); !ok { // a is now the most recent
		t.Fatal("a missing")
	}
	c.Put("c", 3) // evicts b
	if _, ok := c.Get("b"); ok {
		t.Error("b survived eviction although a was used more recently")
	}
	if v, ok := c.Get("a"); !ok || v != 1 {
		t.Errorf("a = %v, %v", v, ok)
	}
	c.Put("a", 10)
	if v, _ := c.Get("a"); v != 10 {
		t.Errorf("a after update = %v, want 10", v)
	}
	st := c.Stats()
	if st.Size != 2 || st.Evictions != 1 || st.Hits != 3 || st.Misses != 1 {
		t.Errorf("stats = %+v, want size 2, 1 eviction, 3 hits, 1 miss", st)
	}
}

func TestMinimumSize(t *testing.T) {
	c := New[int, int](0)
	c.Put(1, 1)
	c.Put(2, 2)
	if st := c.Stats(); st.Size != 1 {
		t.Errorf("size = %d, want 1", st.Size)
	}
}

func TestRemoveIf(t *testing.T) {
	c := New[int, string](10)
	for i := 0; i < 6; i++ {
		c.Put(i, "v")
	}
	if n := c.RemoveIf(func(k int, _ string) bool { return k%2 == 0 }); n != 3 {
		t.Fatalf("removed %d, want 3", n)
	}
	for i := 0; i < 6; i++ {
		if _, ok := c.Get(i); ok != (i%2 == 1) {
			t.Errorf("key %d present=%v", i, ok)
		}
	}
	if s := c.Stats(); s.Size != 3 {
		t.Errorf("size %d, want 3", s.Size)
	}
}

package lru

import (
	"container/list"
	"sync"
)

// Cache is a small concurrency-safe bounded map with least-recently-used
// eviction. dohyo keeps parsed statements, plans and prepared statements in
// it: the hot path of a statement executed millions of times is one lookup.
type Cache[K comparable, V any] struct {
	mu        sync.Mutex
	max       int
	ll        *list.List
	items     map[K]*list.Element
	evictions uint64
	hits      uint64
	misses    uint64
}

type lruEntry[K comparable, V any] struct {
	key K
	val V
}

// New returns a cache holding at most max entries (at least 1).
func New[K comparable, V any](max int) *Cache[K, V] {
	if max < 1 {
		max = 1
	}
	return &Cache[K, V]{max: max, ll: list.New(), items: make(map[K]*list.Element)}
}

// Get returns the value for k and marks it recently used.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.ll.MoveToFront(e)
		c.hits++
		return e.Value.(*lruEntry[K, V]).val, true
	}
	c.misses++
	var zero V
	return zero, false
}

// Put stores v under k, evicting the least recently used entry when full.
func (c *Cache[K, V]) Put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		e.Value.(*lruEntry[K, V]).val = v
		c.ll.MoveToFront(e)
		return
	}
	c.items[k] = c.ll.PushFront(&lruEntry[K, V]{key: k, val: v})
	for c.ll.Len() > c.max {
		last := c.ll.Back()
		c.ll.Remove(last)
		delete(c.items, last.Value.(*lruEntry[K, V]).key)
		c.evictions++
	}
}

// Stats are a cache's counters.
type Stats struct {
	Size                    int
	Hits, Misses, Evictions uint64
}

// Stats returns the current size and counters.
func (c *Cache[K, V]) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Size: c.ll.Len(), Hits: c.hits, Misses: c.misses, Evictions: c.evictions}
}

// RemoveIf removes every entry for which drop returns true and returns how
// many it removed. drop runs with the cache locked: it must not call back
// into the cache.
func (c *Cache[K, V]) RemoveIf(drop func(K, V) bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for e := c.ll.Front(); e != nil; {
		next := e.Next()
		ent := e.Value.(*lruEntry[K, V])
		if drop(ent.key, ent.val) {
			c.ll.Remove(e)
			delete(c.items, ent.key)
			n++
		}
		e = next
	}
	return n
}

package proxy

import (
	"container/list"
	"sync"
)

// lru is a small concurrency-safe bounded map with least-recently-used
// eviction, used for prepared statements and parsed statements.
type lru[K comparable, V any] struct {
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

func newLRU[K comparable, V any](max int) *lru[K, V] {
	if max < 1 {
		max = 1
	}
	return &lru[K, V]{max: max, ll: list.New(), items: make(map[K]*list.Element)}
}

func (c *lru[K, V]) get(k K) (V, bool) {
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

func (c *lru[K, V]) put(k K, v V) {
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

// CacheStats are counters of an LRU cache.
type CacheStats struct {
	Size                    int
	Hits, Misses, Evictions uint64
}

func (c *lru[K, V]) stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Size: c.ll.Len(), Hits: c.hits, Misses: c.misses, Evictions: c.evictions}
}

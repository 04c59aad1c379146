package metrics

import (
	"sync/atomic"
	"unsafe"
)

// classCache remembers the classification of recently seen statement
// texts, so that a statement run again and again (a prepared statement's
// text, or the same unprepared text) is not scanned per request. It is a
// direct-mapped table of immutable entries swapped atomically: a lookup
// never locks nor allocates; a miss scans and replaces its slot. Each
// entry holds its text, so a text found at the same address is the same
// text (the address cannot be reused while the entry lives).
type classCache struct {
	slots [classSlots]atomic.Pointer[classEntry]
}

type classEntry struct {
	query, op, keyspace string
}

const (
	classSlots = 256
	// maxCachedQuery bounds the texts kept: longer ones are scanned each
	// time (a batch of literals is rarely run twice).
	maxCachedQuery = 4 << 10
)

// classify is Classify through the cache.
func (c *classCache) classify(q string) (op, keyspace string) {
	if len(q) == 0 || len(q) > maxCachedQuery {
		return Classify(q)
	}
	slot := &c.slots[classSlot(q)]
	if e := slot.Load(); e != nil && len(e.query) == len(q) &&
		(unsafe.StringData(e.query) == unsafe.StringData(q) || e.query == q) {
		return e.op, e.keyspace
	}
	op, keyspace = Classify(q)
	slot.Store(&classEntry{query: q, op: op, keyspace: keyspace})
	return op, keyspace
}

// classSlot picks a slot from the text's length and a few of its bytes
// (statements differ most in their table name, towards the middle, and
// their length): cheap, and only a hint — a lookup compares the text.
func classSlot(q string) int {
	n := len(q)
	h := uint32(n)*2654435761 ^ uint32(q[n/2])<<8 ^ uint32(q[n/3])<<16 ^ uint32(q[2*n/3]) ^ uint32(q[n-1])<<24
	h ^= h >> 15
	h *= 2246822519
	h ^= h >> 13
	return int(h % classSlots)
}

package hbase

import (
	"bytes"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/tsuna/gohbase/hrpc"
)

// regionCache remembers, per HBase table, the regions gohbase routed this
// store's reads to, so that a multi-key read can group its keys by region
// before sending (gohbase does not expose its own region cache). It is only
// a hint: gohbase routes every call itself, and a multiGet sends only the
// keys of the region it was routed to, so a stale entry costs a second
// round for the keys it misplaced, never a wrong read.
type regionCache struct {
	mu     sync.Mutex // serialises learn and forget
	tables sync.Map   // table name -> *atomic.Pointer[[]hrpc.RegionInfo]
}

// regions returns a table's known regions, sorted by start key and
// disjoint; the slice is never modified.
func (c *regionCache) regions(table string) []hrpc.RegionInfo {
	if p, ok := c.tables.Load(table); ok {
		return *p.(*atomic.Pointer[[]hrpc.RegionInfo]).Load()
	}
	return nil
}

// locate returns the index in rs of the live region holding key, or -1.
func locate(rs []hrpc.RegionInfo, key []byte) int {
	i := sort.Search(len(rs), func(i int) bool { return bytes.Compare(rs[i].StartKey(), key) > 0 }) - 1
	if i < 0 {
		return -1
	}
	if stop := rs[i].StopKey(); len(stop) > 0 && bytes.Compare(key, stop) >= 0 {
		return -1
	}
	if rs[i].Context().Err() != nil {
		return -1 // split, merged or moved: gohbase has let it go
	}
	return i
}

// learn records r as the region of its key range, replacing the regions it
// overlaps.
func (c *regionCache) learn(table string, r hrpc.RegionInfo) {
	if r == nil || r.Context().Err() != nil {
		return
	}
	if rs := c.regions(table); known(rs, r) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p, _ := c.tables.LoadOrStore(table, newRegionList())
	ptr := p.(*atomic.Pointer[[]hrpc.RegionInfo])
	old := *ptr.Load()
	next := make([]hrpc.RegionInfo, 0, len(old)+1)
	for _, o := range old {
		if o != r && !overlaps(o, r) && o.Context().Err() == nil {
			next = append(next, o)
		}
	}
	next = append(next, r)
	slices.SortFunc(next, func(a, b hrpc.RegionInfo) int { return bytes.Compare(a.StartKey(), b.StartKey()) })
	ptr.Store(&next)
}

// known reports whether rs holds r.
func known(rs []hrpc.RegionInfo, r hrpc.RegionInfo) bool {
	i := locate(rs, r.StartKey())
	return i >= 0 && rs[i] == r
}

// forget drops a table's regions (the table was dropped or truncated).
func (c *regionCache) forget(table string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tables.Delete(table)
}

func newRegionList() *atomic.Pointer[[]hrpc.RegionInfo] {
	p := new(atomic.Pointer[[]hrpc.RegionInfo])
	p.Store(new([]hrpc.RegionInfo))
	return p
}

// overlaps reports whether two regions' key ranges intersect (an empty stop
// key is the end of the table).
func overlaps(a, b hrpc.RegionInfo) bool {
	before := func(x, y hrpc.RegionInfo) bool { // x ends at or before y starts
		return len(x.StopKey()) > 0 && bytes.Compare(x.StopKey(), y.StartKey()) <= 0
	}
	return !before(a, b) && !before(b, a)
}

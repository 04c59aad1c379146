package bufpool

import "sync"

// MaxPooled is the largest capacity put back: huge result frames are left
// to the garbage collector.
const MaxPooled = 256 << 10

// Pools hold frame buffers. sync.Pool wants pointers, and a buffer travels
// as a plain []byte between Get and Put, so the *[]byte holders are pooled
// too (holders): putting &b would allocate a new holder for every frame.
var (
	bufs    = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}
	holders = sync.Pool{New: func() any { return new([]byte) }}
)

// Get returns an empty buffer (capacity at least 1 KiB when new).
func Get() []byte {
	h := bufs.Get().(*[]byte)
	b := (*h)[:0]
	*h = nil
	holders.Put(h)
	return b
}

// Put hands b back for reuse; the caller must not touch it afterwards.
func Put(b []byte) {
	if cap(b) <= MaxPooled {
		h := holders.Get().(*[]byte)
		*h = b
		bufs.Put(h)
	}
}

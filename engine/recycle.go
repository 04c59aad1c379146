package engine

import (
	"unsafe"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine/kv"
)

// Recycling. On a store that keeps nothing of what it is given once a call
// returns (CopyingKV: the embedded store), or once a call returns without
// error (SettlingKV: HBase), a statement's execution context and mutation
// builder are reused by later statements instead of being allocated for
// each (a context is ~0.5 KB with pointers: allocating and scanning it was
// a tenth of an engine point write's CPU). Three rules keep reuse safe:
//   - on a SettlingKV, only statements that succeeded are recycled;
//   - a write's context is recycled once the write is applied (x.spent),
//     since the store is then done with its mutations, which point into
//     the context's key arena;
//   - any other statement's context is recycled only when its result holds
//     no byte of the context (heldBy), checked value by value: a result
//     outlives the statement, and its values may alias what they were
//     decoded from. A point read's result rows live in resultMem, apart.

// recycling says when a store lets the engine reuse memory it was given.
type recycling uint8

const (
	recycleNever     recycling = iota
	recycleOnSuccess           // SettlingKV
	recycleAlways              // CopyingKV
)

func recyclingOf(store kv.KV) recycling {
	if c, ok := store.(kv.CopyingKV); ok && c.CopiesArguments() {
		return recycleAlways
	}
	if c, ok := store.(kv.SettlingKV); ok && c.SettlesOnSuccess() {
		return recycleOnSuccess
	}
	return recycleNever
}

// storeDone reports whether the store keeps nothing of what it was given
// by calls that ended with err: the one place the store's rule is read.
func (e *Engine) storeDone(err error) bool {
	return e.recycle == recycleAlways || e.recycle == recycleOnSuccess && err == nil
}

// getExecCtx returns an empty execution context, a recycled one when the
// store allows recycling.
func (e *Engine) getExecCtx() *execCtx {
	if e.recycle != recycleNever {
		if x, ok := e.xPool.Get().(*execCtx); ok {
			return x
		}
	}
	return &execCtx{e: e}
}

// recycleExecCtx keeps x for a later statement when nothing of it
// outlives this one: a write the store is done with, or a statement whose
// result does not point into it.
func (e *Engine) recycleExecCtx(x *execCtx, res *bindings.Result, err error) {
	if !e.storeDone(err) || !x.spent && (err != nil || x.heldBy(res)) {
		return
	}
	*x = execCtx{e: e}
	e.xPool.Put(x)
}

// heldBy reports whether any byte slice of res points into x.
func (x *execCtx) heldBy(res *bindings.Result) bool {
	if res == nil {
		return false
	}
	lo := uintptr(unsafe.Pointer(x))
	hi := lo + unsafe.Sizeof(*x)
	in := func(b []byte) bool {
		if cap(b) == 0 {
			return false
		}
		p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		return p >= lo && p < hi
	}
	if in(res.PagingState) {
		return true
	}
	for _, row := range res.Rows {
		for _, v := range row {
			if in(v) {
				return true
			}
		}
	}
	return false
}

// getMutBuilder returns an empty mutation builder, a recycled one when the
// store allows recycling.
func (e *Engine) getMutBuilder() *mutBuilder {
	if e.recycle != recycleNever {
		if m, ok := e.mbPool.Get().(*mutBuilder); ok {
			return m
		}
	}
	return &mutBuilder{}
}

// putMutBuilder keeps m for a later statement once the store is done with
// its mutations (applied with result err), if m kept to its own small
// arrays (a builder that grew is left to the garbage collector).
func (e *Engine) putMutBuilder(m *mutBuilder, err error) {
	if !e.storeDone(err) || m.idx != nil || cap(m.muts) > len(m.first) || len(m.counters) > 0 {
		return
	}
	*m = mutBuilder{}
	e.mbPool.Put(m)
}

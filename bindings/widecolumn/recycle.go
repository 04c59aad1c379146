package widecolumn

import (
	"unsafe"

	"github.com/dohyo/dohyo/bindings"
)

// Recycling. On a store that keeps nothing of what it is given once a call
// returns (CopyingKV: the embedded store), a statement's execution context
// and mutation builder are reused by later statements instead of being
// allocated for each (a context is ~0.5 KB with pointers: allocating and
// scanning it was a tenth of an engine point write's CPU). Two rules keep
// reuse safe:
//   - a write's context is recycled once the write is applied (x.spent),
//     since the store copied its mutations, which point into the context's
//     key arena;
//   - any other statement's context is recycled only when its result holds
//     no byte of the context (heldBy), checked value by value: a result
//     outlives the statement, and its values may alias what they were
//     decoded from. A point read's result rows live in resultMem, apart.

// getExecCtx returns an empty execution context, a recycled one when the
// store allows recycling.
func (e *Engine) getExecCtx() *execCtx {
	if e.recycle {
		if x, ok := e.xPool.Get().(*execCtx); ok {
			return x
		}
	}
	return &execCtx{e: e}
}

// recycleExecCtx keeps x for a later statement when nothing of it
// outlives this one: a write that is applied, or a statement whose result
// does not point into it.
func (e *Engine) recycleExecCtx(x *execCtx, res *bindings.Result, err error) {
	if !e.recycle {
		return
	}
	if !x.spent && (err != nil || x.heldBy(res)) {
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
	if e.recycle {
		if m, ok := e.mbPool.Get().(*mutBuilder); ok {
			return m
		}
	}
	return &mutBuilder{}
}

// putMutBuilder keeps m for a later statement once its mutations are
// applied, if the store copied them and m kept to its own small arrays
// (a builder that grew is left to the garbage collector).
func (e *Engine) putMutBuilder(m *mutBuilder) {
	if !e.recycle || m.idx != nil || cap(m.muts) > len(m.first) || len(m.counters) > 0 {
		return
	}
	*m = mutBuilder{}
	e.mbPool.Put(m)
}

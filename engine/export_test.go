package engine

import "github.com/dohyo/dohyo/engine/kv"

// NewMemKV exposes the test in-memory KV to the external test package.
func NewMemKV() kv.KV { return newMemKV() }

// SetANNExact makes ANN queries of e score every row instead of probing
// the vector index (benchmarks compare the two).
func SetANNExact(e *Engine, exact bool) { e.annExact = exact }

// ANNCandidates exposes how many candidates an ANN query gathers.
func ANNCandidates(k int) int { return annCandidates(k, 0) }

// Package lwtcheck is the Jepsen-style linearizability check of LWT used by
// the tier tests: a per-key register model for porcupine (read, write,
// compare-and-set, with indeterminate outcomes), a concurrent history
// recorder, and the check that fails a test when the history is not
// linearizable.
package lwtcheck

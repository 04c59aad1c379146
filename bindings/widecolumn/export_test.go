package widecolumn

// NewMemKV exposes the test in-memory KV to the external test package.
func NewMemKV() KV { return newMemKV() }

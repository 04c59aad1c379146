package metrics

import (
	"sync/atomic"

	"github.com/dohyo/dohyo/bindings"
)

// Tap is the coordinator's tap seam (proxy.Tap), restated so that this
// package does not depend on proxy.
type Tap interface {
	Observe(o *bindings.Observation)
}

// KeyspaceSet is the set of keyspaces that get a keyspace label of their
// own (the catalog's); others count as "other", so a client cannot create
// unbounded series by naming keyspaces that do not exist. Safe for
// concurrent use; Set replaces the whole set.
type KeyspaceSet struct {
	p atomic.Pointer[map[string]struct{}]
}

// Set replaces the set.
func (k *KeyspaceSet) Set(names []string) {
	m := make(map[string]struct{}, len(names))
	for _, n := range names {
		m[n] = struct{}{}
	}
	k.p.Store(&m)
}

// Has reports whether name is in the set.
func (k *KeyspaceSet) Has(name string) bool {
	if k == nil {
		return false
	}
	p := k.p.Load()
	if p == nil {
		return false
	}
	_, ok := (*p)[name]
	return ok
}

// systemKeyspaces always get their own label (drivers query them).
var systemKeyspaces = map[string]bool{
	"system": true, "system_schema": true, "system_auth": true, "system_distributed": true,
	"system_traces": true, "system_views": true, "system_virtual_schema": true,
}

// TapConfig wires a metrics tap.
type TapConfig struct {
	// Next receives every observation after it is counted (capture); nil
	// for none.
	Next Tap
	// Keyspaces that get their own label.
	Keyspaces *KeyspaceSet
	// Backend names the backend serving a keyspace ("" for the session
	// without one); the result is used as the backend label, so it must
	// come from configuration (see BackendLabel).
	Backend func(keyspace string) string
}

// RequestTap counts and times every request it observes, then forwards it.
type RequestTap struct {
	m       *Metrics
	cfg     TapConfig
	classes classCache
}

// Tap returns a tap that records request metrics and forwards to cfg.Next.
func (m *Metrics) Tap(cfg TapConfig) *RequestTap {
	return &RequestTap{m: m, cfg: cfg}
}

// WantsRows tells whether the next tap uses result rows (row counts and
// digests); the metrics themselves do not.
func (t *RequestTap) WantsRows() bool {
	return t.cfg.Next != nil && bindings.WantsRows(t.cfg.Next)
}

// WantsValues tells whether the next tap uses bound values; the metrics
// themselves do not.
func (t *RequestTap) WantsValues() bool {
	return t.cfg.Next != nil && bindings.WantsValues(t.cfg.Next)
}

// Observe implements Tap. It never blocks.
func (t *RequestTap) Observe(o *bindings.Observation) {
	// A batch is one request; its children are observed one by one.
	if o.BatchSize == 0 || o.BatchIndex == 0 {
		t.record(o)
	}
	if t.cfg.Next != nil {
		t.cfg.Next.Observe(o)
	}
}

func (t *RequestTap) record(o *bindings.Observation) {
	op, ks := t.classes.classify(o.Query)
	if o.BatchSize > 0 {
		op = OpBatch
	}
	if ks == "" {
		ks = o.Keyspace
	}
	backend := ""
	if t.cfg.Backend != nil {
		backend = t.cfg.Backend(ks)
	}
	status := StatusOK
	if o.Err {
		status = o.ErrCode.String()
		if isBackendError(o.ErrCode) {
			t.m.backendErrors.WithLabelValues(backend, status).Inc()
		}
	}
	t.m.ObserveRequest(o.Source.String(), t.keyspaceLabel(ks), op, backend, status, o.Latency)
}

func (t *RequestTap) keyspaceLabel(ks string) string { return keyspaceLabel(t.cfg.Keyspaces, ks) }

// keyspaceLabel is the keyspace label value: the name for system and
// known keyspaces, else other (or none).
func keyspaceLabel(known *KeyspaceSet, ks string) string {
	switch {
	case ks == "":
		return KeyspaceNone
	case systemKeyspaces[ks] || known.Has(ks):
		return ks
	}
	return KeyspaceOther
}

// isBackendError tells failures of the serving side from client mistakes
// (syntax, invalid requests, authorization).
func isBackendError(c bindings.ErrorCode) bool {
	switch c {
	case bindings.CodeServerError, bindings.CodeUnavailable, bindings.CodeOverloaded,
		bindings.CodeBootstrapping, bindings.CodeTruncateError, bindings.CodeWriteTimeout,
		bindings.CodeReadTimeout, bindings.CodeReadFailure, bindings.CodeWriteFailure:
		return true
	}
	return false
}

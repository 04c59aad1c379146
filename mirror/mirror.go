package mirror

import (
	"context"
	"hash/maphash"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/internal/lru"
)

// Defaults of Config.
const (
	DefaultQueue   = 8192
	DefaultWorkers = 4
	DefaultTimeout = 5 * time.Second
	maxExamples    = 20
)

// Target is one mirror: a backend the writes (and sampled reads) of some
// keyspaces are also sent to.
type Target struct {
	Name    string // as shown in metrics, status and reports (e.g. its URL without secrets)
	Backend bindings.Backend
}

// Config configures a Mirror.
type Config struct {
	// Keyspaces maps a keyspace to the mirrors its requests go to.
	Keyspaces map[string][]string
	// Targets are the mirrors by name.
	Targets []Target
	// ReadSample is the fraction of successful reads also sent to the
	// mirrors and compared (0: none, 1: every read).
	ReadSample float64
	// Queue bounds the requests waiting per mirror (DefaultQueue); when
	// full, new ones are dropped and counted, never waited for.
	Queue int
	// Workers per mirror (DefaultWorkers). Requests of one partition go
	// to one worker, so a mirror applies them in the primary's order.
	Workers int
	// Timeout of each mirrored request (DefaultTimeout).
	Timeout time.Duration
	// Schema also mirrors the schema statements of mirrored keyspaces
	// (CREATE/ALTER/DROP of keyspaces, tables, indexes and types). Each
	// is a barrier on every mirror: it runs once the requests queued
	// before it were applied, and the requests after it wait for it.
	Schema bool
	// Logger receives state changes; nil discards.
	Logger *slog.Logger
}

// Mirror is a tap (it observes every request the coordinator answered) that
// re-applies successful writes to the mirrors of their keyspace and
// compares a sample of reads, asynchronously: the primary is never waited
// for. It implements bindings.RowsWanter (rows are digested for it only
// when reads are sampled).
type Mirror struct {
	cfg     Config
	log     *slog.Logger
	targets map[string]*target
	byKS    atomic.Pointer[map[string][]*target]
	seed    maphash.Seed
	parsed  *lru.Cache[string, *cql.Parsed]
	now     func() time.Time

	wg     sync.WaitGroup
	mu     sync.RWMutex // held shared while enqueueing; Close takes it to close the queues
	closed bool
}

// New starts a Mirror's workers; Close stops them.
func New(cfg Config) (*Mirror, error) {
	if cfg.Queue <= 0 {
		cfg.Queue = DefaultQueue
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	m := &Mirror{cfg: cfg, log: cfg.Logger, targets: map[string]*target{}, seed: maphash.MakeSeed(),
		parsed: lru.New[string, *cql.Parsed](4096), now: time.Now}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	for _, t := range cfg.Targets {
		m.targets[t.Name] = newTarget(m, t, cfg.Queue/cfg.Workers+1, cfg.Workers)
	}
	if err := m.SetKeyspaces(cfg.Keyspaces); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// SetKeyspaces replaces which keyspaces go to which mirrors (at runtime:
// the admin endpoint). Every name must be a configured target.
func (m *Mirror) SetKeyspaces(ks map[string][]string) error {
	out := map[string][]*target{}
	for k, names := range ks {
		for _, n := range names {
			t := m.targets[n]
			if t == nil {
				return bindings.Errorf(bindings.CodeInvalid, "mirror %q is not configured", n)
			}
			out[k] = append(out[k], t)
		}
	}
	m.byKS.Store(&out)
	return nil
}

// Keyspaces returns which keyspaces go to which mirrors.
func (m *Mirror) Keyspaces() map[string][]string {
	out := map[string][]string{}
	for ks, ts := range *m.byKS.Load() {
		for _, t := range ts {
			out[ks] = append(out[ks], t.t.Name)
		}
	}
	return out
}

// Mirrored tells whether keyspace ks has mirrors (the coordinator then
// gives un-timestamped writes a timestamp, so that both sides resolve
// last-write-wins alike).
func (m *Mirror) Mirrored(ks string) bool {
	return len((*m.byKS.Load())[ks]) > 0
}

// Stamp implements the coordinator's Config.Stamp: plain writes of a
// mirrored keyspace get the coordinator's timestamp when the client sent
// none.
func (m *Mirror) Stamp(ks string, st cql.Statement) bool { return m.Mirrored(ks) && Stampable(st) }

// Any tells whether any keyspace is mirrored.
func (m *Mirror) Any() bool { return len(*m.byKS.Load()) > 0 }

// WantsRows implements bindings.RowsWanter: read results are digested
// only when reads are sampled.
func (m *Mirror) WantsRows() bool { return m.cfg.ReadSample > 0 && m.Any() }

// WantsValues implements bindings.ValuesWanter: mirrored writes are
// replayed with their values while any keyspace is mirrored.
func (m *Mirror) WantsValues() bool { return m.Any() }

// Observe implements the coordinator's tap. It never blocks.
func (m *Mirror) Observe(o *bindings.Observation) {
	if o.Err {
		return
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return
	}
	p := m.parse(o.Query)
	if p == nil {
		return
	}
	ks, table, kind := classify(p.Stmt, o.Keyspace)
	if kind == kindOther || kind == kindSchema && !m.cfg.Schema {
		return
	}
	ts := (*m.byKS.Load())[ks]
	if len(ts) == 0 {
		return
	}
	if kind == kindRead && (m.cfg.ReadSample <= 0 || rand.Float64() >= m.cfg.ReadSample || o.PagingState != nil) {
		return
	}
	j := &job{o: *o, parsed: p, ks: ks, kind: kind, queued: m.now()}
	j.o.Values = copyValues(o.Values) // the caller's buffers may be reused
	if kind == kindSchema {
		for _, t := range ts {
			t.enqueueBarrier(j)
		}
		return
	}
	shard := m.shard(ks, table, p, o)
	for _, t := range ts {
		t.enqueue(shard, j)
	}
}

// parse returns the cached parse of a statement text (nil if it fails:
// the primary answered it, so another dialect reached it; skip).
func (m *Mirror) parse(q string) *cql.Parsed {
	if p, ok := m.parsed.Get(q); ok {
		return p
	}
	p, err := cql.Parse(q)
	if err != nil {
		return nil
	}
	m.parsed.Put(q, p)
	return p
}

// shard picks the worker of a request's partition: the hash of its table
// and partition key values when the statement names them as bind markers
// or literals of its WHERE (or INSERT) clause; else of the whole request.
func (m *Mirror) shard(ks, table string, p *cql.Parsed, o *bindings.Observation) uint64 {
	var h maphash.Hash
	h.SetSeed(m.seed)
	h.WriteString(ks)
	h.WriteByte('.')
	h.WriteString(table)
	if !partitionHash(&h, p.Stmt, o.Values) {
		h.WriteString(o.Query)
		for _, v := range o.Values {
			h.Write(v.Bytes)
		}
	}
	return h.Sum64()
}

// Status is every mirror's state and counters.
func (m *Mirror) Status() []Status {
	out := make([]Status, 0, len(m.targets))
	for _, t := range m.cfg.Targets {
		out = append(out, m.targets[t.Name].status())
	}
	return out
}

// Close stops accepting requests and waits for the workers to finish the
// queued ones (each bounded by Config.Timeout).
func (m *Mirror) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	for _, t := range m.targets {
		t.close()
	}
	m.mu.Unlock()
	m.wg.Wait()
}

// Flush waits until every request queued so far has been applied or
// failed on every mirror (tests, and `dohyo mirror` before a compare).
func (m *Mirror) Flush(ctx context.Context) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil
	}
	for _, t := range m.targets {
		if err := t.flush(ctx); err != nil {
			return err
		}
	}
	return nil
}

// copyValues copies bound values into one buffer of their own.
func copyValues(vs []bindings.Value) []bindings.Value {
	n := 0
	for _, v := range vs {
		n += len(v.Bytes)
	}
	buf := make([]byte, 0, n)
	out := make([]bindings.Value, len(vs))
	for i, v := range vs {
		out[i].Unset = v.Unset
		if v.Bytes != nil {
			start := len(buf)
			buf = append(buf, v.Bytes...)
			out[i].Bytes = buf[start:len(buf):len(buf)]
		}
	}
	return out
}

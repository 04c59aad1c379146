package proxy

import (
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/auth"
	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/internal/lru"
	"github.com/dohyo/dohyo/schema"
)

// Config wires a Coordinator. Backends are named; Routes maps keyspaces to
// backend names and every other keyspace goes to Default.
type Config struct {
	Backends          map[string]bindings.Backend
	Default           string
	Routes            map[string]string
	PreparedCacheSize int // bounded LRU of prepared statements (default 10,000)
	ParseCacheSize    int // bounded LRU of parsed statement texts (default 10,000)
	Tap               Tap
	Logger            *slog.Logger
	Clock             func() time.Time
	// Auth runs role and permission statements; with EnforceAuth every
	// statement is checked against the session's role (authz.go).
	Auth        *auth.Manager
	EnforceAuth bool
	// AuthExempt names backends whose keyspaces keep their own checks
	// (relayed Cassandra clusters: pass-through authentication).
	AuthExempt map[string]bool
	// Stamp, when set, tells which writes without a client timestamp the
	// coordinator gives one (its clock, in µs) before they run, so that a
	// mirror applying the same write resolves last-write-wins alike
	// (mirror: Mirror.Stamp).
	Stamp func(keyspace string, stmt cql.Statement) bool
}

// Coordinator routes statements from client sessions to backends by
// keyspace, owns the prepared-statement registry, merges the backends'
// catalogs into one, and hands every request to the Tap.
type Coordinator struct {
	// tbl holds the backends and routes; AddVirtual replaces it whole
	// (copy on write), so readers never lock.
	tbl   atomic.Pointer[routeTable]
	def   string
	tap   Tap
	log   *slog.Logger
	now   func() time.Time
	since func(time.Time) time.Duration // now().Sub(t)

	auth       *auth.Manager
	enforce    bool
	authExempt map[string]bool
	stamp      func(keyspace string, stmt cql.Statement) bool

	prepared *lru.Cache[string, *PreparedStatement]
	parsed   *lru.Cache[string, *cql.Parsed]

	sessionIDs atomic.Uint64

	subMu sync.Mutex
	subs  []func(*bindings.SchemaChange)

	catMu   sync.Mutex
	catKey  string
	catCopy *schema.Catalog
}

// New validates cfg and returns a Coordinator.
func New(cfg Config) (*Coordinator, error) {
	if len(cfg.Backends) == 0 {
		return nil, errors.New("proxy: no backends configured")
	}
	if _, ok := cfg.Backends[cfg.Default]; !ok {
		return nil, fmt.Errorf("proxy: default backend %q is not configured", cfg.Default)
	}
	routes := make(map[string]string, len(cfg.Routes))
	for ks, name := range cfg.Routes {
		if _, ok := cfg.Backends[name]; !ok {
			return nil, fmt.Errorf("proxy: route %s=%s: no such backend", ks, name)
		}
		routes[ks] = name
	}
	c := &Coordinator{
		def:      cfg.Default,
		tap:      cfg.Tap,
		log:      cfg.Logger,
		now:      cfg.Clock,
		prepared: lru.New[string, *PreparedStatement](orDefault(cfg.PreparedCacheSize, 10000)),
		parsed:   lru.New[string, *cql.Parsed](orDefault(cfg.ParseCacheSize, 10000)),
	}
	c.tbl.Store(newRouteTable(cfg.Backends, routes))
	c.auth, c.enforce, c.authExempt = cfg.Auth, cfg.EnforceAuth && cfg.Auth != nil, cfg.AuthExempt
	c.stamp = cfg.Stamp
	if c.tap == nil {
		c.tap = NopTap{}
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.now == nil {
		c.now = time.Now
		c.since = time.Since // the monotonic clock alone: one clock read, not two
	} else {
		c.since = func(t time.Time) time.Duration { return c.now().Sub(t) }
	}
	return c, nil
}

func orDefault(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

// Route is the routing decision for a keyspace: the backend that serves
// it, resolved once from one route table, so that a request runs on the
// backend it was routed to (and is labelled with that backend's name)
// without looking the name up again.
type Route struct {
	Keyspace string
	Name     string           // the backend's name (labels, spans, errors)
	Backend  bindings.Backend // the backend itself
}

// routeTable is the coordinator's backends by name and keyspace routes.
type routeTable struct {
	backends map[string]bindings.Backend
	routes   map[string]string
	names    []string // the backends' names, sorted (read-only)
}

func newRouteTable(backends map[string]bindings.Backend, routes map[string]string) *routeTable {
	names := make([]string, 0, len(backends))
	for n := range backends {
		names = append(names, n)
	}
	sort.Strings(names)
	return &routeTable{backends: backends, routes: routes, names: names}
}

func (c *Coordinator) table() *routeTable { return c.tbl.Load() }

// Route returns which backend serves keyspace.
func (c *Coordinator) Route(keyspace string) Route { return c.table().route(keyspace, c.def) }

// route resolves keyspace in this table (def: the default backend's name).
func (t *routeTable) route(keyspace, def string) Route {
	name, ok := t.routes[keyspace]
	if !ok {
		name = def
	}
	return Route{Keyspace: keyspace, Name: name, Backend: t.backends[name]}
}

// Backend returns the named backend.
func (c *Coordinator) Backend(name string) bindings.Backend { return c.table().backends[name] }

// BackendNames returns the configured backend names, sorted.
func (c *Coordinator) BackendNames() []string {
	return slices.Clone(c.table().names)
}

// Subscribe registers fn to be called after every successful schema change
// made through this coordinator (the CQL server pushes SCHEMA_CHANGE events).
func (c *Coordinator) Subscribe(fn func(*bindings.SchemaChange)) {
	c.subMu.Lock()
	c.subs = append(c.subs, fn)
	c.subMu.Unlock()
}

func (c *Coordinator) notify(ch *bindings.SchemaChange) {
	c.invalidatePrepared(ch)
	c.subMu.Lock()
	subs := slices.Clone(c.subs)
	c.subMu.Unlock()
	for _, fn := range subs {
		fn(ch)
	}
}

// Catalog returns one coherent catalog: every keyspace of every backend that
// is routed to that backend. The merge is cached while the backends'
// catalog versions do not change.
func (c *Coordinator) Catalog(ctx context.Context) (*schema.Catalog, error) {
	type part struct {
		name string
		cat  *schema.Catalog
	}
	var partsBuf [4]part
	parts := partsBuf[:0]
	var keyBuf [128]byte
	key := keyBuf[:0]
	tbl := c.table()
	for _, name := range tbl.names {
		src, ok := bindings.Capability[bindings.CatalogSource](tbl.backends[name])
		if !ok {
			continue
		}
		cat, err := src.Catalog(ctx)
		if err != nil {
			return nil, fmt.Errorf("catalog of backend %s: %w", name, err)
		}
		if cat == nil {
			continue
		}
		parts = append(parts, part{name, cat})
		key = append(append(append(append(key, name...), '='), cat.Version...), ';')
	}
	c.catMu.Lock()
	defer c.catMu.Unlock()
	if c.catCopy != nil && c.catKey == string(key) {
		return c.catCopy, nil
	}
	merged := &schema.Catalog{Keyspaces: map[string]*schema.Keyspace{}}
	sum := md5.Sum(key)
	merged.Version = formatUUID(sum)
	for _, p := range parts {
		for ksName, ks := range p.cat.Keyspaces {
			if tbl.route(ksName, c.def).Name == p.name {
				merged.Keyspaces[ksName] = ks
			}
		}
	}
	c.catKey, c.catCopy = string(key), merged
	return merged, nil
}

// formatUUID renders 16 bytes as a version-3-style UUID string.
func formatUUID(b [16]byte) string {
	b[6] = b[6]&0x0f | 0x30
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// parse returns the parsed statement for text, from the bounded cache.
func (c *Coordinator) parse(text string) (*cql.Parsed, error) {
	if p, ok := c.parsed.Get(text); ok {
		return p, nil
	}
	p, err := cql.Parse(text)
	if err != nil {
		var se *cql.SyntaxError
		if errors.As(err, &se) {
			return nil, bindings.Errorf(bindings.CodeSyntaxError, "%s", se.Error())
		}
		return nil, bindings.Errorf(bindings.CodeSyntaxError, "%s", err.Error())
	}
	c.parsed.Put(text, p)
	return p, nil
}

// CacheStats are the counters of one of the coordinator's caches.
type CacheStats = lru.Stats

// PreparedStats reports the prepared-statement cache counters.
func (c *Coordinator) PreparedStats() CacheStats { return c.prepared.Stats() }

// PreparedID computes a statement id as Cassandra does: MD5 of the
// keyspace (when set) followed by the query text.
func PreparedID(keyspace, query string) []byte {
	sum := md5.Sum([]byte(keyspace + query))
	return sum[:]
}

// Close closes every backend.
func (c *Coordinator) Close() error {
	var errs []error
	for _, name := range c.BackendNames() {
		if err := c.table().backends[name].Close(); err != nil {
			errs = append(errs, fmt.Errorf("close backend %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// invalidatePrepared drops the prepared statements a schema change may
// have made stale, as Cassandra does on ALTER/DROP TABLE: their next
// EXECUTE answers UNPREPARED, so drivers re-prepare and learn the new
// result metadata (protocol v5 clients also get a new result metadata id).
// A table change drops the statements on that table; a dropped keyspace and
// a changed or dropped user type drop every statement of the keyspace.
func (c *Coordinator) invalidatePrepared(ch *bindings.SchemaChange) {
	if ch == nil {
		return
	}
	var match func(ps *PreparedStatement) bool
	switch {
	case ch.Target == bindings.TargetTable && ch.Type != bindings.Created:
		match = func(ps *PreparedStatement) bool {
			return ps.Meta != nil && ps.Meta.Keyspace == ch.Keyspace && ps.Meta.Table == ch.Object
		}
	case ch.Target == bindings.TargetKeyspace && ch.Type == bindings.Dropped,
		ch.Target == bindings.TargetType && ch.Type != bindings.Created:
		match = func(ps *PreparedStatement) bool {
			return ps.Meta != nil && ps.Meta.Keyspace == ch.Keyspace && ps.Meta.Table != ""
		}
	default:
		return
	}
	if n := c.prepared.RemoveIf(func(_ string, ps *PreparedStatement) bool { return match(ps) }); n > 0 {
		c.log.Debug("schema change invalidated prepared statements", "change", string(ch.Type)+" "+string(ch.Target),
			"keyspace", ch.Keyspace, "object", ch.Object, "statements", n)
	}
}

package engine

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"log/slog"
	"maps"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/engine/kv"
	"github.com/dohyo/dohyo/internal/lru"
	"github.com/dohyo/dohyo/schema"
)

// Options configure an Engine.
type Options struct {
	// Salt is the number of salt buckets of new tables (0: unsalted; at most
	// 256). Existing tables keep the salt recorded when they were created.
	Salt int
	// TableOptions are passed to KV.CreateTable in every TableSpec.
	TableOptions map[string]string
	// Clock is the engine's time source (default time.Now); tests inject it
	// to drive TTL expiry and write timestamps.
	Clock func() time.Time
	// Logger receives operational messages (default: discarded).
	Logger *slog.Logger
	// PreparedCacheSize bounds the caches of parsed statements and of the
	// plans of unprepared statements (default 4096 entries each); a
	// prepared statement's plan lives in its handle instead.
	PreparedCacheSize int
	// Schema tunes DDL application (clock, ids); zero means defaults.
	Schema schema.Options
	// LWTLease is how long a process may hold a partition for an LWT,
	// counter or read-before-write update before others presume it dead
	// and take over (default DefaultLWTLease). Used with CondKV stores.
	LWTLease time.Duration
	// LWTTimeout bounds the wait for a partition held by someone else
	// (default DefaultLWTTimeout); past it the statement fails with a
	// WriteTimeout of type CAS.
	LWTTimeout time.Duration
	// AfterCommit, when set, runs after an operation committed its
	// mutations to the coordination cells and before it applies them; an
	// error abandons the operation there, as if the process died (fault
	// injection for tests).
	AfterCommit func() error
	// SchemaPoll is how often an engine on a shared store (one that
	// implements SharedSchema) checks for schema committed by other engines
	// (0: 250ms; negative: never, only on unknown names).
	SchemaPoll time.Duration
	// DropInBackground makes DROP TABLE and DROP KEYSPACE answer once the
	// catalog commit has made the tables invisible (every engine resolves
	// names through the catalog, and a re-created table gets a new id and
	// so new storage); their storage is then removed by background workers
	// (DropWorkers at a time). For stores whose table drop is slow (HBase:
	// disable + delete). Close waits for the pending drops.
	DropInBackground bool
	// DropWorkers bounds concurrent background drops (default 4).
	DropWorkers int
	// Thresholds are the batch warning and failure thresholds (nil:
	// DefaultThresholds, Cassandra 5.0's).
	Thresholds *Thresholds
}

// metaCatalog and metaSalt are the KV metadata keys of the engine.
const (
	metaCatalog = "catalog"
	metaSalts   = "salts"
)

// Engine executes CQL with Cassandra's semantics over a KV store. It is safe
// for concurrent use.
type Engine struct {
	kv kv.KV
	// annExact makes ANN queries score every candidate row instead of
	// probing the vector index (benchmarks compare the two).
	annExact bool
	// annMinCandidates overrides defaultANNCandidates when positive (tests).
	annMinCandidates int
	opts             Options
	th               Thresholds
	log              *slog.Logger
	clock            func() time.Time
	uuids            *cql.TimeUUIDGenerator

	st    atomic.Pointer[state]
	ddlMu sync.Mutex
	// idxMu: writes hold it shared while they derive and write index
	// entries; schema swaps hold it exclusively (index.go).
	idxMu  sync.RWMutex
	parsed *lru.Cache[string, *cql.Parsed]
	plans  *lru.Cache[planKey, *cachedPlan]

	// recycle: when execution contexts and mutation builders return to
	// xPool and mbPool (recycle.go): never, after successful statements
	// (SettlingKV) or always (CopyingKV).
	recycle recycling
	xPool   sync.Pool // *execCtx
	mbPool  sync.Pool // *mutBuilder

	lastTS atomic.Int64
	locks  [256]sync.Mutex
	seed   maphash.Seed
	closed atomic.Bool

	// meta keeps the committed schema; shared when other processes commit
	// to it too (then pollStop/pollDone run the version poll).
	meta      kv.SharedSchema
	shared    bool
	listenMu  sync.Mutex
	listeners []func(*bindings.SchemaChange)
	pollStop  chan struct{}
	pollDone  chan struct{}

	// Background table drops (Options.DropInBackground).
	dropMu   sync.Mutex // guards dropping against Close
	dropWG   sync.WaitGroup
	dropSlot chan struct{}
}

var (
	_ bindings.Backend       = (*Engine)(nil)
	_ bindings.Preparer      = (*Engine)(nil)
	_ bindings.CatalogSource = (*Engine)(nil)
)

// state is an immutable snapshot: the catalog and the derived per-table
// runtime information. DDL swaps it; plans remember the state they were
// built against and are rebuilt when it changes.
type state struct {
	cat    *schema.Catalog
	tables map[tableKey]*tableInfo
	byID   map[string]*tableInfo // by table id
	salts  map[string]int        // table id -> salt buckets
	// version is the committed schema version cat was loaded from.
	version int64
	// views are the materialized views by base table id (view.go).
	views map[string][]*viewInfo
}

type tableKey struct{ ks, name string }

type planKey struct{ ks, query string }

// Open is New for a store the engine is to own: when New fails, the store
// is closed too (on success the engine's Close closes it).
func Open(ctx context.Context, store kv.KV, opts Options) (*Engine, error) {
	e, err := New(ctx, store, opts)
	if err != nil {
		return nil, errors.Join(err, store.Close())
	}
	return e, nil
}

// New opens an engine on store, loading the persisted catalog.
func New(ctx context.Context, store kv.KV, opts Options) (*Engine, error) {
	if store == nil {
		return nil, errors.New("widecolumn: nil KV")
	}
	opts = withStoreDefaults(opts, store)
	if opts.Salt < 0 || opts.Salt > maxSaltBuckets {
		return nil, fmt.Errorf("widecolumn: salt %d out of range [0, %d]", opts.Salt, maxSaltBuckets)
	}
	e := &Engine{kv: store, opts: opts, log: opts.Logger, clock: opts.Clock, seed: maphash.MakeSeed()}
	if e.log == nil {
		e.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	e.th = DefaultThresholds()
	if opts.Thresholds != nil {
		e.th = *opts.Thresholds
	}
	if e.clock == nil {
		e.clock = time.Now
	}
	if e.opts.Schema.CheckFunction == nil {
		// The catalog keeps function bodies as text; the engine runs them,
		// so it decides at CREATE FUNCTION which it can compile.
		e.opts.Schema.CheckFunction = checkFunction
	}
	if e.opts.Schema.Now == nil {
		// Drop times must be comparable with write timestamps: take them
		// from the same strictly increasing source.
		e.opts.Schema.Now = func() time.Time { return time.UnixMicro(e.nextTimestamp()) }
	}
	n := opts.PreparedCacheSize
	if n <= 0 {
		n = 4096
	}
	e.parsed = lru.New[string, *cql.Parsed](n)
	e.plans = lru.New[planKey, *cachedPlan](n)
	e.uuids = cql.NewTimeUUIDGenerator(e.clock)

	e.recycle = recyclingOf(store)
	e.meta, e.shared = store.(kv.SharedSchema)
	if !e.shared {
		e.meta = &localSchema{kv: store}
	}
	st, err := e.loadState(ctx)
	if err != nil {
		return nil, err
	}
	// Storage for every known table: creating an existing table is a no-op,
	// and this repairs a crash between catalog write and table creation.
	for _, spec := range tablesByID(st) {
		if err := store.CreateTable(ctx, spec); err != nil {
			return nil, fmt.Errorf("widecolumn: open table %s.%s: %w", spec.Keyspace, spec.Name, err)
		}
	}
	e.st.Store(st)
	if poll := opts.SchemaPoll; e.shared && poll >= 0 {
		if poll == 0 {
			poll = defaultSchemaPoll
		}
		e.pollStop, e.pollDone = make(chan struct{}), make(chan struct{})
		go e.pollSchema(poll, e.pollStop, e.pollDone)
	}
	return e, nil
}

// newState derives runtime table information from a catalog.
func (e *Engine) newState(cat *schema.Catalog, salts map[string]int) (*state, error) {
	st := &state{cat: cat, tables: map[tableKey]*tableInfo{}, byID: map[string]*tableInfo{}, salts: salts}
	defer func() {
		for _, ti := range st.tables {
			st.byID[ti.t.ID] = ti
		}
	}()
	old := e.st.Load()
	for _, ks := range cat.Keyspaces {
		for _, t := range ks.Tables {
			if old != nil {
				if ti := old.tables[tableKey{t.Keyspace, t.Name}]; ti != nil && ti.t == t {
					st.tables[tableKey{t.Keyspace, t.Name}] = ti
					continue
				}
			}
			salt, ok := salts[t.ID]
			if !ok {
				salt = e.opts.Salt
				salts[t.ID] = salt
			}
			ti, err := newTableInfo(t, salt, e.opts.TableOptions)
			if err != nil {
				return nil, fmt.Errorf("widecolumn: table %s.%s: %w", t.Keyspace, t.Name, err)
			}
			st.tables[tableKey{t.Keyspace, t.Name}] = ti
		}
	}
	if err := st.linkViews(); err != nil {
		return nil, fmt.Errorf("widecolumn: %w", err)
	}
	return st, nil
}

// Close releases the KV store.
func (e *Engine) Close() error {
	if e.closed.Swap(true) {
		return nil
	}
	if e.pollStop != nil {
		close(e.pollStop)
		<-e.pollDone
	}
	e.dropMu.Lock()
	e.dropMu.Unlock() // no drop starts after this point (closed is set)
	e.dropWG.Wait()
	return e.kv.Close()
}

// Catalog returns the current schema snapshot.
func (e *Engine) Catalog(ctx context.Context) (*schema.Catalog, error) {
	return e.st.Load().cat, nil
}

// KV returns the store the engine runs on (as given to New).
func (e *Engine) KV() kv.KV { return e.kv }

// Unwrap returns the store, whose own capabilities (the system's name, the
// server's description and version, metadata and tier registries) callers
// find through bindings.Capability.
func (e *Engine) Unwrap() any { return e.kv }

// Ping reports whether the engine is open and, for a store that can be
// pinged (HBase answering a read within its op timeout), the store.
func (e *Engine) Ping(ctx context.Context) error {
	if e.closed.Load() {
		return errors.New("widecolumn: engine closed")
	}
	if p, ok := e.kv.(bindings.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

// withStoreDefaults fills the options a store's configuration carries
// (kv.Defaulter) where opts leaves them unset.
func withStoreDefaults(opts Options, store kv.KV) Options {
	d, ok := store.(kv.Defaulter)
	if !ok {
		return opts
	}
	def := d.EngineDefaults()
	if opts.Salt == 0 {
		opts.Salt = def.Salt
	}
	if len(def.TableOptions) > 0 {
		merged := maps.Clone(def.TableOptions)
		maps.Copy(merged, opts.TableOptions)
		opts.TableOptions = merged
	}
	opts.DropInBackground = opts.DropInBackground || def.DropInBackground
	return opts
}

var _ bindings.Pinger = (*Engine)(nil)

// nextTimestamp returns the engine's write time in µs, strictly increasing.
func (e *Engine) nextTimestamp() int64 { return e.nextTimestampAt(e.clock()) }

// nextTimestampAt is nextTimestamp with the clock read at now (a
// statement's start).
func (e *Engine) nextTimestampAt(t time.Time) int64 {
	now := t.UnixMicro()
	for {
		last := e.lastTS.Load()
		ts := now
		if ts <= last {
			ts = last + 1
		}
		if e.lastTS.CompareAndSwap(last, ts) {
			return ts
		}
	}
}

// nowSeconds is the engine's "now" for TTL expiry.
func (e *Engine) nowSeconds() int64 { return e.clock().Unix() }

// partitionLock returns the stripe lock of a partition (LWT and
// read-modify-write serialisation).
func (e *Engine) partitionLock(tableID string, partKey []byte) *sync.Mutex {
	var h maphash.Hash
	h.SetSeed(e.seed)
	h.WriteString(tableID)
	h.Write(partKey)
	return &e.locks[h.Sum64()%uint64(len(e.locks))]
}

// parse returns the parsed statement for query, from the cache when possible.
func (e *Engine) parse(query string, given *cql.Parsed) (*cql.Parsed, error) {
	if given != nil {
		return given, nil
	}
	if p, ok := e.parsed.Get(query); ok {
		return p, nil
	}
	p, err := cql.Parse(query)
	if err != nil {
		return nil, err
	}
	e.parsed.Put(query, p)
	return p, nil
}

// Execute runs one statement.
func (e *Engine) Execute(ctx context.Context, req *bindings.Request) (res *bindings.Result, err error) {
	defer e.recoverTo(&err, req.Query)
	res, err = e.execute(ctx, req)
	if err != nil {
		return nil, cqlError(err)
	}
	return res, nil
}

// recoverTo turns a panic into a ServerError for the one request that hit
// it: a bug must not take the proxy down with every other session.
func (e *Engine) recoverTo(err *error, query string) {
	if r := recover(); r != nil {
		e.log.Error("widecolumn: internal error", "panic", r, "query", query, "stack", string(debug.Stack()))
		*err = bindings.Errorf(bindings.CodeServerError, "internal error executing statement: %v", r)
	}
}

func (e *Engine) execute(ctx context.Context, req *bindings.Request) (*bindings.Result, error) {
	if e.closed.Load() {
		return nil, bindings.Errorf(bindings.CodeServerError, "engine is closed")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var p *cql.Parsed
	if h := e.handleFor(req.Handle, req.Keyspace); h != nil {
		if h.kind == stmtPlanned {
			cp, err := h.plan(ctx)
			if err != nil {
				return nil, err
			}
			return e.run(ctx, cp, req)
		}
		p = h.parsed
	} else if cp := e.queryPlan(req.Keyspace, req.Query); cp != nil {
		return e.run(ctx, cp, req) // a QUERY planned before: no parse
	} else {
		var err error
		if p, err = e.parse(req.Query, req.Parsed); err != nil {
			return nil, err
		}
	}
	switch s := p.Stmt.(type) {
	case *cql.Use:
		return retryFresh(ctx, e, func() (*bindings.Result, error) {
			if e.st.Load().cat.Keyspace(s.Keyspace) == nil {
				return nil, bindings.Errorf(bindings.CodeInvalid, "Keyspace '%s' does not exist", s.Keyspace)
			}
			return &bindings.Result{Kind: bindings.ResultSetKeyspace, Keyspace: s.Keyspace}, nil
		})
	case *cql.Unsupported:
		return nil, unsupportedStatement(s.What)
	case *cql.CreateKeyspace, *cql.AlterKeyspace, *cql.DropKeyspace, *cql.CreateTable,
		*cql.AlterTable, *cql.DropTable, *cql.Truncate, *cql.CreateIndex, *cql.DropIndex, *cql.CreateType, *cql.AlterUserType, *cql.DropType,
		*cql.CreateView, *cql.AlterView, *cql.DropView,
		*cql.CreateFunction, *cql.DropFunction, *cql.CreateAggregate, *cql.DropAggregate, *cql.SetExtensions:
		if len(req.Values) > 0 {
			return nil, invalidf("Invalid amount of bind variables: expected 0 but got %d", len(req.Values))
		}
		if err := checkIndexSupported(p.Stmt); err != nil {
			return nil, err
		}
		res, err := e.execDDL(ctx, req.Keyspace, p.Stmt)
		if _, view := p.Stmt.(*cql.CreateView); view && res != nil {
			res.Warnings = append(res.Warnings, warnView) // even when it existed
		}
		return res, err
	}
	cp, err := e.planFor(ctx, req.Keyspace, req.Query, p)
	if err != nil {
		return nil, err
	}
	return e.run(ctx, cp, req)
}

// run executes a planned statement with req's values and options.
func (e *Engine) run(ctx context.Context, cp *cachedPlan, req *bindings.Request) (*bindings.Result, error) {
	x, err := newExecCtx(e, cp, req.Values, req.Names)
	if err != nil {
		return nil, err
	}
	x.pageSize = req.PageSize
	x.pagingState = req.PagingState
	x.serial = req.Consistency == bindings.Serial || req.Consistency == bindings.LocalSerial
	if req.HasTimestamp {
		x.ts, x.hasTS = req.Timestamp, true
	}
	res, err := cp.plan.execute(ctx, x)
	e.recycleExecCtx(x, res, err)
	return res, err
}

// cachedPlan is a plan with the state it was built against.
type cachedPlan struct {
	st       *state
	plan     plan
	markers  []*cql.BindMarker
	bind     []bindings.ColumnSpec
	prepared *bindings.Prepared
}

// plan is an executable statement.
type plan interface {
	execute(ctx context.Context, x *execCtx) (*bindings.Result, error)
}

// planFor returns the plan of a parsed DML statement run as a QUERY (or
// an unprepared batch child), rebuilt after DDL. A statement naming a
// keyspace or table this engine does not know is planned again after a
// schema reload when another engine has committed a newer schema.
//
// Plans of unprepared statements are kept in e.plans by (session keyspace,
// text): a QUERY carries nothing else to find its plan by, and drivers
// repeat the same texts (paging, idempotent retries, ORMs that do not
// prepare). A prepared statement does not come here: its handle holds its
// plan (preparedStmt), unless the handle is another engine's or was
// prepared in another session keyspace.
func (e *Engine) planFor(ctx context.Context, ks, query string, p *cql.Parsed) (*cachedPlan, error) {
	return retryFresh(ctx, e, func() (*cachedPlan, error) { return e.buildPlan(ks, query, p) })
}

// queryPlan is the kept plan of an unprepared statement (planFor) when it
// was built against the current schema state, else nil.
func (e *Engine) queryPlan(ks, query string) *cachedPlan {
	if query == "" {
		return nil
	}
	if cp, ok := e.plans.Get(planKey{ks, query}); ok && cp.st == e.st.Load() {
		return cp
	}
	return nil
}

// buildPlan returns the plan of query from e.plans when it was built
// against the current schema state, else plans p and keeps it (an empty
// query, a statement built without text, is not kept).
func (e *Engine) buildPlan(ks, query string, p *cql.Parsed) (*cachedPlan, error) {
	if cp := e.queryPlan(ks, query); cp != nil {
		return cp, nil
	}
	cp, err := e.newPlan(ks, p)
	if err != nil {
		return nil, err
	}
	if query != "" {
		e.plans.Put(planKey{ks, query}, cp)
	}
	return cp, nil
}

// newPlan plans p against the current schema state, for session keyspace
// ks.
func (e *Engine) newPlan(ks string, p *cql.Parsed) (*cachedPlan, error) {
	st := e.st.Load()
	b := &planner{e: e, st: st, ks: ks, markers: p.Markers, bind: make([]bindings.ColumnSpec, len(p.Markers))}
	pl, err := b.build(p.Stmt)
	if err != nil {
		return nil, err
	}
	return &cachedPlan{st: st, plan: pl, markers: p.Markers, bind: b.bind, prepared: b.prepared()}, nil
}

// cqlError converts any error into a *bindings.Error with Cassandra's code.
func cqlError(err error) error {
	var be *bindings.Error
	if errors.As(err, &be) {
		return be
	}
	var se *cql.SyntaxError
	if errors.As(err, &se) {
		return bindings.Errorf(bindings.CodeSyntaxError, "%s", se.Error())
	}
	var ve *cql.ValueError
	if errors.As(err, &ve) {
		return bindings.Errorf(bindings.CodeInvalid, "%s", ve.Msg)
	}
	var sch *schema.Error
	if errors.As(err, &sch) {
		if sch.Unsupported {
			return bindings.Unsupported("%s", sch.Message)
		}
		code := bindings.CodeInvalid
		switch sch.Code {
		case schema.AlreadyExists:
			code = bindings.CodeAlreadyExists
		case schema.ConfigError:
			code = bindings.CodeConfigError
		case schema.SyntaxError:
			code = bindings.CodeSyntaxError
		case schema.Unauthorized:
			code = bindings.CodeUnauthorized
		}
		return &bindings.Error{Code: code, Message: sch.Message, Keyspace: sch.Keyspace, Table: sch.Table}
	}
	if errors.Is(err, cql.ErrUnset) {
		return bindings.Errorf(bindings.CodeInvalid, "Invalid unset value")
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return bindings.Errorf(bindings.CodeServerError, "%s", err.Error())
	}
	return bindings.AsError(err)
}

func invalidf(format string, args ...any) *bindings.Error {
	return bindings.Errorf(bindings.CodeInvalid, format, args...)
}

// unsupportedStatement answers statements dohyo parses but does not run.
func unsupportedStatement(what string) error {
	return bindings.Unsupported("%s is not supported by dohyo's wide-column engine", what)
}

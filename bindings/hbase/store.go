package hbase

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsuna/gohbase"
	"github.com/tsuna/gohbase/hrpc"
	"github.com/tsuna/gohbase/pb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine/kv"
	"github.com/dohyo/dohyo/internal/rawnet"
)

// Store is a kv.KV on HBase. It is safe for concurrent use.
//
// Layout: a namespace per keyspace, one table per CQL table incarnation
// ("<ks>:t_<name>_<id>") with one column family "d" keeping one version;
// HBase qualifier = KV qualifier, HBase timestamp = KV timestamp (µs; HBase
// treats it as an opaque long), value = KV value. Engine metadata lives in
// dohyo:catalog under "<catalog>/<key>".
//
// Ties: HBase keeps the highest timestamp; of two writes with equal
// timestamps it keeps the later one, not the one kv.Resolve picks.
// Within one Apply call duplicate cells are resolved by Resolve before
// sending.
type Store struct {
	cfg     Config // as opened, defaults filled (DescribeServer, EngineDefaults)
	zk      string
	catalog string
	opTO    time.Duration
	ddlTO   time.Duration
	log     *slog.Logger

	client gohbase.Client
	rpc    gohbase.RPCClient // client, for custom calls
	admin  *admin

	closed atomic.Bool

	ddl        sync.Mutex          // serialises namespace/table DDL
	namespaces map[string]struct{} // known to exist; under ddl
	tables     sync.Map            // fq name -> struct{}: known to exist and be enabled
	regions    regionCache         // where reads of each table went
	names      tableNames          // HBase names of the tables in use

	// points counts the single-row Gets and Puts in flight (beginPoint).
	points atomic.Int64
	// directMax is how many of them may be in flight for one more to be
	// written by its caller (hrpc.SkipBatch) rather than queued for
	// gohbase's batching writer.
	directMax int64
}

var _ kv.KV = (*Store)(nil)

// OpenStore connects to HBase and makes sure the catalog table exists.
// ctx bounds the whole open (ZooKeeper, master and region lookups).
func OpenStore(ctx context.Context, o Config) (*Store, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	cfg := o.withDefaults()
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	opts := []gohbase.Option{
		gohbase.ZookeeperRoot(cfg.ZKRoot),
		// Flush queued requests at once: concurrent Gets and Puts to one
		// region server still travel as one MultiRequest (whatever is
		// queued when the writer is free), but a lone request never waits.
		// Few concurrent ones skip the queue altogether (beginPoint).
		gohbase.FlushInterval(0),
		// Region server connections read and write without the runtime's
		// syscall bookkeeping (internal/rawnet: no sysmon wake-up per
		// request after an idle moment).
		gohbase.RegionDialer(dialRegion),
		// No gohbase spans: they would go to OpenTelemetry's global
		// provider, which dohyo never sets (its providers are passed
		// explicitly), and cost a span and a context per RPC and per wait.
		// dohyo's own client spans cover every HBase call (spans.go).
		gohbase.TracerProvider(nil),
		// No gohbase_operation_duration_seconds histogram either: it lives
		// in Prometheus's default registry, which dohyo never serves
		// (dohyo_request_duration_seconds times each statement, and the
		// client spans of spans.go each HBase call).
		gohbase.OperationMetrics(false),
	}
	cl := gohbase.NewClient(cfg.ZooKeeper, opts...)
	ac := gohbase.NewAdminClient(cfg.ZooKeeper, gohbase.ZookeeperRoot(cfg.ZKRoot),
		gohbase.RegionDialer(dialRegion), gohbase.TracerProvider(nil), gohbase.OperationMetrics(false))
	rpc, ok1 := cl.(gohbase.RPCClient)
	arpc, ok2 := ac.(gohbase.RPCClient)
	if !ok1 || !ok2 {
		cl.Close()
		return nil, errors.New("hbase: gohbase client does not expose SendRPC")
	}
	s := &Store{
		cfg:        cfg,
		zk:         cfg.ZooKeeper,
		catalog:    cfg.Catalog,
		opTO:       cfg.OpTimeout,
		ddlTO:      cfg.DDLTimeout,
		log:        logger,
		client:     cl,
		rpc:        rpc,
		admin:      &admin{rpc: arpc, log: logger},
		namespaces: map[string]struct{}{},
		directMax:  defaultDirectMax,
	}
	if err := s.ensureMeta(ctx); err != nil {
		return nil, errors.Join(err, s.Close())
	}
	return s, nil
}

// Close releases the HBase connections. Open scans fail afterwards.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.client.Close()
	s.admin.close()
	return nil
}

func (s *Store) check(ctx context.Context) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return ctx.Err()
}

// ensureMeta creates the dohyo namespace and catalog table when missing.
func (s *Store) ensureMeta(ctx context.Context) error {
	_, err := s.GetMeta(ctx, "ping")
	if err == nil {
		s.tables.Store(metaTable, struct{}{})
		return nil
	}
	if !errors.Is(err, gohbase.TableNotFound) {
		return err
	}
	dctx, cancel := opCtx(ctx, s.ddlTO)
	defer cancel()
	if err := s.ensureTable(dctx, metaTable, TableOptions{Compression: "NONE", Encoding: "NONE"}, nil); err != nil {
		return s.wrapErr(ctx, "create catalog table "+metaTable, err)
	}
	return nil
}

// CreateTable creates the table's namespace and table, pre-split. An
// existing table is left alone (and enabled if it was disabled).
func (s *Store) CreateTable(ctx context.Context, t *kv.TableSpec) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	if t == nil || t.ID == "" {
		return errors.New("hbase: create table: spec without ID")
	}
	o, err := parseTableOptions(t.Options)
	if err != nil {
		return fmt.Errorf("hbase: create table %s.%s: %w", t.Keyspace, t.Name, err)
	}
	fq := tableName(t)
	if _, ok := s.tables.Load(fq); ok {
		return nil
	}
	dctx, cancel := opCtx(ctx, s.ddlTO)
	defer cancel()
	return s.wrapErr(ctx, "create table "+fq, s.ensureTable(dctx, fq, o, t.SplitKeys))
}

func (s *Store) ensureTable(ctx context.Context, fq string, o TableOptions, splits [][]byte) error {
	s.ddl.Lock()
	defer s.ddl.Unlock()
	if _, ok := s.tables.Load(fq); ok {
		return nil
	}
	state, err := s.tableState(ctx, fq)
	if err != nil {
		return err
	}
	switch state {
	case stateMissing:
		ns, _ := splitTableName(fq)
		if err := s.ensureNamespace(ctx, ns); err != nil {
			return err
		}
		if err := s.admin.createTable(ctx, fq, o, splits); err != nil && !isJava(err, excTableExists) {
			return err
		}
		s.log.Info("hbase: created table", "table", fq, "regions", len(splits)+1,
			"compression", o.Compression, "encoding", o.Encoding)
	case stateDisabled, stateDisabling:
		s.log.Warn("hbase: enabling a disabled table", "table", fq)
		if err := s.admin.enableTable(ctx, fq); err != nil && !isJava(err, excTableNotDisabled) {
			return err
		}
	}
	s.tables.Store(fq, struct{}{})
	return nil
}

func (s *Store) ensureNamespace(ctx context.Context, ns string) error {
	if _, ok := s.namespaces[ns]; ok {
		return nil
	}
	if err := s.admin.createNamespace(ctx, ns); err != nil && !isJava(err, excNamespaceExists) {
		return fmt.Errorf("create namespace %s: %w", ns, err)
	}
	s.namespaces[ns] = struct{}{}
	return nil
}

// DropTable disables and deletes the table, then deletes the coordination
// cells of its partitions. A missing table is not an error.
func (s *Store) DropTable(ctx context.Context, t *kv.TableSpec) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	if t == nil || t.ID == "" {
		return errors.New("hbase: drop table: spec without ID")
	}
	fq := tableName(t)
	dctx, cancel := opCtx(ctx, s.ddlTO)
	defer cancel()
	// No s.ddl here: table names carry the table id, so no create of this
	// table can run concurrently, and holding the lock through HBase's
	// disable + delete would stall every other DDL behind background drops.
	s.tables.Delete(fq)
	s.regions.forget(fq)
	err := s.admin.disableTable(dctx, fq)
	switch {
	case isJava(err, excTableNotFound):
		return s.dropCells(ctx, t.ID)
	case err != nil && !isJava(err, excTableNotEnabled):
		return s.wrapErr(ctx, "drop table "+fq, err)
	}
	if err := s.admin.deleteTable(dctx, fq); err != nil && !isJava(err, excTableNotFound) {
		return s.wrapErr(ctx, "drop table "+fq, err)
	}
	return s.dropCells(ctx, t.ID)
}

// TruncateTable empties the table with HBase's truncate (disable, then
// recreate the regions with the same boundaries). Deletes would not do:
// HBase delete markers hide later writes with older timestamps.
func (s *Store) TruncateTable(ctx context.Context, t *kv.TableSpec) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	if t == nil || t.ID == "" {
		return errors.New("hbase: truncate table: spec without ID")
	}
	fq := tableName(t)
	dctx, cancel := opCtx(ctx, s.ddlTO)
	defer cancel()
	s.ddl.Lock()
	defer s.ddl.Unlock()
	s.regions.forget(fq) // truncation gives the table new regions
	if err := s.admin.disableTable(dctx, fq); err != nil && !isJava(err, excTableNotEnabled) {
		return s.wrapErr(ctx, "truncate table "+fq, err)
	}
	if err := s.admin.truncateTable(dctx, fq); err != nil {
		// Leave the table usable if truncation failed after the disable.
		_ = s.admin.enableTable(dctx, fq)
		return s.wrapErr(ctx, "truncate table "+fq, err)
	}
	return nil
}

// Table states as HBase keeps them in hbase:meta.
type tableState int

const (
	stateMissing tableState = iota
	stateEnabled
	stateDisabled
	stateDisabling
	stateEnabling
)

// tableState reads a table's state from hbase:meta (row = table name,
// column table:state, a TableState message).
func (s *Store) tableState(ctx context.Context, fq string) (tableState, error) {
	g, err := hrpc.NewGet(ctx, []byte("hbase:meta"), []byte(fq),
		hrpc.Families(map[string][]string{"table": {"state"}}))
	if err != nil {
		return 0, err
	}
	res, err := s.client.Get(g)
	if err != nil {
		return 0, err
	}
	for _, c := range res.Cells {
		// A TableState message (HBase 2 writes it without the "PBUF"
		// magic that other meta cells carry; accept both).
		v := bytes.TrimPrefix(c.Value, []byte("PBUF"))
		for len(v) > 0 {
			num, typ, n := protowire.ConsumeTag(v)
			if n < 0 {
				return 0, fmt.Errorf("table state of %s: %w", fq, protowire.ParseError(n))
			}
			v = v[n:]
			if num == 1 && typ == protowire.VarintType {
				st, n := protowire.ConsumeVarint(v)
				if n < 0 {
					return 0, fmt.Errorf("table state of %s: %w", fq, protowire.ParseError(n))
				}
				// TableState.State: ENABLED=0 DISABLED=1 DISABLING=2 ENABLING=3.
				return tableState(st) + stateEnabled, nil
			}
			n = protowire.ConsumeFieldValue(num, typ, v)
			if n < 0 {
				return 0, fmt.Errorf("table state of %s: %w", fq, protowire.ParseError(n))
			}
			v = v[n:]
		}
	}
	return stateMissing, nil
}

// Region is one region of a table.
type Region struct {
	Name          string
	Start, Stop   []byte // Stop nil: the last region
	ServerAddress string
}

// Regions lists a table's online regions from hbase:meta, in key order
// (operators and tests; not used on the data path).
func (s *Store) Regions(ctx context.Context, t *kv.TableSpec) ([]Region, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	fq := tableName(t)
	octx, cancel := opCtx(ctx, s.opTO)
	defer cancel()
	// Meta rows of a table: "<table>,<start key>,<region id>...", after
	// the table's state row "<table>". hbase:meta compares rows field by
	// field, so "<table>," would sort after the first region's row (empty
	// start key). Table names hold no ',' and '-' sorts after it.
	start := []byte(fq)
	stop := []byte(fq + "-")
	sc, err := hrpc.NewScanRange(octx, []byte("hbase:meta"), start, stop,
		hrpc.Families(map[string][]string{"info": {"regioninfo", "server"}}))
	if err != nil {
		return nil, err
	}
	scanner := s.client.Scan(sc)
	defer scanner.Close()
	var out []Region
	for {
		res, err := scanner.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, s.wrapErr(ctx, "regions", err)
		}
		var r Region
		var info *pb.RegionInfo
		for _, c := range res.Cells {
			switch string(c.Qualifier) {
			case "regioninfo":
				if len(c.Value) < 4 || string(c.Value[:4]) != "PBUF" {
					return nil, fmt.Errorf("hbase: regions: bad regioninfo in %q", c.Row)
				}
				info = &pb.RegionInfo{}
				if err := proto.Unmarshal(c.Value[4:], info); err != nil {
					return nil, fmt.Errorf("hbase: regions: %w", err)
				}
				r.Name = string(c.Row)
			case "server":
				r.ServerAddress = string(c.Value)
			}
		}
		if info == nil || info.GetOffline() || info.GetSplit() ||
			!strings.HasPrefix(r.Name, fq+",") {
			continue // split parents linger in meta until cleaned up
		}
		r.Start = info.GetStartKey()
		if k := info.GetEndKey(); len(k) > 0 {
			r.Stop = k
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Region) int { return bytes.Compare(a.Start, b.Start) })
	return out, nil
}

// ---- data ----

// rowGroup is the cells of one row of one Apply call.
type rowGroup struct {
	table []byte
	row   []byte
	cells []kv.Cell
}

// apply writes each row's cells with one Put (atomic per row in HBase);
// rows are sent concurrently and gohbase batches them per region server,
// except a Put sent while few point RPCs are in flight, which its caller
// writes itself (beginPoint).
func (s *Store) apply(ctx context.Context, muts []kv.Mutation) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	groups, err := groupRows(muts, &s.names)
	if err != nil {
		return err
	}
	if len(groups) == 0 {
		return nil
	}
	if len(groups) == 1 {
		octx, cancel := oneRPCCtx(ctx, s.opTO)
		defer cancel()
		return s.wrapErr(ctx, "apply", s.put(octx, groups[0]))
	}
	octx, cancel := opCtx(ctx, s.opTO)
	defer cancel()
	return s.wrapErr(ctx, "apply", parallel(len(groups), func(i int) error { return s.put(octx, groups[i]) }))
}

// maxParallel bounds the goroutines of one Apply or Get; gohbase queues
// and batches the requests behind them.
const maxParallel = 256

// parallel runs fn(0..n-1) on up to maxParallel goroutines and returns the
// first error by index.
func parallel(n int, fn func(i int) error) error {
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, maxParallel) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				errs[i] = fn(i)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) put(ctx context.Context, g *rowGroup) error {
	direct := s.beginPoint()
	defer s.endPoint()
	p, err := newRowPut(ctx, g.table, g.row, g.cells, direct)
	if err != nil {
		return err
	}
	_, err = s.rpc.SendRPC(p)
	return err
}

// defaultDirectMax: a point RPC is written by its caller while at most
// this many are in flight (itself included), and queued for gohbase's
// batching writer (a MultiRequest per region server) beyond. Measured on
// one region server (docs/BENCHMARKS.md, changelog, "Cell blocks for
// Gets"): with 8 Gets in flight HBase spends ~20 % less CPU per Get on
// separate Gets than on small MultiRequests; from 32 in flight the
// MultiRequests are cheaper for it; at 16 the two are within a few
// percent. Separate RPCs sent together still leave in one write (the
// fork's coalescing writer).
const defaultDirectMax = 16

// beginPoint counts one single-row Get or Put in flight and reports whether
// it should be written directly by the calling goroutine (hrpc.SkipBatch):
// with few in flight, handing it to gohbase's writer goroutine costs a
// wake-up of that goroutine per request and batches next to nothing; with
// many, the writer coalesces them into one MultiRequest per region server.
// endPoint must follow.
//
// Direct RPCs from several goroutines share the region client's
// connection: gohbase takes no lock of its own around a send, but writes
// each RPC with a single Write (or writev through net.Buffers) on a
// *net.TCPConn, which holds the descriptor's write lock for the whole
// message, so RPCs are never interleaved on the wire; gohbase's own
// unbatched calls (scans, CheckAndPut) rely on the same.
func (s *Store) beginPoint() bool { return s.points.Add(1) <= s.directMax }

func (s *Store) endPoint() { s.points.Add(-1) }

// groupRows merges the mutations of each (table, row); two versions of one
// cell in the call are reconciled here by kv.Resolve, since HBase
// would keep both and pick the later on a timestamp tie. A group's cells
// may alias a mutation's (a single mutation without repeated qualifiers is
// not copied): they are only read, before Apply returns.
func groupRows(muts []kv.Mutation, names *tableNames) ([]*rowGroup, error) {
	if len(muts) == 1 { // a point write: no index
		m := &muts[0]
		if err := checkMutation(m); err != nil || len(m.Cells) == 0 {
			return nil, err
		}
		_, tn := names.of(m.Table)
		return []*rowGroup{{table: tn, row: m.Row, cells: dedupCells(m.Cells)}}, nil
	}
	type key struct{ table, row string }
	index := make(map[key]*rowGroup, len(muts))
	var out []*rowGroup
	for i := range muts {
		m := &muts[i]
		if err := checkMutation(m); err != nil {
			return nil, err
		}
		if len(m.Cells) == 0 {
			continue
		}
		_, tn := names.of(m.Table)
		k := key{string(tn), string(m.Row)}
		g := index[k]
		if g == nil {
			g = &rowGroup{table: tn, row: m.Row}
			index[k] = g
			out = append(out, g)
		}
		g.cells = append(g.cells, m.Cells...)
	}
	for _, g := range out {
		g.cells = dedupCells(g.cells)
	}
	return out, nil
}

// checkMutation rejects a mutation HBase cannot store.
func checkMutation(m *kv.Mutation) error {
	if m.Table == nil || m.Table.ID == "" {
		return errors.New("hbase: apply: mutation without table")
	}
	if !validRowKey(m.Row) {
		return bindings.Errorf(bindings.CodeInvalid,
			"key too long for HBase: row key of %d bytes (HBase allows 1 to %d)", len(m.Row), maxRowLength)
	}
	for _, c := range m.Cells {
		if c.Timestamp < 0 {
			return bindings.Unsupported("write timestamp %d: dohyo on HBase cannot store negative write timestamps", c.Timestamp)
		}
		if len(c.Qualifier) >= maxQualifierBytes {
			return fmt.Errorf("hbase: apply: qualifier of %d bytes is too long", len(c.Qualifier))
		}
	}
	return nil
}

// dedupCells keeps one cell per qualifier, the Resolve winner. Cells
// without a repeated qualifier come back as they are; a few cells are
// compared pairwise rather than through a map.
func dedupCells(cs []kv.Cell) []kv.Cell {
	if len(cs) < 2 {
		return cs
	}
	if len(cs) <= smallCells && !repeats(cs) {
		return cs
	}
	seen := make(map[string]int, len(cs))
	out := cs[:0:0]
	for _, c := range cs {
		if i, ok := seen[string(c.Qualifier)]; ok {
			out[i] = kv.Resolve(out[i], c)
			continue
		}
		seen[string(c.Qualifier)] = len(out)
		out = append(out, c)
	}
	return out
}

// smallCells bounds the cells dedupCells compares pairwise.
const smallCells = 32

// repeats reports whether two of cs have one qualifier.
func repeats(cs []kv.Cell) bool {
	for i := 1; i < len(cs); i++ {
		for j := range i {
			if bytes.Equal(cs[i].Qualifier, cs[j].Qualifier) {
				return true
			}
		}
	}
	return false
}

// toCells converts HBase cells (one version each, in qualifier order) of
// family "d". The slices alias the response buffer, which gohbase does not
// reuse.
func toCells(hc []*hrpc.Cell) []kv.Cell {
	if len(hc) == 0 {
		return nil
	}
	out := make([]kv.Cell, 0, len(hc))
	for _, c := range hc {
		if string(c.Family) != family {
			continue
		}
		var ts int64
		if c.Timestamp != nil {
			ts = int64(*c.Timestamp)
		}
		q := c.Qualifier
		if q == nil {
			q = []byte{}
		}
		out = append(out, kv.Cell{Qualifier: q, Timestamp: ts, Value: c.Value})
	}
	return out
}

// ---- meta ----

// GetMeta reads an engine metadata value; a missing key is nil, nil.
func (s *Store) GetMeta(ctx context.Context, key string) ([]byte, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	octx, cancel := opCtx(ctx, s.opTO)
	defer cancel()
	g, err := hrpc.NewGet(octx, []byte(metaTable), metaRowKey(s.catalog, key),
		hrpc.Families(map[string][]string{family: {metaQualifier}}))
	if err != nil {
		return nil, err
	}
	res, err := s.client.Get(g)
	if err != nil {
		if errors.Is(err, gohbase.TableNotFound) {
			return nil, err // ensureMeta looks for it
		}
		return nil, s.wrapErr(ctx, "get meta", err)
	}
	for _, c := range res.Cells {
		if string(c.Qualifier) == metaQualifier {
			return bytes.Clone(c.Value), nil
		}
	}
	return nil, nil
}

// PutMeta writes an engine metadata value. HBase assigns the timestamp; of
// two puts in one millisecond the later wins.
func (s *Store) PutMeta(ctx context.Context, key string, value []byte) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	octx, cancel := opCtx(ctx, s.opTO)
	defer cancel()
	if value == nil {
		value = []byte{}
	}
	p, err := hrpc.NewPut(octx, []byte(metaTable), metaRowKey(s.catalog, key),
		map[string]map[string][]byte{family: {metaQualifier: value}})
	if err != nil {
		return err
	}
	_, err = s.client.Put(p)
	return s.wrapErr(ctx, "put meta", err)
}

// Ping checks that HBase answers: one Get on the catalog table, bounded by
// the op timeout.
func (s *Store) Ping(ctx context.Context) error {
	_, err := s.GetMeta(ctx, "ping")
	if errors.Is(err, gohbase.TableNotFound) {
		return s.wrapErr(ctx, "ping", err)
	}
	return err
}

// dialRegion connects to a region server or the master.
func dialRegion(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return rawnet.Wrap(c), nil
}

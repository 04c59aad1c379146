package cassandra

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"unicode"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

var (
	_ bindings.Backend       = (*Backend)(nil)
	_ bindings.Preparer      = (*Backend)(nil)
	_ bindings.CatalogSource = (*Backend)(nil)
	_ bindings.Pinger        = (*Backend)(nil)
)

// Backend executes statements on Apache Cassandra. SELECT, INSERT, UPDATE,
// DELETE and BEGIN BATCH statements, and unconditional BATCH messages, go
// through gocql (pooling, token-aware routing, reconnection); everything
// else (DDL, USE, TRUNCATE, roles...), PREPARE, conditional BATCH messages
// and statements with tuple bind variables go through a small native
// protocol client, which returns Cassandra's results exactly (gocql hides
// SCHEMA_CHANGE and SET_KEYSPACE results and the rows of conditional
// batches). Values and cells are passed as serialized bytes, unchanged.
type Backend struct {
	cfg Config
	log *slog.Logger

	forcedCL, forcedSerial       bindings.Consistency
	hasForcedCL, hasForcedSerial bool

	native   *nativePool
	sessions *sessions
	catalog  *catalogCache

	condMu    sync.Mutex
	condCache map[string]bool // batch child text -> needs the native client

	version string // release_version seen at Open
}

// OpenURL opens a backend described by a URL (see ParseURL).
func OpenURL(ctx context.Context, rawURL string) (*Backend, error) {
	cfg, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	return Open(ctx, cfg)
}

// Open validates cfg and checks that a node answers. gocql sessions are
// opened lazily, one per keyspace in use.
func Open(ctx context.Context, cfg Config) (*Backend, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	b := &Backend{cfg: cfg, log: log, condCache: map[string]bool{}}
	b.forcedCL, b.hasForcedCL, b.forcedSerial, b.hasForcedSerial = cfg.forcedConsistency()
	b.native = &nativePool{maxIdle: cfg.NativeConns, opts: nativeOptions{
		hosts: cfg.addrs(), proto: primitive.ProtocolVersion(cfg.ProtoVersion),
		user: cfg.User, password: cfg.Password, timeout: cfg.Timeout, connectTimeout: cfg.ConnectTimeout,
	}}
	b.sessions = newSessions(cfg.MaxSessions, func(ks string) (*gocql.Session, error) {
		return clusterConfig(cfg, ks, log).CreateSession()
	})
	b.catalog = newCatalogCache(b, cfg.SchemaRefresh)

	res, err := b.executeNative(ctx, &bindings.Request{Query: "SELECT release_version FROM system.local"}, bindings.One, 0, false)
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("cassandra: open %s: %w", strings.Join(cfg.Hosts, ","), err)
	}
	if len(res.Rows) == 1 && len(res.Rows[0]) == 1 {
		b.version = string(res.Rows[0][0])
	}
	return b, nil
}

// ReleaseVersion returns the Cassandra version the contacted node reported
// at Open (for reports).
func (b *Backend) ReleaseVersion() string { return b.version }

// Config returns the configuration the backend was opened with.
func (b *Backend) Config() Config { return b.cfg }

// levels applies the configured overrides to a request's levels.
func (b *Backend) levels(cl, serial bindings.Consistency) (bindings.Consistency, bindings.Consistency) {
	if b.hasForcedCL {
		cl = b.forcedCL
	}
	if b.hasForcedSerial {
		serial = b.forcedSerial
	}
	return cl, serial
}

// Execute runs one statement.
func (b *Backend) Execute(ctx context.Context, req *bindings.Request) (*bindings.Result, error) {
	cl, serial := b.levels(req.Consistency, req.SerialConsistency)
	kind := statementKind(req.Query)
	if !gocqlPrepares(kind) {
		return b.executeNative(ctx, req, cl, serial, false)
	}
	res, err := b.executeGocql(ctx, req, cl, serial, kind)
	if isArgCountError(err) {
		return b.executeNative(ctx, req, cl, serial, true)
	}
	return res, err
}

func (b *Backend) executeGocql(ctx context.Context, req *bindings.Request, cl, serial bindings.Consistency, kind string) (*bindings.Result, error) {
	op := opSimple
	if kind == "select" {
		op = opRead
	}
	sess, release, err := b.sessions.acquire(ctx, req.Keyspace)
	if err != nil {
		if ctx.Err() != nil {
			return nil, convertError(ctx, ctx.Err(), op, cl)
		}
		// Most likely the keyspace does not exist: let Cassandra answer.
		b.log.Debug("cassandra: gocql session unavailable, using the native client", "keyspace", req.Keyspace, "err", err)
		return b.executeNative(ctx, req, cl, serial, true)
	}
	defer release()
	q := sess.Query(req.Query, GocqlArgs(req.Values, req.Names)...).WithContext(ctx)
	defer q.Release()
	q.Consistency(gocql.Consistency(cl))
	if serial != 0 {
		q.SerialConsistency(gocql.SerialConsistency(serial))
	}
	q.PageSize(max(int(req.PageSize), 0))
	q.PageState(req.PagingState) // also stops gocql from fetching further pages itself
	if req.HasTimestamp {
		q.WithTimestamp(req.Timestamp)
	}
	res, err := readIter(q.Iter())
	if err != nil {
		if isArgCountError(err) {
			return nil, err
		}
		return nil, convertError(ctx, err, op, cl)
	}
	return res, nil
}

// GocqlArgs wraps raw values for gocql.
func GocqlArgs(vals []bindings.Value, names []string) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		var x any = RawValue(v.Bytes)
		if v.Unset {
			x = gocql.UnsetValue
		}
		if names != nil && i < len(names) {
			x = gocql.NamedValue(names[i], x)
		}
		out[i] = x
	}
	return out
}

// readIter reads one page of rows as raw cells.
func readIter(iter *gocql.Iter) (*bindings.Result, error) {
	cols := iter.Columns()
	if len(cols) == 0 {
		warnings := iter.Warnings()
		if err := iter.Close(); err != nil {
			return nil, err
		}
		return &bindings.Result{Kind: bindings.ResultVoid, Warnings: warnings}, nil
	}
	specs := make([]bindings.ColumnSpec, len(cols))
	scanned := 0 // gocql wants one destination per tuple element
	for i, c := range cols {
		t, err := gocqlType(c.TypeInfo)
		if err != nil {
			iter.Close()
			return nil, fmt.Errorf("cassandra: column %s: %w", c.Name, err)
		}
		specs[i] = bindings.ColumnSpec{Keyspace: c.Keyspace, Table: c.Table, Name: c.Name, Type: t}
		if tt, ok := c.TypeInfo.(gocql.TupleTypeInfo); ok {
			// cols aliases the iterator's metadata (fresh per response,
			// since skip-metadata is off): wrapping the type here makes
			// Scan hand the whole tuple to RawCell.
			cols[i].TypeInfo = rawTupleInfo{tt}
			scanned += len(tt.Elems)
		} else {
			scanned++
		}
	}
	dest := make([]any, scanned)
	rows := make([][][]byte, 0, iter.NumRows())
	for {
		row := make([][]byte, len(cols))
		for i := range row {
			dest[i] = (*RawCell)(&row[i])
		}
		if !iter.Scan(dest...) {
			break
		}
		rows = append(rows, row)
	}
	res := &bindings.Result{Kind: bindings.ResultRows, Columns: specs, Rows: rows,
		PagingState: iter.PageState(), Warnings: iter.Warnings()}
	if err := iter.Close(); err != nil {
		return nil, err
	}
	return res, nil
}

// executeNative runs a statement over the native client: as a QUERY, or
// prepared and then executed, as gocql runs the statements it handles (so
// that errors are the same whichever client runs a statement).
func (b *Backend) executeNative(ctx context.Context, req *bindings.Request, cl, serial bindings.Consistency, prepared bool) (*bindings.Result, error) {
	op := opSimple
	if statementKind(req.Query) == "select" {
		op = opRead
	}
	opts := queryOptions(req, cl, serial)
	resp, err := b.nativeDo(ctx, req.Keyspace, func(nc *nativeConn) (message.Message, error) {
		var resp message.Message
		var err error
		if prepared {
			resp, err = nc.prepareAndRun(ctx, req.Query, func(id []byte) message.Message {
				return &message.Execute{QueryId: id, Options: opts}
			})
		} else {
			resp, err = nc.roundTrip(ctx, &message.Query{Query: req.Query, Options: opts})
		}
		if err == nil {
			if r, ok := resp.(*message.SchemaChangeResult); ok {
				b.waitSchemaAgreement(ctx, nc)
				b.schemaChanged(r.ChangeType, r.Target, r.Keyspace)
			}
		}
		return resp, err
	})
	if err != nil {
		return nil, convertError(ctx, err, op, cl)
	}
	return nativeResult(resp)
}

// nativeDo runs fn on a connection in keyspace ks. When ks cannot be used
// (it was dropped), the statement runs without a keyspace, so qualified
// statements still work and others get Cassandra's own error.
func (b *Backend) nativeDo(ctx context.Context, ks string, fn func(*nativeConn) (message.Message, error)) (message.Message, error) {
	resp, err := b.native.do(ctx, ks, fn)
	var be *bindings.Error
	if ks != "" && errors.As(err, &be) && be.Code == bindings.CodeInvalid && errors.Is(err, errUse) {
		return b.native.do(ctx, "", fn)
	}
	return resp, err
}

// schemaChanged reacts to DDL made through this backend.
func (b *Backend) schemaChanged(typ primitive.SchemaChangeType, target primitive.SchemaChangeTarget, ks string) {
	b.catalog.invalidate()
	if typ == primitive.SchemaChangeTypeDropped && target == primitive.SchemaChangeTargetKeyspace {
		b.sessions.forget(ks)
	}
}

// Batch runs a BATCH message.
func (b *Backend) Batch(ctx context.Context, req *bindings.BatchRequest) (*bindings.Result, error) {
	cl, serial := b.levels(req.Consistency, req.SerialConsistency)
	op := opKind{writeType: "BATCH"}
	switch req.Type {
	case cql.BatchUnlogged:
		op.writeType = "UNLOGGED_BATCH"
	case cql.BatchCounter:
		op.writeType = "COUNTER"
	}
	for _, e := range req.Entries {
		if e.Names != nil {
			// The BATCH message cannot carry names (CASSANDRA-10246).
			return nil, bindings.Errorf(bindings.CodeProtocolError, "named values are not supported in BATCH")
		}
	}
	if b.batchNeedsNative(req) {
		return b.batchNative(ctx, req, cl, serial, op)
	}
	sess, release, err := b.sessions.acquire(ctx, req.Keyspace)
	if err != nil {
		if ctx.Err() != nil {
			return nil, convertError(ctx, ctx.Err(), op, cl)
		}
		return b.batchNative(ctx, req, cl, serial, op)
	}
	defer release()
	gb := sess.NewBatch(gocql.BatchType(req.Type)).WithContext(ctx)
	gb.SetConsistency(gocql.Consistency(cl))
	if serial != 0 {
		gb.SerialConsistency(gocql.SerialConsistency(serial))
	}
	if req.HasTimestamp {
		gb.WithTimestamp(req.Timestamp)
	}
	for _, e := range req.Entries {
		gb.Query(e.Query, GocqlArgs(e.Values, nil)...)
	}
	if err := sess.ExecuteBatch(gb); err != nil {
		if isArgCountError(err) {
			return b.batchNative(ctx, req, cl, serial, op)
		}
		return nil, convertError(ctx, err, op, cl)
	}
	return &bindings.Result{Kind: bindings.ResultVoid}, nil
}

// batchNeedsNative reports whether a child is conditional (the batch then
// answers with rows, which gocql's batch API cannot return) or cannot be
// parsed (and so might be).
func (b *Backend) batchNeedsNative(req *bindings.BatchRequest) bool {
	for _, e := range req.Entries {
		if e.Parsed != nil {
			if conditional(e.Parsed.Stmt) {
				return true
			}
			continue
		}
		b.condMu.Lock()
		need, ok := b.condCache[e.Query]
		b.condMu.Unlock()
		if !ok {
			p, err := cql.Parse(e.Query)
			need = err != nil || conditional(p.Stmt)
			b.condMu.Lock()
			if len(b.condCache) >= 4096 {
				clear(b.condCache) // bounded: replays reuse few statements
			}
			b.condCache[e.Query] = need
			b.condMu.Unlock()
		}
		if need {
			return true
		}
	}
	return false
}

func conditional(st cql.Statement) bool {
	switch s := st.(type) {
	case *cql.Insert:
		return s.IfNotExists
	case *cql.Update:
		return s.IfExists || len(s.If) > 0
	case *cql.Delete:
		return s.IfExists || len(s.If) > 0
	}
	return false
}

func (b *Backend) batchNative(ctx context.Context, req *bindings.BatchRequest, cl, serial bindings.Consistency, op opKind) (*bindings.Result, error) {
	msg := &message.Batch{
		Type:              primitive.BatchType(req.Type),
		Consistency:       primitive.ConsistencyLevel(cl),
		SerialConsistency: serialLevel(serial),
	}
	if req.HasTimestamp {
		ts := req.Timestamp
		msg.DefaultTimestamp = &ts
	}
	for _, e := range req.Entries {
		child := &message.BatchChild{Query: e.Query}
		for _, v := range e.Values {
			child.Values = append(child.Values, nativeValue(v))
		}
		msg.Children = append(msg.Children, child)
	}
	resp, err := b.nativeDo(ctx, req.Keyspace, func(nc *nativeConn) (message.Message, error) {
		// As gocql does: children with values are prepared, others sent as text.
		for i, e := range req.Entries {
			if len(e.Values) == 0 {
				continue
			}
			resp, err := nc.roundTrip(ctx, &message.Prepare{Query: e.Query})
			if err != nil {
				return nil, err
			}
			pr, ok := resp.(*message.PreparedResult)
			if !ok {
				return nil, fmt.Errorf("cassandra prepare: unexpected response %T", resp)
			}
			msg.Children[i].Query, msg.Children[i].Id = "", pr.PreparedQueryId
		}
		return nc.roundTrip(ctx, msg)
	})
	if err != nil {
		return nil, convertError(ctx, err, op, cl)
	}
	return nativeResult(resp)
}

// Prepare describes a statement with a PREPARE over the native client
// (gocql keeps prepared metadata private). Execute does not need it: gocql
// prepares statements itself.
func (b *Backend) Prepare(ctx context.Context, keyspace, query string) (*bindings.Prepared, error) {
	resp, err := b.nativeDo(ctx, keyspace, func(nc *nativeConn) (message.Message, error) {
		return nc.roundTrip(ctx, &message.Prepare{Query: query})
	})
	if err != nil {
		return nil, convertError(ctx, err, opRead, bindings.One)
	}
	pr, ok := resp.(*message.PreparedResult)
	if !ok {
		return nil, fmt.Errorf("cassandra prepare: unexpected response %T", resp)
	}
	return nativePrepared(pr, keyspace)
}

// Ping runs SELECT release_version FROM system.local through gocql.
func (b *Backend) Ping(ctx context.Context) error {
	sess, release, err := b.sessions.acquire(ctx, "")
	if err != nil {
		return convertError(ctx, err, opRead, bindings.One)
	}
	defer release()
	var v string
	if err := sess.Query("SELECT release_version FROM system.local").WithContext(ctx).Consistency(gocql.One).Scan(&v); err != nil {
		return convertError(ctx, err, opRead, bindings.One)
	}
	return nil
}

// Close closes every session and connection.
func (b *Backend) Close() error {
	b.catalog.stop()
	b.sessions.close()
	b.native.close()
	return nil
}

// statementKind returns the lower-cased first word of a statement, or the
// last word for BEGIN ... APPLY BATCH, as gocql classifies statements.
func statementKind(stmt string) string {
	stmt = strings.TrimLeftFunc(strings.TrimRightFunc(stmt, func(r rune) bool {
		return unicode.IsSpace(r) || r == ';'
	}), unicode.IsSpace)
	n := strings.IndexFunc(stmt, unicode.IsSpace)
	if n < 0 {
		return "" // gocql does not prepare a one-word statement either
	}
	kind := strings.ToLower(stmt[:n])
	if kind == "begin" {
		if n := strings.LastIndexFunc(stmt, unicode.IsSpace); n >= 0 {
			kind = strings.ToLower(stmt[n+1:])
		}
	}
	return kind
}

// gocqlPrepares reports whether gocql prepares statements of this kind
// (it sends bound values only with prepared statements).
func gocqlPrepares(kind string) bool {
	switch kind {
	case "select", "insert", "update", "delete", "batch":
		return true
	}
	return false
}

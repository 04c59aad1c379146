//go:build cassandra_ref

package bindingtest_test

// A minimal bindings.Backend over raw native-protocol v4 frames, so that the
// conformance scenarios can be validated against a real Cassandra before any
// dohyo binding exists (and stay validated: where Cassandra disagrees with a
// scenario, the scenario is wrong).
//
//	DOHYO_TEST_CASSANDRA=127.0.0.1:9042 go test -tags cassandra_ref \
//	    -run TestConformanceAgainstCassandra ./bindings/bindingtest/

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/datatype"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/bindingtest"
	"github.com/dohyo/dohyo/cql"
)

const cassandraEnv = "DOHYO_TEST_CASSANDRA"

func TestConformanceAgainstCassandra(t *testing.T) {
	addr := os.Getenv(cassandraEnv)
	if addr == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set (required in CI)", cassandraEnv)
		}
		t.Skipf("%s not set", cassandraEnv)
	}
	bindingtest.Run(t, func(t *testing.T) bindings.Backend {
		return &refBackend{addr: addr, prepared: map[string][]byte{}}
	})
}

const protoVersion = primitive.ProtocolVersion4

var (
	_ bindings.Backend  = (*refBackend)(nil)
	_ bindings.Preparer = (*refBackend)(nil)
)

// refBackend serialises requests over two lazily opened connections: one
// that follows the session keyspace with USE, and one that never has a
// keyspace (for requests with Keyspace == "").
type refBackend struct {
	addr string

	mu       sync.Mutex
	ksConn   *refConn
	bareConn *refConn
	prepared map[string][]byte // keyspace + "\x00" + query -> statement id
}

type refConn struct {
	c     net.Conn
	r     *bufio.Reader
	codec frame.Codec
	ks    string
}

func dial(ctx context.Context, addr string) (*refConn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("ref dial: %w", err)
	}
	rc := &refConn{c: c, r: bufio.NewReader(c), codec: frame.NewCodec()}
	resp, err := rc.roundTrip(ctx, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}})
	if err != nil {
		c.Close()
		return nil, err
	}
	if _, ok := resp.(*message.Ready); !ok {
		c.Close()
		return nil, fmt.Errorf("ref startup: got %T (authentication is not supported)", resp)
	}
	return rc, nil
}

// roundTrip sends one request and returns its response message; protocol
// errors come back as *bindings.Error.
func (rc *refConn) roundTrip(ctx context.Context, msg message.Message) (message.Message, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(2 * time.Minute)
	}
	if err := rc.c.SetDeadline(deadline); err != nil {
		return nil, fmt.Errorf("ref deadline: %w", err)
	}
	if err := rc.codec.EncodeFrame(frame.NewFrame(protoVersion, 1, msg), rc.c); err != nil {
		return nil, fmt.Errorf("ref write: %w", err)
	}
	for {
		f, err := rc.codec.DecodeFrame(rc.r)
		if err != nil {
			return nil, fmt.Errorf("ref read: %w", err)
		}
		if f.Header.StreamId != 1 {
			continue // events and strays
		}
		if e, ok := f.Body.Message.(message.Error); ok {
			return nil, toError(e)
		}
		return f.Body.Message, nil
	}
}

func toError(e message.Error) *bindings.Error {
	be := &bindings.Error{Code: bindings.ErrorCode(e.GetErrorCode()), Message: e.GetErrorMessage()}
	if ae, ok := e.(*message.AlreadyExists); ok {
		be.Keyspace, be.Table = ae.Keyspace, ae.Table
	}
	return be
}

// conn returns the connection for a request's keyspace, switching the
// keyed connection's keyspace with USE when needed.
func (b *refBackend) conn(ctx context.Context, ks string) (*refConn, error) {
	var err error
	if ks == "" {
		if b.bareConn == nil {
			b.bareConn, err = dial(ctx, b.addr)
		}
		return b.bareConn, err
	}
	if b.ksConn == nil {
		if b.ksConn, err = dial(ctx, b.addr); err != nil {
			return nil, err
		}
	}
	if b.ksConn.ks != ks {
		if _, err := b.ksConn.roundTrip(ctx, &message.Query{Query: "USE " + cql.QuoteIdent(ks),
			Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}}); err != nil {
			return nil, err
		}
		b.ksConn.ks = ks
	}
	return b.ksConn, nil
}

func prepKey(ks, q string) string { return ks + "\x00" + q }

func (b *refBackend) Prepare(ctx context.Context, keyspace, query string) (*bindings.Prepared, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	rc, err := b.conn(ctx, keyspace)
	if err != nil {
		return nil, err
	}
	resp, err := rc.roundTrip(ctx, &message.Prepare{Query: query})
	if err != nil {
		return nil, err
	}
	pr, ok := resp.(*message.PreparedResult)
	if !ok {
		return nil, fmt.Errorf("ref prepare: got %T", resp)
	}
	b.prepared[prepKey(keyspace, query)] = pr.PreparedQueryId
	out := &bindings.Prepared{Keyspace: keyspace}
	if vm := pr.VariablesMetadata; vm != nil {
		out.PKIndexes = append(out.PKIndexes, vm.PkIndices...)
		if out.Bind, err = toSpecs(vm.Columns); err != nil {
			return nil, err
		}
	}
	if rm := pr.ResultMetadata; rm != nil && len(rm.Columns) > 0 {
		if out.Result, err = toSpecs(rm.Columns); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (b *refBackend) Execute(ctx context.Context, req *bindings.Request) (*bindings.Result, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	rc, err := b.conn(ctx, req.Keyspace)
	if err != nil {
		return nil, err
	}
	opts := &message.QueryOptions{
		Consistency:       primitive.ConsistencyLevel(req.Consistency),
		PageSize:          req.PageSize,
		PagingState:       req.PagingState,
		SerialConsistency: serial(req.SerialConsistency),
	}
	if req.HasTimestamp {
		ts := req.Timestamp
		opts.DefaultTimestamp = &ts
	}
	if req.Names != nil {
		opts.NamedValues = map[string]*primitive.Value{}
		for i, n := range req.Names {
			opts.NamedValues[n] = toValue(req.Values[i])
		}
	} else {
		for _, v := range req.Values {
			opts.PositionalValues = append(opts.PositionalValues, toValue(v))
		}
	}
	key := prepKey(req.Keyspace, req.Query)
	var msg message.Message = &message.Query{Query: req.Query, Options: opts}
	if id, ok := b.prepared[key]; ok {
		msg = &message.Execute{QueryId: id, Options: opts}
	}
	resp, err := rc.roundTrip(ctx, msg)
	if e, ok := err.(*bindings.Error); ok && e.Code == bindings.CodeUnprepared {
		// Evicted after a schema change: prepare again, as drivers do.
		if resp, err = rc.roundTrip(ctx, &message.Prepare{Query: req.Query}); err == nil {
			if pr, ok := resp.(*message.PreparedResult); ok {
				b.prepared[key] = pr.PreparedQueryId
				resp, err = rc.roundTrip(ctx, &message.Execute{QueryId: pr.PreparedQueryId, Options: opts})
			}
		}
	}
	if err != nil {
		return nil, err
	}
	res, err := toResult(resp)
	if err == nil && res.Kind == bindings.ResultSetKeyspace {
		// A USE statement moved the connection.
		if rc == b.ksConn {
			rc.ks = res.Keyspace
		} else {
			rc.c.Close()
			b.bareConn = nil
		}
	}
	return res, err
}

func (b *refBackend) Batch(ctx context.Context, req *bindings.BatchRequest) (*bindings.Result, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	rc, err := b.conn(ctx, req.Keyspace)
	if err != nil {
		return nil, err
	}
	msg := &message.Batch{
		Type:              primitive.BatchType(req.Type),
		Consistency:       primitive.ConsistencyLevel(req.Consistency),
		SerialConsistency: serial(req.SerialConsistency),
	}
	if req.HasTimestamp {
		ts := req.Timestamp
		msg.DefaultTimestamp = &ts
	}
	for _, e := range req.Entries {
		if e.Names != nil {
			return nil, fmt.Errorf("ref batch: named values are not supported in BATCH")
		}
		child := &message.BatchChild{Query: e.Query}
		if id, ok := b.prepared[prepKey(req.Keyspace, e.Query)]; ok {
			child = &message.BatchChild{Id: id}
		}
		for _, v := range e.Values {
			child.Values = append(child.Values, toValue(v))
		}
		msg.Children = append(msg.Children, child)
	}
	resp, err := rc.roundTrip(ctx, msg)
	if err != nil {
		return nil, err
	}
	return toResult(resp)
}

func (b *refBackend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, rc := range []*refConn{b.ksConn, b.bareConn} {
		if rc != nil {
			rc.c.Close()
		}
	}
	b.ksConn, b.bareConn = nil, nil
	return nil
}

func serial(c bindings.Consistency) *primitive.ConsistencyLevel {
	if c == 0 {
		return nil
	}
	l := primitive.ConsistencyLevel(c)
	return &l
}

func toValue(v bindings.Value) *primitive.Value {
	if v.Unset {
		return primitive.NewUnsetValue()
	}
	if v.Bytes == nil {
		return primitive.NewNullValue()
	}
	return primitive.NewValue(v.Bytes)
}

func toResult(m message.Message) (*bindings.Result, error) {
	switch r := m.(type) {
	case *message.VoidResult:
		return &bindings.Result{Kind: bindings.ResultVoid}, nil
	case *message.SetKeyspaceResult:
		return &bindings.Result{Kind: bindings.ResultSetKeyspace, Keyspace: r.Keyspace}, nil
	case *message.SchemaChangeResult:
		return &bindings.Result{Kind: bindings.ResultSchemaChange, Change: &bindings.SchemaChange{
			Type: bindings.ChangeType(r.ChangeType), Target: bindings.ChangeTarget(r.Target),
			Keyspace: r.Keyspace, Object: r.Object,
		}}, nil
	case *message.RowsResult:
		out := &bindings.Result{Kind: bindings.ResultRows, PagingState: r.Metadata.PagingState}
		var err error
		if out.Columns, err = toSpecs(r.Metadata.Columns); err != nil {
			return nil, err
		}
		for _, row := range r.Data {
			out.Rows = append(out.Rows, [][]byte(row))
		}
		return out, nil
	}
	return nil, fmt.Errorf("ref: unexpected response %T", m)
}

func toSpecs(cols []*message.ColumnMetadata) ([]bindings.ColumnSpec, error) {
	out := make([]bindings.ColumnSpec, len(cols))
	for i, c := range cols {
		t, err := toType(c.Type)
		if err != nil {
			return nil, fmt.Errorf("ref: column %s: %w", c.Name, err)
		}
		out[i] = bindings.ColumnSpec{Keyspace: c.Keyspace, Table: c.Table, Name: c.Name, Type: t}
	}
	return out, nil
}

var scalarKinds = map[primitive.DataTypeCode]cql.Kind{
	primitive.DataTypeCodeAscii: cql.KindAscii, primitive.DataTypeCodeBigint: cql.KindBigint,
	primitive.DataTypeCodeBlob: cql.KindBlob, primitive.DataTypeCodeBoolean: cql.KindBoolean,
	primitive.DataTypeCodeCounter: cql.KindCounter, primitive.DataTypeCodeDecimal: cql.KindDecimal,
	primitive.DataTypeCodeDouble: cql.KindDouble, primitive.DataTypeCodeFloat: cql.KindFloat,
	primitive.DataTypeCodeInt: cql.KindInt, primitive.DataTypeCodeTimestamp: cql.KindTimestamp,
	primitive.DataTypeCodeUuid: cql.KindUUID, primitive.DataTypeCodeVarchar: cql.KindText,
	primitive.DataTypeCodeText: cql.KindText, primitive.DataTypeCodeVarint: cql.KindVarint,
	primitive.DataTypeCodeTimeuuid: cql.KindTimeuuid, primitive.DataTypeCodeInet: cql.KindInet,
	primitive.DataTypeCodeDate: cql.KindDate, primitive.DataTypeCodeTime: cql.KindTime,
	primitive.DataTypeCodeSmallint: cql.KindSmallint, primitive.DataTypeCodeTinyint: cql.KindTinyint,
	primitive.DataTypeCodeDuration: cql.KindDuration,
}

// toType converts a protocol data type. The protocol does not carry
// frozenness; serialized values are the same either way.
func toType(dt datatype.DataType) (*cql.Type, error) {
	switch t := dt.(type) {
	case *datatype.List:
		e, err := toType(t.ElementType)
		if err != nil {
			return nil, err
		}
		return cql.ListOf(e), nil
	case *datatype.Set:
		e, err := toType(t.ElementType)
		if err != nil {
			return nil, err
		}
		return cql.SetOf(e), nil
	case *datatype.Map:
		k, err := toType(t.KeyType)
		if err != nil {
			return nil, err
		}
		v, err := toType(t.ValueType)
		if err != nil {
			return nil, err
		}
		return cql.MapOf(k, v), nil
	case *datatype.Tuple:
		elems := make([]*cql.Type, len(t.FieldTypes))
		for i, f := range t.FieldTypes {
			e, err := toType(f)
			if err != nil {
				return nil, err
			}
			elems[i] = e
		}
		return cql.TupleOf(elems...), nil
	case *datatype.UserDefined:
		u := &cql.Type{Kind: cql.KindUDT, Keyspace: t.Keyspace, Name: t.Name, Fields: t.FieldNames, Frozen: true}
		for _, f := range t.FieldTypes {
			e, err := toType(f)
			if err != nil {
				return nil, err
			}
			u.Elems = append(u.Elems, e)
		}
		return u, nil
	}
	if k, ok := scalarKinds[dt.Code()]; ok {
		return cql.Scalar(k), nil
	}
	// v4 carries duration as a custom type named by its Java class.
	if c, ok := dt.(*datatype.Custom); ok && c.ClassName == "org.apache.cassandra.db.marshal.DurationType" {
		return cql.Scalar(cql.KindDuration), nil
	}
	return nil, fmt.Errorf("unsupported protocol type %v", dt)
}

// TestReferenceAdapterSmoke checks the adapter's framing and conversions
// against a scripted in-process server, so the adapter is known to work
// before it meets a real Cassandra.
func TestReferenceAdapterSmoke(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var got []message.Message
	var gotMu sync.Mutex
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		codec := frame.NewCodec()
		for {
			f, err := codec.DecodeFrame(c)
			if err != nil {
				return
			}
			gotMu.Lock()
			got = append(got, f.Body.Message)
			gotMu.Unlock()
			var resp message.Message
			switch m := f.Body.Message.(type) {
			case *message.Startup:
				resp = &message.Ready{}
			case *message.Query:
				switch {
				case m.Query == "USE ks":
					resp = &message.SetKeyspaceResult{Keyspace: "ks"}
				case m.Query == "BAD":
					resp = &message.Invalid{ErrorMessage: "nope"}
				default:
					resp = &message.RowsResult{
						Metadata: &message.RowsMetadata{ColumnCount: 2, PagingState: []byte("p"), Columns: []*message.ColumnMetadata{
							{Keyspace: "ks", Table: "t", Name: "k", Type: datatype.Int},
							{Keyspace: "ks", Table: "t", Name: "m", Type: datatype.NewMap(datatype.Varchar, datatype.NewList(datatype.Bigint))},
						}},
						Data: message.RowSet{{{0, 0, 0, 1}, nil}, {{0, 0, 0, 2}, {}}},
					}
				}
			}
			if err := codec.EncodeFrame(frame.NewFrame(protoVersion, f.Header.StreamId, resp), c); err != nil {
				return
			}
		}
	}()

	b := &refBackend{addr: ln.Addr().String(), prepared: map[string][]byte{}}
	defer b.Close()
	ctx := t.Context()
	res, err := b.Execute(ctx, &bindings.Request{Keyspace: "ks", Query: "SELECT * FROM t", Consistency: bindings.One, PageSize: 5,
		Values: []bindings.Value{{Bytes: []byte{1}}, {Unset: true}, {}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != bindings.ResultRows || string(res.PagingState) != "p" || len(res.Rows) != 2 {
		t.Fatalf("result: got %+v", res)
	}
	if got, want := res.Columns[1].Type.String(), "map<text, list<bigint>>"; got != want {
		t.Errorf("column type: got %s, want %s", got, want)
	}
	if res.Rows[0][1] != nil || res.Rows[1][1] == nil {
		t.Errorf("null versus empty cells lost: %#v", res.Rows)
	}
	_, err = b.Execute(ctx, &bindings.Request{Keyspace: "ks", Query: "BAD", Consistency: bindings.One})
	if e, ok := err.(*bindings.Error); !ok || e.Code != bindings.CodeInvalid || e.Message != "nope" {
		t.Errorf("error: got %#v", err)
	}
	gotMu.Lock()
	defer gotMu.Unlock()
	if len(got) != 4 {
		t.Fatalf("server saw %d messages, want 4 (STARTUP, USE, SELECT, BAD)", len(got))
	}
	q := got[2].(*message.Query)
	if q.Options.PageSize != 5 || len(q.Options.PositionalValues) != 3 ||
		q.Options.PositionalValues[1].Type != primitive.ValueTypeUnset || q.Options.PositionalValues[2].Type != primitive.ValueTypeNull {
		t.Errorf("query options: got %+v", q.Options)
	}
}

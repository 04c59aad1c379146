package cassandra

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/bindings"
)

var (
	_ bindings.Backend  = (*NativeBackend)(nil)
	_ bindings.Preparer = (*NativeBackend)(nil)
	_ bindings.Pinger   = (*NativeBackend)(nil)
)

// NativeBackend executes requests over raw native-protocol connections with
// no driver in between: statements go as QUERY messages, or as EXECUTE once
// prepared through Prepare, and results come back exactly as the server
// sent them. It is the reference adapter that validates the conformance
// scenarios against Cassandra (bindingtest's cassandra_ref test), and works
// with any CQL endpoint, another dohyo included. Connections go to the
// first reachable host; there is no token-aware routing.
type NativeBackend struct {
	cfg  Config
	pool *nativePool

	mu       sync.Mutex
	prepared map[string][]byte // keyspace + "\x00" + query -> statement id
}

// OpenNative validates cfg; connections are opened on first use.
func OpenNative(_ context.Context, cfg Config) (*NativeBackend, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &NativeBackend{cfg: cfg, prepared: map[string][]byte{}, pool: &nativePool{
		maxIdle: max(cfg.NativeConns, 1),
		opts: nativeOptions{hosts: cfg.addrs(), proto: primitive.ProtocolVersion(cfg.ProtoVersion),
			user: cfg.User, password: cfg.Password, timeout: cfg.Timeout, connectTimeout: cfg.ConnectTimeout},
	}}, nil
}

func prepKey(ks, q string) string { return ks + "\x00" + q }

func (b *NativeBackend) preparedID(ks, q string) []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.prepared[prepKey(ks, q)]
}

func (b *NativeBackend) remember(ks, q string, id []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.prepared[prepKey(ks, q)] = id
}

// Prepare prepares query; later executions of the same text in the same
// keyspace use EXECUTE.
func (b *NativeBackend) Prepare(ctx context.Context, keyspace, query string) (*bindings.Prepared, error) {
	resp, err := b.pool.do(ctx, keyspace, func(nc *nativeConn) (message.Message, error) {
		return nc.roundTrip(ctx, &message.Prepare{Query: query})
	})
	if err != nil {
		return nil, convertError(ctx, err, opRead, bindings.One)
	}
	pr, ok := resp.(*message.PreparedResult)
	if !ok {
		return nil, fmt.Errorf("cassandra prepare: unexpected response %T", resp)
	}
	b.remember(keyspace, query, pr.PreparedQueryId)
	return nativePrepared(pr, keyspace)
}

// Execute sends a QUERY, or an EXECUTE for a statement prepared before
// (preparing again if the server evicted it, as drivers do).
func (b *NativeBackend) Execute(ctx context.Context, req *bindings.Request) (*bindings.Result, error) {
	opts := queryOptions(req, req.Consistency, req.SerialConsistency)
	resp, err := b.pool.do(ctx, req.Keyspace, func(nc *nativeConn) (message.Message, error) {
		id := b.preparedID(req.Keyspace, req.Query)
		if id == nil {
			return nc.roundTrip(ctx, &message.Query{Query: req.Query, Options: opts})
		}
		resp, err := nc.roundTrip(ctx, &message.Execute{QueryId: id, Options: opts})
		var be *bindings.Error
		if errors.As(err, &be) && be.Code == bindings.CodeUnprepared {
			return nc.prepareAndRun(ctx, req.Query, func(id []byte) message.Message {
				b.remember(req.Keyspace, req.Query, id)
				return &message.Execute{QueryId: id, Options: opts}
			})
		}
		return resp, err
	})
	if err != nil {
		op := opSimple
		if statementKind(req.Query) == "select" {
			op = opRead
		}
		return nil, convertError(ctx, err, op, req.Consistency)
	}
	return nativeResult(resp)
}

// Batch sends a BATCH; children prepared through Prepare go by id.
func (b *NativeBackend) Batch(ctx context.Context, req *bindings.BatchRequest) (*bindings.Result, error) {
	msg := &message.Batch{
		Type:              primitive.BatchType(req.Type),
		Consistency:       primitive.ConsistencyLevel(req.Consistency),
		SerialConsistency: serialLevel(req.SerialConsistency),
	}
	if req.HasTimestamp {
		ts := req.Timestamp
		msg.DefaultTimestamp = &ts
	}
	for _, e := range req.Entries {
		if e.Names != nil {
			return nil, bindings.Errorf(bindings.CodeProtocolError, "named values are not supported in BATCH")
		}
		child := &message.BatchChild{Query: e.Query}
		if id := b.preparedID(req.Keyspace, e.Query); id != nil {
			child = &message.BatchChild{Id: id}
		}
		for _, v := range e.Values {
			child.Values = append(child.Values, nativeValue(v))
		}
		msg.Children = append(msg.Children, child)
	}
	resp, err := b.pool.do(ctx, req.Keyspace, func(nc *nativeConn) (message.Message, error) {
		return nc.roundTrip(ctx, msg)
	})
	if err != nil {
		return nil, convertError(ctx, err, opKind{writeType: "BATCH"}, req.Consistency)
	}
	return nativeResult(resp)
}

// Ping runs SELECT release_version FROM system.local.
func (b *NativeBackend) Ping(ctx context.Context) error {
	_, err := b.Execute(ctx, &bindings.Request{Query: "SELECT release_version FROM system.local", Consistency: bindings.One})
	return err
}

// Close closes the idle connections; connections in use close when their
// request ends.
func (b *NativeBackend) Close() error {
	b.pool.close()
	return nil
}
